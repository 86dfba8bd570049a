// Register-level decode of packed E2M1 codes and UE4M3 block scales to fp16 (numerics §1, §8).
// e2m1(q) * float(s) has at most 6 significant bits and lies in 2^-10 .. 2688, so it is exact in
// fp16 as in bf16. In fp16, Hopper's e4m3 -> f16x2 conversion decodes the block scales (and the
// two-stage path's codes); the fused mainloop decodes codes by bit moves alone.
#pragma once
#include <cstdint>

#include "cuda/common/common.cuh"

namespace lowp::cuda::gemm_sm90 {

// Two E4M3 bytes (low, high half of `pair`) -> f16x2, exact.
__device__ __forceinline__ uint32_t e4m3x2_to_f16x2(uint16_t pair) {
  uint32_t d;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(pair));
  return d;
}

__device__ __forceinline__ uint32_t hmul2(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

// A UE4M3 block scale byte -> (s * 64, s * 64) as f16x2. The factor 64 undoes the 2^-6 that
// decode_e2m1x8_div64 leaves in the codes; s * 64 <= 448 * 64 stays exact and finite in fp16.
__device__ __forceinline__ uint32_t scale_times64_f16x2(uint32_t scale_byte) {
  const uint32_t s2 = e4m3x2_to_f16x2(static_cast<uint16_t>(scale_byte * 0x0101u));
  return hmul2(s2, 0x54005400u);  // 64.0 in both halves
}

// Eight E2M1 codes (element 2j in bits 3:0 of byte j) -> four f16x2 words holding e2m1(q) / 64 in
// element order. Each nibble s.e.e.m becomes the E4M3 byte s.0.0.e.e.m.0.0, whose value is the
// E2M1 value times 2^-6 (E2M1's subnormal 0.5 lands on E4M3's subnormal 2^-7), then the hardware
// conversion decodes pairs exactly.
__device__ __forceinline__ void decode_e2m1x8_div64(uint32_t w, uint32_t (&out)[4]) {
  const uint32_t even = ((w << 2) & 0x1C1C1C1Cu) | ((w << 4) & 0x80808080u);  // elements 0,2,4,6
  const uint32_t odd = ((w >> 2) & 0x1C1C1C1Cu) | (w & 0x80808080u);         // elements 1,3,5,7
  const uint32_t p01_23 = prmt(even, odd, 0x5140u);  // bytes e0 e1 e2 e3
  const uint32_t p45_67 = prmt(even, odd, 0x7362u);  // bytes e4 e5 e6 e7
  out[0] = e4m3x2_to_f16x2(static_cast<uint16_t>(p01_23));
  out[1] = e4m3x2_to_f16x2(static_cast<uint16_t>(p01_23 >> 16));
  out[2] = e4m3x2_to_f16x2(static_cast<uint16_t>(p45_67));
  out[3] = e4m3x2_to_f16x2(static_cast<uint16_t>(p45_67 >> 16));
}

// The UE4M3 block scale in byte b of `scales` -> (s, s) as f16x2, exact; `selector` is
// 0x4400 | b | b << 4, which copies byte b into both low bytes.
__device__ __forceinline__ uint32_t scale_f16x2(uint32_t scales, uint32_t selector) {
  return e4m3x2_to_f16x2(static_cast<uint16_t>(prmt(scales, 0u, selector)));
}

// Eight E2M1 codes (element 2j in bits 3:0 of byte j) -> four f16x2 words holding e2m1(q) * 2^-14
// in the order (0, 2), (4, 6), (1, 3), (5, 7). A nibble s.e.e.m placed as fp16's bit 15 and bits
// 11:9 is E2M1's value times 2^-14 for every code (fp16's subnormal 2^-15 is E2M1's 0.5), so the
// decode is bit moves on the integer pipe alone. The order is a fixed permutation within eight
// consecutive K positions: both GEMM operands use it, so every product meets its partner.
__device__ __forceinline__ void decode_e2m1x8_scaled_permuted(uint32_t w, uint32_t (&out)[4]) {
  const uint32_t lo = ((w << 1) & 0x0E0E0E0Eu) | ((w << 4) & 0x80808080u);  // fp16 high bytes of 0, 2, 4, 6
  const uint32_t hi = ((w >> 3) & 0x0E0E0E0Eu) | (w & 0x80808080u);         // of 1, 3, 5, 7
  out[0] = prmt(lo, 0u, 0x1404u);
  out[1] = prmt(lo, 0u, 0x3424u);
  out[2] = prmt(hi, 0u, 0x1404u);
  out[3] = prmt(hi, 0u, 0x3424u);
}

}  // namespace lowp::cuda::gemm_sm90
