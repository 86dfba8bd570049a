// NVFP4 outer and block scale math (numerics §3, §5, §5b), shared by the per-tensor, per-token and
// row-scaled recipes.
#pragma once
#include "host_device.h"
#include "convert.h"
#include "minifloat.h"

namespace lowp::num {

// The outer maximum 6E an amax is mapped to: E = 448 (the UE4M3 maximum) times 6 (the E2M1
// maximum), or for 4over6 with E = 256 (numerics §5c) 1536.
constexpr float kNvfp4OuterMax = 2688.0f;
constexpr float kNvfp4OuterMax256 = 1536.0f;
constexpr float kOneSixth = 1.0f / 6.0f;   // the fp32 constant, as TE uses it

// S_enc(A) = min(6E / A, FLT_MAX); 1 when A == 0 or the quotient is 0 (A = inf); NaN -> FLT_MAX.
LOWP_HD float nvfp4_encode_scale(float amax, float outer_max = kNvfp4OuterMax) {
  const float s = fmin_num(div_rn(outer_max, amax), kFltMax);
  return (amax == 0.0f || s == 0.0f) ? 1.0f : s;
}

// Per-token rows use max(amax, 1e-12) in place of A, so zero rows do not get 1.0 and a NaN amax
// becomes 1e-12 (numerics §5). The stored amax stays raw; encode and dequantize (with A = this) both
// apply it.
constexpr float kNvfp4PerTokenAmaxFloor = 1e-12f;
LOWP_HD float nvfp4_per_token_amax(float amax) { return fmax_num(amax, kNvfp4PerTokenAmaxFloor); }

LOWP_HD float nvfp4_encode_scale_per_token(float amax) {
  return nvfp4_encode_scale(nvfp4_per_token_amax(amax));
}

// Amax estimation (numerics §4): the columnwise post-RHT amax estimated as A_row * factor, a NaN
// product canonicalised.
LOWP_HD float nvfp4_estimated_col_amax(float row_amax, float factor) { return canonical_nan(mul_rn(row_amax, factor)); }

// S_enc * (1/6), the factor of a block amax before its E4M3 rounding.
LOWP_HD float nvfp4_block_scale_factor(float s_enc) { return mul_rn(s_enc, kOneSixth); }

// UE4M3 block decode scale for block amax b: E4M3(min(b * (S_enc * (1/6)), FLT_MAX)).
LOWP_HD uint8_t nvfp4_block_scale(float block_amax, float s_enc) {
  const float v = fmin_num(mul_rn(block_amax, nvfp4_block_scale_factor(s_enc)), kFltMax);
  return encode_e4m3(v);
}

// 1 / S_enc, the per-tensor decode factor of the multiplier.
LOWP_HD float nvfp4_decode_factor(float s_enc) { return div_rn(1.0f, s_enc); }

// The element multipliers from fs = float(s), the decoded block scale (the CUDA encode decodes s
// its own way and hoists 1 / S_enc). Per-tensor: min(1 / (fs * (1 / S_enc)), FLT_MAX). Per-token:
// 0 when fs is 0, else S_enc / fs.
LOWP_HD float nvfp4_multiplier_per_tensor_of(float fs, float s_dec) { return fmin_num(div_rn(1.0f, mul_rn(fs, s_dec)), kFltMax); }
LOWP_HD float nvfp4_multiplier_per_token_of(float fs, float s_enc) { return fs == 0.0f ? 0.0f : div_rn(s_enc, fs); }

// The per-token multiplier without a division, for encoders that prepare its operands once: a =
// S_enc * 2^64 per row or column, and per scale code y = RN(1 / fs) * 2^-64 and b = fs * 2^64
// (both 0 when fs is 0, giving 0). q = a * y, its exact remainder a - q * b (an fma) and
// Markstein's correction q + r * y round like div_rn(S_enc, fs); the 2^64 keeps every step normal
// down to the smallest S_enc (amax near FLT_MAX), so only the mantissas matter, and
// numerics_tables_test checks every S_enc mantissa against every fs mantissa.
constexpr float kNvfp4TokenScaleShift = 0x1p64f;
LOWP_HD float nvfp4_token_scale_prepared(float s_enc) { return mul_rn(s_enc, kNvfp4TokenScaleShift); }
LOWP_HD float nvfp4_token_reciprocal_prepared(float fs) { return fs == 0.0f ? 0.0f : mul_rn(div_rn(1.0f, fs), 1.0f / kNvfp4TokenScaleShift); }
LOWP_HD float nvfp4_token_divisor_prepared(float fs) { return mul_rn(fs, kNvfp4TokenScaleShift); }
// S_enc * (1/6) back from a prepared a = S_enc * 2^64 in one multiply: a * ((1/6) * 2^-64) is
// the real S_enc * (1/6) (both shifts are exact), and it is normal for every S_enc, so its one
// rounding is nvfp4_block_scale_factor's.
LOWP_HD float nvfp4_block_scale_factor_prepared(float a) { return mul_rn(a, kOneSixth / kNvfp4TokenScaleShift); }
LOWP_HD float nvfp4_multiplier_per_token_prepared(float a, float y, float b) {
  const float q = mul_rn(a, y);
  return fma_rn(fma_rn(-q, b, a), y, q);
}

LOWP_HD float nvfp4_multiplier_per_tensor(uint8_t s, float s_enc) {
  return nvfp4_multiplier_per_tensor_of(decode_e4m3(s), nvfp4_decode_factor(s_enc));
}
LOWP_HD float nvfp4_multiplier_per_token(uint8_t s, float s_enc) { return nvfp4_multiplier_per_token_of(decode_e4m3(s), s_enc); }

// Per-token: a block whose scale decodes to 0 (negligible next to its row's amax) writes codes 0,
// positive zero, whatever the signs (numerics §5; m = 0 would otherwise give -0.0 -> code 8).
LOWP_HD bool nvfp4_per_token_block_is_zero(uint8_t s) { return decode_e4m3(s) == 0.0f; }

// The fp32 1 / 6E of the dequantize: 1/2688, or 1/1536 for 4over6 with E = 256.
LOWP_HD float nvfp4_outer_reciprocal(float outer_max) { return div_rn(1.0f, outer_max); }

// The factor every element of a block is dequantized with: float(s) * A * (1/6E), from the
// decoded block scale float(s) and 1/6E as nvfp4_outer_reciprocal gives it.
LOWP_HD float nvfp4_dequantize_factor(float block_scale, float amax, float inv_outer_max = 1.0f / kNvfp4OuterMax) {
  return mul_rn(mul_rn(block_scale, amax), inv_outer_max);
}

// Dequantized element: e2m1(q) * (float(s) * A * (1/6E)).
LOWP_HD float nvfp4_dequantize(uint8_t code, uint8_t s, float amax, float inv_outer_max = 1.0f / kNvfp4OuterMax) {
  return mul_rn(decode_e2m1(code), nvfp4_dequantize_factor(decode_e4m3(s), amax, inv_outer_max));
}

// Row-scaled NVFP4 (numerics §5b): the columnwise amax with RHT is that of the transform rounded
// to bf16, which is the fp32 per-token amax (0.25 * max |RHT16|, canonical NaN) rounded to bf16:
// the rounding is monotone, so rounding every value and then taking the maximum rounds the maximum.
LOWP_HD float nvfp4_row_scaled_rht_amax(float per_token_rht_amax) {
  return bf16_to_f32(f32_to_bf16(per_token_rht_amax));
}

}  // namespace lowp::num
