// Device hot-path versions of the NVFP4 scalar rules in src/numerics. Hopper has no FP4 convert
// instruction; these replace the generic minifloat encoder with a few float ops each and must give
// the same bytes: tests/cuda/nvfp4_encode_exhaustive_test.cu compares them with num:: on all 2^32
// inputs (RN, SR), the scale encode on 2^28 pairs and the decode on every finite code.
#pragma once
#include <cuda_bf16.h>

#include "cuda/common/common.cuh"
#include "numerics/nvfp4_scaling.h"

namespace lowp::cuda {

// fma(a, q, 1.5 * 2^23) leaves round(a * q) in the low mantissa bits when 0 <= a * q < 2^22:
// the magic constant's ulp is 1, so the single rounding of the fma is the integer rounding.
constexpr float kRoundMagic = 12582912.0f;
constexpr uint32_t kRoundMagicBits = 0x4B400000u;

// E2M1 magnitude code of y, the code of num::encode_e2m1 without the sign. The code of
// a = min(|y|, 6) (NaN -> 6; the clamp leaves saturation unchanged) is
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

// True when a block has a normal scale (s >= 8) whose unrounded value v = b * s_enc / 6 is at
// most 480: every |x * m| is then below 7, so RN may skip the clamp. Its block max lands within
// 6 * max(1 + 2^-4, 480 / 448) < 7 (the scale's rounding or saturation), and the multiplier is
// finite. Subnormal scales, saturated ones (NaN and inf blocks among them) and SR keep the clamp.
__device__ __forceinline__ bool normal_unsaturated(float block_amax, float s_enc6, uint32_t s) {
  return s >= 8u && __fmul_rn(block_amax, s_enc6) <= 480.0f;
}

// SR (numerics §7) on fp16's own grid, two elements per step. Scaled by 2^-14 toward zero,
// a = min(|y|, 6) becomes h whose fp16 bits 9..11 are the largest E2M1 code <= a: below 2 the
// scaled values are fp16 subnormals or in its lowest normal binade (one ulp per 2^-10 of a),
// above it each binade halves the slope exactly as E2M1's step doubles. So the step's r / 256 is
// r << 1 in h, and (h + (r << 1)) >> 9 (at most 0xFFE: no carry leaves the half) is the code of
// a + r/256 * step, the bits of a below r's last one never changing that floor. numerics §3 rounds the
// sum to fp32 first, which moves the code only for a < 0.25, when a + r/512 lies within 2^-26
// below 0.5 (the tie goes to 0.5): adding 2^-26 to a toward zero first reproduces exactly that
// and changes nothing else (a >= 0.25 has no bits below 2^-25, and a truncated h cannot cross an
// integer). The fma does both scalings in one rounding: RZ(|y| * 2^-14 + 2^-40) is
// RZ(|y| + 2^-26) * 2^-14 (normal: >= 2^-40); the clamp to 6 * 2^-14 (0x0E00) comes after the
// truncation to fp16, which is monotone, and maps NaN (min returns the other operand) and every
// |y| > 6 to it. Per pair: two fma, a convert, a min, the random bytes' mask and add; the codes
// then move into their nibbles eight at a time (e2m1_sr_codes_x8).
__device__ __forceinline__ uint32_t f16x2_rz(float lo, float hi) {
  uint32_t d;
  asm("cvt.rz.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}

__device__ __forceinline__ uint32_t min_f16x2(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("min.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

// (a & mask) | (b & ~mask) as one 3-input logic op (written as C, it compiled to two).
__device__ __forceinline__ uint32_t bit_select(uint32_t a, uint32_t b, uint32_t mask) {
  uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, 0xE4;" : "=r"(d) : "r"(a), "r"(b), "r"(mask));
  return d;
}

// a * b + c as one multiply-add (written as C, it compiled to a shift, a mask and an add).
__device__ __forceinline__ uint32_t mad_lo(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// The signs of eight values as bytes: byte j of even is 0xFF when element 2j is negative (else
// 0x00), of odd when element 2j + 1 is.
struct SignBytes {
  uint32_t even, odd;
};

// From the values themselves. Every y here is the result of a multiply, and the GPU's arithmetic
// returns NaN as the positive canonical NaN, so a NaN encodes as +6 like num::encode_e2m1
// (nvfp4_encode_exhaustive_test checks this on every input bit pattern).
__device__ __forceinline__ SignBytes sign_bytes(const float (&y)[8]) {
  const auto yb = [&](int i) { return __float_as_uint(y[i]); };
  // Selector 0xB / 0xF: byte 3 of the first / second operand with its sign replicated.
  const uint32_t e = __byte_perm(prmt(yb(0), yb(2), 0xFBFBu), prmt(yb(4), yb(6), 0xFBFBu), 0x5410u);
  const uint32_t o = __byte_perm(prmt(yb(1), yb(3), 0xFBFBu), prmt(yb(5), yb(7), 0xFBFBu), 0x5410u);
  return {e, o};
}

// From four words of 16-bit elements (element 2j in the low half of word j). They are the encoded
// values' signs when the multiplier is positive and no element is a negative NaN (the per-tensor
// RHT's rounded pairs: its arithmetic makes every NaN positive).
__device__ __forceinline__ SignBytes sign_bytes_of_pairs(uint32_t u0, uint32_t u1, uint32_t u2, uint32_t u3) {
  // Selectors 9, D, B, F: bytes 1 and 3 (each half's sign) of either operand, sign replicated.
  const uint32_t s01 = prmt(u0, u1, 0xFBD9u), s23 = prmt(u2, u3, 0xFBD9u);  // signs 0 2 1 3, 4 6 5 7
  return {__byte_perm(s01, s23, 0x5410u), __byte_perm(s01, s23, 0x7632u)};
}

// The packed codes' sign bits (bit 3 of nibble i: element i) from sign bytes, or from the values.
__device__ __forceinline__ uint32_t e2m1_sign_bits_x8(SignBytes sg) { return bit_select(sg.even, sg.odd, 0x0F0F0F0Fu) & 0x88888888u; }
__device__ __forceinline__ uint32_t e2m1_sign_bits_x8(const float (&y)[8]) { return e2m1_sign_bits_x8(sign_bytes(y)); }

// The SR codes of eight values, element i in nibble i, drawing byte i % 4 of w0 (i < 4) or w1.
// Pair k is elements e and e + 2 (e = 0, 1, 4, 5 for k = 0..3: the low and high half of
// sum[k]), which draw bytes 0 and 2 (k even) or 1 and 3 (k odd) of one word: one mask puts both
// where the add wants them, with no byte permute first. Byte 1 of sum[k]'s halves holds the
// codes in its bits 1..3, bits 4..7 clear (a half is below 0x1000) and bit 0 junk. Two byte
// permutes gather the even elements' bytes and the odd ones', each takes its signs in bit 4, and
// one shift each puts code and sign into the low or high nibble of its byte: seven steps for
// eight codes and signs instead of three per pair.
__device__ __forceinline__ uint32_t e2m1_sr_codes_x8(const float (&y)[8], uint32_t w0, uint32_t w1, SignBytes sg) {
  constexpr uint32_t kSixScaled = 0x0E000E00u;  // 6 * 2^-14 in both fp16 halves
  constexpr uint32_t kSignBit = 0x10101010u;    // bit 4 of every byte
  const auto scaled = [&](int i) { return __fmaf_rz(fabsf(y[i]), 0x1p-14f, 0x1p-40f); };
  uint32_t sum[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int e = (k / 2) * 4 + k % 2;
    const uint32_t h = min_f16x2(f16x2_rz(scaled(e), scaled(e + 2)), kSixScaled);
    const uint32_t w = k < 2 ? w0 : w1;  // bytes e % 4 and e % 4 + 2: bits 0 / 8 of each half
    sum[k] = k % 2 == 0 ? mad_lo(w & 0x00FF00FFu, 2u, h) : __umulhi(w & 0xFF00FF00u, 1u << 25) + h;
  }
  // Byte j of even_codes is byte 1 of element 2j's half: elements 0, 2 (the halves of sum[0]),
  // then 4, 6 (of sum[2]); odd_codes likewise from sum[1] and sum[3].
  const uint32_t even_codes = __byte_perm(sum[0], sum[2], 0x7531u) | (sg.even & kSignBit);
  const uint32_t odd_codes = __byte_perm(sum[1], sum[3], 0x7531u) | (sg.odd & kSignBit);
  // Right by 1: code in bits 0..2, sign in 3 (bit 7 takes the next byte's junk bit); left by 3:
  // code in 4..6, sign in 7 (junk in bit 3).
  return bit_select(__umulhi(even_codes, 1u << 31), odd_codes << 3, 0x0F0F0F0Fu);
}

// e2m1_sr_codes_x8 with the signs of the values themselves.
__device__ __forceinline__ uint32_t e2m1_sr_codes_x8(const float (&y)[8], uint32_t w0, uint32_t w1) {
  return e2m1_sr_codes_x8(y, w0, w1, sign_bytes(y));
}

// Eight codes packed as the format stores them (element i in nibble i, sign in its bit 3) from
// their biased magnitudes k (kRoundMagicBits + code) and sign bits (e2m1_sign_bits_x8; RN, SR
// packs its own).
__device__ __forceinline__ uint32_t pack_e2m1x8(const uint32_t (&k)[8], uint32_t sign_bits) {
  // Magnitudes by multiply-adds (FMA pipe; the ALU pipe bounds the encode): the biased codes'
  // bias sums to a constant (its multiples by 16^i, i >= 3, vanish mod 2^32), removed in the add
  // that merges the signs.
  const uint32_t lo = (k[3] * 16u + k[2]) * 256u + (k[1] * 16u + k[0]);
  const uint32_t hi = (k[7] * 16u + k[6]) * 256u + (k[5] * 16u + k[4]);
  constexpr uint32_t kBias = kRoundMagicBits * 0x111u;
  return mad_lo(hi, 65536u, lo) - kBias + sign_bits;
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
