// NVFP4 outer and block scale math (SPEC §3, §5), shared by the per-tensor and per-token recipes.
#pragma once
#include "host_device.h"
#include "minifloat.h"

namespace lowp::num {

constexpr float kNvfp4OuterMax = 2688.0f;  // 448 (UE4M3 max) * 6 (E2M1 max)
constexpr float kOneSixth = 1.0f / 6.0f;   // the fp32 constant, as TE uses it

// S_enc(A) = min(2688 / A, FLT_MAX); 1 when A == 0 or the quotient is 0 (A = inf); NaN -> FLT_MAX.
LOWP_HD float nvfp4_encode_scale(float amax) {
  const float s = fmin_num(div_rn(kNvfp4OuterMax, amax), kFltMax);
  return (amax == 0.0f || s == 0.0f) ? 1.0f : s;
}

// Per-token rows use max(amax, 1e-12) in place of A, so zero rows do not get 1.0 (SPEC §5).
LOWP_HD float nvfp4_encode_scale_per_token(float amax) {
  return nvfp4_encode_scale(fmax_num(amax, 1e-12f));
}

// UE4M3 block decode scale for block amax b: E4M3(min(b * (S_enc * (1/6)), FLT_MAX)).
LOWP_HD uint8_t nvfp4_block_scale(float block_amax, float s_enc) {
  const float v = fmin_num(mul_rn(block_amax, mul_rn(s_enc, kOneSixth)), kFltMax);
  return encode_e4m3(v);
}

// Element multiplier, per-tensor variant: min(1 / (float(s) * (1 / S_enc)), FLT_MAX).
LOWP_HD float nvfp4_multiplier_per_tensor(uint8_t s, float s_enc) {
  const float s_dec = div_rn(1.0f, s_enc);
  return fmin_num(div_rn(1.0f, mul_rn(decode_e4m3(s), s_dec)), kFltMax);
}

// Element multiplier, per-token variant: 0 when the block scale decodes to 0, else S_enc / float(s).
LOWP_HD float nvfp4_multiplier_per_token(uint8_t s, float s_enc) {
  const float fs = decode_e4m3(s);
  return fs == 0.0f ? 0.0f : div_rn(s_enc, fs);
}

// Dequantized element: e2m1(q) * (float(s) * A * (1/2688)).
LOWP_HD float nvfp4_dequantize(uint8_t code, uint8_t s, float amax) {
  const float outer = mul_rn(mul_rn(decode_e4m3(s), amax), 1.0f / kNvfp4OuterMax);
  return mul_rn(decode_e2m1(code), outer);
}

}  // namespace lowp::num
