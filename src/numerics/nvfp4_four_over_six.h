// 4over6 adaptive block scaling (numerics §5c, TE main's "Four Over Six"): each block (1D) or
// 16x16 tile (2D) has two candidate scales, its largest value mapped to 6 (map-6) or to 4
// (map-4); both are encoded with the per-tensor multiplier of §3 and the candidate whose decoded
// values lie closer to the input (MAE, or MSE) is kept, map-6 on a tie. The outer scale is §3's
// with 6E in place of 2688 (nvfp4_encode_scale's outer_max). The walk over a block's values and
// the order of its sums are the backends'; each step is one function here.
#pragma once
#include "host_device.h"
#include "minifloat.h"
#include "nvfp4_scaling.h"

namespace lowp::num {

// The two candidate block scales of a block (or tile) amax b: base = (b / 6) * S_enc, map-6
// s6 = E4M3(min(base, 448)), map-4 s4 = E4M3(min(base * 1.5, 448)). The minimum to 448 also
// turns a NaN base (a NaN b) into 448.
struct Nvfp4ScaleCandidates {
  uint8_t s6, s4;
};
// div_rn(b, 6) without the division for an amax of 16-bit values (bf16 or fp16: at most 11
// significant bits): q = b * RN(1/6) and one correction by its exact remainder, the division
// only where that remainder could leave the normal range. numerics_four_over_six_test checks it
// against div_rn on every bf16 and fp16 value.
LOWP_HD float nvfp4_four_over_six_sixth_of_16bit(float b) {
  if (!(b >= 0x1p-100f && b <= 0x1p126f)) return div_rn(b, 6.0f);
  const float q = mul_rn(b, kOneSixth);
  return fma_rn(fma_rn(-q, 6.0f, b), kOneSixth, q);
}
// base; of_16bit: b is an amax of bf16 or fp16 values, whose b / 6 takes the shortcut above.
LOWP_HD float nvfp4_four_over_six_base(float block_amax, float s_enc, bool of_16bit = false) {
  return mul_rn(of_16bit ? nvfp4_four_over_six_sixth_of_16bit(block_amax) : div_rn(block_amax, 6.0f), s_enc);
}
LOWP_HD Nvfp4ScaleCandidates nvfp4_four_over_six_scales(float block_amax, float s_enc) {
  const float base = nvfp4_four_over_six_base(block_amax, s_enc);
  return {encode_e4m3(fmin_num(base, 448.0f)), encode_e4m3(fmin_num(mul_rn(base, 1.5f), 448.0f))};
}

// A candidate's decoded value of code q: ((e2m1(q) * fs) * A) / 6E (fs = float(s), the first
// product exact). This is the value its error measures, not lowp_dequantize's rounding (§3).
LOWP_HD float nvfp4_four_over_six_value(uint8_t code, float fs, float amax, float outer_max) {
  return div_rn(mul_rn(mul_rn(decode_e2m1(code), fs), amax), outer_max);
}

// An encoder's shortcut to a candidate's 8 decoded values (the rule stays
// nvfp4_four_over_six_value): every nonzero E2M1 magnitude is 1 or 1.5 times 2^e, e in -1..2, and
// scaling by 2^e commutes with each of the value's roundings while every intermediate stays
// normal and finite. `exact` says so: one = value(code 2) >= 2^-124 keeps code 1's one / 2 and
// every product above it normal, RN(1.5 * fs * A) < 2^125 keeps code 7's 4x of it finite (false
// for fs = 0 and for a NaN or infinite A).
struct Nvfp4FourOverSixBases {
  float one, one_and_half;
  bool exact;
};
LOWP_HD Nvfp4FourOverSixBases nvfp4_four_over_six_bases(float fs, float amax, float outer_max) {
  const float one = nvfp4_four_over_six_value(2, fs, amax, outer_max);
  const float one_and_half = nvfp4_four_over_six_value(3, fs, amax, outer_max);
  return {one, one_and_half, one >= 0x1p-124f && mul_rn(mul_rn(1.5f, fs), amax) < 0x1p125f};
}
// value(code) for a magnitude code (0..7) of bases that are exact: one or one_and_half (odd codes
// from 3) with 2^((code >> 1) - 1) added to its exponent.
LOWP_HD float nvfp4_four_over_six_value_of_bases(uint32_t code, const Nvfp4FourOverSixBases& b) {
  if (code == 0) return 0.0f;
  const float base = (code & 1u) != 0 && code > 1 ? b.one_and_half : b.one;
  return float_of(bits_of(base) + ((code >> 1) - 1u) * 0x800000u);
}

// One element's error term, |x^ - x| (MAE) or (x^ - x)^2 (MSE); a block's error adds the terms
// in element order from 0 (add_rn).
LOWP_HD float nvfp4_four_over_six_term(float decoded, float x, bool mse) {
  const float d = sub_rn(decoded, x);
  return mse ? mul_rn(d, d) : abs_f(d);
}

// A 16x16 tile's error from its 16 row sums (rows of the copy being made: x's for the rowwise
// copy, xᵀ's for the columnwise one; each summed in element order): added as a pairwise tree, row
// r with row r + 8, then r + 4, r + 2, r + 1, in place.
LOWP_HD float nvfp4_four_over_six_tile_error(float (&row_sums)[16]) {
  for (int h = 8; h >= 1; h /= 2)
    for (int r = 0; r < h; ++r) row_sums[r] = add_rn(row_sums[r], row_sums[r + h]);
  return row_sums[0];
}

// Map-4 is kept only when its error is strictly smaller (a NaN error keeps map-6).
LOWP_HD bool nvfp4_four_over_six_takes_map4(float err4, float err6) { return err4 < err6; }

}  // namespace lowp::num
