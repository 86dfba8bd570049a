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

// E2M1 magnitude code of y, the code of num::encode_e2m1 / encode_e2m1_sr without the sign. The
// code of a = min(|y|, 6) (NaN -> 6; the clamp leaves saturation unchanged, for RN and SR alike) is
// the minimum of the three binades' roundings rint(2a), rint(a) + 2 and rint(a / 2) + 4: in its own
// binade each is the right one and the others are never smaller (each is monotone and they cross
// exactly at a = 2 and 4). Three FMA-pipe ops and one 3-way integer min instead of compares and
// selects. Returned biased: kRoundMagicBits + code (0..7); byte 0 is the code.
__device__ __forceinline__ uint32_t e2m1_rn_magnitude(float y) {
  const float a = fminf(fabsf(y), 6.0f);
  return __vimin3_u32(__float_as_uint(__fmaf_rn(a, 2.0f, kRoundMagic)), __float_as_uint(__fadd_rn(a, kRoundMagic + 2.0f)),
                      __float_as_uint(__fmaf_rn(a, 0.5f, kRoundMagic + 4.0f)));
}

// The same without the clamp, for |y| < 7 (no NaN): rint(a / 2) + 4 is still 7 up to 7.
__device__ __forceinline__ uint32_t e2m1_rn_magnitude_unclamped(float y) {
  const float a = fabsf(y);  // rides on the fma operands
  return __vimin3_u32(__float_as_uint(__fmaf_rn(a, 2.0f, kRoundMagic)), __float_as_uint(__fadd_rn(a, kRoundMagic + 2.0f)),
                      __float_as_uint(__fmaf_rn(a, 0.5f, kRoundMagic + 4.0f)));
}

// True when every |x * m| of a block is below 7, so RN may skip the clamp: an all-zero block, or
// a normal scale (s >= 8) whose unrounded value v = b * s_enc / 6 is at most 480. Its block max
// then lands within 6 * max(1 + 2^-4, 480 / 448) < 7 (the scale's rounding or saturation), and the
// multiplier is finite. Subnormal scales, saturated ones (NaN and inf blocks among them) and SR
// keep the clamp.
__device__ __forceinline__ bool clamp_free(float block_amax, float s_enc6, uint32_t s) {
  return (s >= 8u && __fmul_rn(block_amax, s_enc6) <= 480.0f) || block_amax == 0.0f;
}

// prmt.b32 with the sign-replicating selectors (bit 3 of a selector nibble) __byte_perm lacks.
__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t selector) {
  uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(selector));
  return d;
}

// SR (SPEC §7) on fp32's own grid. Scaled by 2^-126 toward zero, a = min(|y|, 6) becomes S whose
// bits 22..24 are the largest E2M1 code <= a: below 2 the scaled values are subnormal or in the
// lowest normal binade (one ulp per 2^-23 of a), above it each binade halves the slope exactly as
// E2M1's step doubles. So the step's r / 256 is always r << 14 in S, and (S + (r << 14)) >> 22
// (S + (r << 14) < 2^25 for a <= 6) is the code of the exact sum a + r/256 * step. SPEC rounds
// that sum to fp32 first, which moves the code only for a < 0.25, when a + r/512 lies within
// 2^-26 below 0.5 (the tie goes to 0.5): adding 2^-26 to a toward zero first reproduces exactly
// that and changes nothing else (a >= 0.25 has no bits below 2^-25, and a truncated S cannot
// cross an integer). Six instructions, two on the ALU pipe (the one-fma form: eight, four).
// Returned biased like e2m1_rn_magnitude. mul.rz.f32 without .ftz keeps S subnormal under -ftz.
__device__ __forceinline__ uint32_t e2m1_sr_magnitude(float y, uint32_t word, int b) {
  const float a = __fadd_rz(fminf(fabsf(y), 6.0f), 0x1p-26f);
  uint32_t scaled;
  asm("mul.rz.f32 %0, %1, 0f00800000;" : "=r"(scaled) : "f"(a));  // a * 2^-126
  const uint32_t r = prmt(word, 0u, 0x4440u | static_cast<uint32_t>(b));  // byte b alone
  return __umulhi(scaled + r * (1u << 14), 1u << 10) + kRoundMagicBits;
}

// The signs of the codes come from y's sign bit. Every y here is the result of a multiply, and
// the GPU's arithmetic returns NaN as the positive canonical NaN, so a NaN encodes as +6 like
// num::encode_e2m1 (nvfp4_encode_exhaustive_test checks this on every input bit pattern).
__device__ __forceinline__ uint32_t e2m1_code(uint32_t magnitude, float y) {
  return (magnitude & 7u) | ((__float_as_uint(y) >> 28) & 8u);
}

// Eight codes packed as the format stores them (element i in nibble i, sign in its bit 3) from
// their biased magnitudes k (kRoundMagicBits + code; k[4..7] may also be 0, code 0) and values y:
// byte permutes gather the sign-replicated bytes of the even and the odd elements.
__device__ __forceinline__ uint32_t pack_e2m1x8(const uint32_t (&k)[8], const float (&y)[8]) {
  const auto yb = [&](int i) { return __float_as_uint(y[i]); };
  // Signs: byte b of s01 is 0xFF / 0x00 by the sign of element 2b (bit 3 kept) or 2b + 1 (bit 7).
  const uint32_t s01 = (prmt(yb(0), yb(2), 0xFBFBu) & 0x08080808u) | (prmt(yb(1), yb(3), 0xFBFBu) & 0x80808080u);
  const uint32_t s23 = (prmt(yb(4), yb(6), 0xFBFBu) & 0x08080808u) | (prmt(yb(5), yb(7), 0xFBFBu) & 0x80808080u);
  // Magnitudes by multiply-adds (FMA pipe; the ALU pipe bounds the encode): the biased codes'
  // bias sums to a constant (its multiples by 16^i, i >= 3, vanish mod 2^32), removed in the add
  // that merges the signs.
  const uint32_t lo = (k[3] * 16u + k[2]) * 256u + (k[1] * 16u + k[0]);
  const uint32_t hi = (k[7] * 16u + k[6]) * 256u + (k[5] * 16u + k[4]);
  constexpr uint32_t kBias = kRoundMagicBits * 0x111u;
  return hi * 65536u + lo - kBias + ((s01 & 0x0000FFFFu) | (s23 & 0xFFFF0000u));
}

// A pair rounded to bf16 (RNE) as one packed word, lo in the low half: equals num::f32_to_bf16 on
// every input, NaN included (nvfp4_encode_exhaustive_test).
__device__ __forceinline__ uint32_t bf16x2_bits(float lo, float hi) {
  const __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&p);
}

// bf16 round trip of a pair, from its packed word.
__device__ __forceinline__ void unpack_bf16x2(uint32_t w, float& lo, float& hi) {
  lo = __uint_as_float(w << 16);
  hi = __uint_as_float(w & 0xFFFF0000u);
}

__device__ __forceinline__ void round_pair_to_bf16(float& lo, float& hi) { unpack_bf16x2(bf16x2_bits(lo, hi), lo, hi); }

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
