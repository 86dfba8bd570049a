// Device hot-path versions of the NVFP4 scalar rules in src/numerics. Hopper has no FP4 convert
// instruction; these replace the generic minifloat encoder with a few float ops each and must give
// the same bytes: tests/cuda/nvfp4_encode_exhaustive_test.cu compares them with num:: on all 2^32
// inputs (RN, SR), the scale encode on 2^28 pairs and the decode on every finite code.
#pragma once
#include <cuda_bf16.h>

#include "common.cuh"
#include "numerics/nvfp4_scaling.h"

namespace lowp::cuda {

// fma(a, q, 1.5 * 2^23) leaves round(a * q) in the low mantissa bits when 0 <= a * q < 2^22:
// the magic constant's ulp is 1, so the single rounding of the fma is the integer rounding.
constexpr float kRoundMagic = 12582912.0f;
constexpr uint32_t kRoundMagicBits = 0x4B400000u;

// E2M1 encode, == num::encode_e2m1 / encode_e2m1_sr on every input. The code of
// a = min(|y|, 6) (NaN -> 6; the clamp leaves saturation unchanged, for RN and SR alike) is the
// minimum of the three binades' roundings rint(2a), rint(a) + 2 and rint(a / 2) + 4: in its own
// binade each is the right one and the others are never smaller (each is monotone and they cross
// exactly at a = 2 and 4). Three FMA-pipe ops and one 3-way integer min instead of compares and
// selects. The sign comes from min(y, 6), which is +6 for NaN (NaN encodes as +6). Returned
// biased: kRoundMagicBits + code with the sign in bit 3; unbias() or pack_bias() removes it.
__device__ __forceinline__ uint32_t e2m1_finish(uint32_t t1, uint32_t t2, uint32_t t3, float y) {
  return __vimin3_u32(t1, t2, t3) | ((__float_as_uint(fminf(y, 6.0f)) >> 28) & 8u);
}

__device__ __forceinline__ uint32_t e2m1_rn_biased(float y) {
  const float a = fminf(fabsf(y), 6.0f);
  return e2m1_finish(__float_as_uint(__fmaf_rn(a, 2.0f, kRoundMagic)), __float_as_uint(__fadd_rn(a, kRoundMagic + 2.0f)),
                     __float_as_uint(__fmaf_rn(a, 0.5f, kRoundMagic + 4.0f)), y);
}

// SR: t = a + (r / 256) * step with the step of a's binade, floored on the grid; per binade
// candidate the first fma adds that binade's step and the RZ one floors.
__device__ __forceinline__ uint32_t e2m1_sr_biased(float y, uint32_t r) {
  const float a = fminf(fabsf(y), 6.0f);
  const float frac = __uint_as_float(0x3F800000u | (r << 15)) - 1.0f;  // r / 256, exact
  return e2m1_finish(__float_as_uint(__fmaf_rz(__fmaf_rn(frac, 0.5f, a), 2.0f, kRoundMagic)),
                     __float_as_uint(__fadd_rz(__fadd_rn(frac, a), kRoundMagic + 2.0f)),
                     __float_as_uint(__fmaf_rz(__fmaf_rn(frac, 2.0f, a), 0.5f, kRoundMagic + 4.0f)), y);
}

// The code itself (sign in bit 3) of a biased code.
__device__ __forceinline__ uint32_t unbias(uint32_t biased) { return biased & 0xFu; }

// Sum of n biased codes shifted to their nibbles, minus the biases: the packed codes.
template <int kNibbles>
__device__ __forceinline__ uint32_t pack_bias() {
  uint32_t b = 0;
#pragma unroll
  for (int e = 0; e < kNibbles; ++e) b += kRoundMagicBits << (4 * e);
  return b;
}

// bf16 round trip of a pair (RNE): equals num::f32_to_bf16 on every input, NaN included
// (nvfp4_encode_exhaustive_test).
__device__ __forceinline__ void round_pair_to_bf16(float& lo, float& hi) {
  const __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);
  const uint32_t w = *reinterpret_cast<const uint32_t*>(&p);
  lo = __uint_as_float(w << 16);
  hi = __uint_as_float(w & 0xFFFF0000u);
}

// == num::decode_e4m3(s) for every non-NaN code (block scales are never NaN: satfinite).
__device__ __forceinline__ float decode_ue4m3(uint32_t s) {
  const __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(s), __NV_E4M3);
  return __half2float(__half(h));
}

// == num::nvfp4_block_scale(b, s_enc) with s_enc6 = mul_rn(s_enc, 1/6); the satfinite E4M3
// convert instruction equals num::encode_e4m3 on all inputs (fp8_cvt_exhaustive_test).
__device__ __forceinline__ uint32_t block_scale_code(float block_amax, float s_enc6) {
  const float v = fminf(__fmul_rn(block_amax, s_enc6), num::kFltMax);
  return fp8x2<true>(v, 0.0f) & 0xFFu;
}

}  // namespace lowp::cuda
