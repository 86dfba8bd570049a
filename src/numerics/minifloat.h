// fp32 -> small float formats (E4M3, E5M2, E2M1), round-to-nearest-even, saturating to the
// largest finite value (numerics §1). One generic rule, parameterised by the format, so the three
// encoders cannot drift apart. Tested against CUDA's host conversion functions on all 2^32
// inputs (tests/cpu/numerics_exhaustive_test.cpp).
#pragma once
#include "host_device.h"

namespace lowp::num {

struct MinifloatFormat {
  int exp_bits;
  int man_bits;
  int bias;
  float max_finite;
  uint32_t max_code;  // magnitude code of max_finite
  uint32_t nan_code;  // code written for a NaN input (sign not kept)
};

constexpr MinifloatFormat kE4M3{4, 3, 7, 448.0f, 0x7E, 0x7F};
constexpr MinifloatFormat kE5M2{5, 2, 15, 57344.0f, 0x7B, 0x7F};
constexpr MinifloatFormat kE2M1{2, 1, 1, 6.0f, 0x7, 0x7};

// 2^e as a float for e in the normal range [-126, 127].
LOWP_HD float pow2_f(int e) { return float_of(static_cast<uint32_t>(e + 127) << 23); }

// Rounds |x| to the format's grid (RNE) and returns the code, sign bit in the format's top bit.
template <const MinifloatFormat& F>
LOWP_HD uint32_t encode_minifloat(float x) {
  constexpr int kCodeBits = 1 + F.exp_bits + F.man_bits;
  constexpr uint32_t kSignBit = 1u << (kCodeBits - 1);
  const uint32_t xb = bits_of(x);
  const uint32_t sign = (xb >> 31) ? kSignBit : 0u;
  const float a = abs_f(x);
  if (is_nan(a)) return F.nan_code;
  if (a >= F.max_finite) return sign | F.max_code;  // includes inf (satfinite)
  constexpr int kEmin = 1 - F.bias;                  // exponent of the smallest normal
  int e = static_cast<int>((bits_of(a) >> 23) & 0xFF) - 127;
  if (e < kEmin) e = kEmin;
  // Grid spacing at a's binade; a / quantum and back are exact (powers of two, no overflow).
  const int qexp = e - F.man_bits;
  const float steps = a * pow2_f(-qexp);
#if defined(__CUDA_ARCH__)
  const float r = rintf(steps);
#else
  const float r = __builtin_rintf(steps);  // default rounding mode: nearest-even
#endif
  const float v = r * pow2_f(qexp);  // exact: at most man_bits+1 significant bits
  if (v == 0.0f) return sign;
  const uint32_t vb = bits_of(v);
  const int ve = static_cast<int>((vb >> 23) & 0xFF) - 127;
  uint32_t mag;
  if (ve < kEmin) {  // subnormal of the target format
    mag = static_cast<uint32_t>(r);
  } else {
    const uint32_t man = (vb >> (23 - F.man_bits)) & ((1u << F.man_bits) - 1);
    mag = (static_cast<uint32_t>(ve + F.bias) << F.man_bits) | man;
  }
  if (mag > F.max_code) mag = F.max_code;
  return sign | mag;
}

// Code -> fp32 (exact). NaN codes of E4M3/E5M2 decode to a quiet NaN; E5M2 inf codes to inf.
template <const MinifloatFormat& F>
LOWP_HD float decode_minifloat(uint32_t code) {
  constexpr int kCodeBits = 1 + F.exp_bits + F.man_bits;
  const bool neg = (code >> (kCodeBits - 1)) & 1u;
  const uint32_t e = (code >> F.man_bits) & ((1u << F.exp_bits) - 1);
  const uint32_t m = code & ((1u << F.man_bits) - 1);
  float v;
  if (F.exp_bits == 4 && e == 15 && m == 7) {
    v = float_of(0x7FC00000u);  // E4M3 NaN
  } else if (F.exp_bits == 5 && e == 31) {
    v = m ? float_of(0x7FC00000u) : float_of(0x7F800000u);
  } else if (e == 0) {
    v = static_cast<float>(m) * pow2_f(1 - F.bias - F.man_bits);
  } else {
    v = (1.0f + static_cast<float>(m) * pow2_f(-F.man_bits)) * pow2_f(static_cast<int>(e) - F.bias);
  }
  return neg ? -v : v;
}

LOWP_HD uint8_t encode_e4m3(float x) { return static_cast<uint8_t>(encode_minifloat<kE4M3>(x)); }
LOWP_HD uint8_t encode_e5m2(float x) { return static_cast<uint8_t>(encode_minifloat<kE5M2>(x)); }
LOWP_HD uint8_t encode_e2m1(float x) { return static_cast<uint8_t>(encode_minifloat<kE2M1>(x)); }
LOWP_HD float decode_e4m3(uint8_t c) { return decode_minifloat<kE4M3>(c); }
LOWP_HD float decode_e5m2(uint8_t c) { return decode_minifloat<kE5M2>(c); }
LOWP_HD float decode_e2m1(uint8_t c) { return decode_minifloat<kE2M1>(c & 0xF); }

// Packing of two E2M1 codes per byte: element 2j in bits 3:0, element 2j+1 in bits 7:4 (TE).
LOWP_HD uint8_t pack_e2m1(uint8_t even, uint8_t odd) {
  return static_cast<uint8_t>((even & 0xF) | ((odd & 0xF) << 4));
}

}  // namespace lowp::num
