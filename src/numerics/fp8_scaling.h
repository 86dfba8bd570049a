// FP8 scale rules (numerics §2): scale from amax (current and per-token scaling) and the
// delayed-scaling update step.
#pragma once
#include "host_device.h"

namespace lowp::num {

// scale = fp8_max / max(amax, eps); 1 when that is 0, inf or NaN; FLT_MAX on overflow.
// power_of_two clears the mantissa (bits & 0xFF800000).
LOWP_HD float fp8_scale_from_amax(float amax, float fp8_max, float eps, bool power_of_two) {
  const float a = (amax < eps) ? eps : amax;  // NaN stays NaN (comparison false)
  float scale = 1.0f;
  if (!(a == 0.0f || is_inf(a) || is_nan(a))) {
    scale = div_rn(fp8_max, a);
    if (is_inf(scale)) scale = kFltMax;
  }
  if (power_of_two) scale = float_of(bits_of(scale) & 0xFF800000u);
  return scale;
}

// New delayed-scaling scale from the history's reduced amax `a`: fp8_max * 2^-m / a, left to
// right (2^-m is exact for |m| < 127); a not finite and > 0 keeps the old scale.
LOWP_HD float fp8_delayed_scale(float a, float old_scale, float fp8_max, int margin) {
  if (is_nan(a) || is_inf(a) || !(a > 0.0f)) return old_scale;
  const float two_pow_minus_m = float_of(static_cast<uint32_t>(127 - margin) << 23);
  const float scale = div_rn(mul_rn(fp8_max, two_pow_minus_m), a);
  return is_inf(scale) ? kFltMax : scale;
}

// One tensor's delayed-scaling update over its amax history h[len], rolled in place:
// h'[i] = h[i+1], h'[len-1] = h[0], then h'[0] = 0. Returns the new scale.
LOWP_HD float fp8_delayed_update(float* h, int64_t len, float old_scale, float fp8_max, int margin,
                                 bool most_recent) {
  float a = h[0];
  if (!most_recent) {
    for (int64_t i = 1; i < len; ++i) a = (h[i] > a || is_nan(h[i])) ? h[i] : a;
  }
  const float newest = h[0];
  for (int64_t i = 0; i + 1 < len; ++i) h[i] = h[i + 1];
  h[len - 1] = newest;
  h[0] = 0.0f;
  return fp8_delayed_scale(a, old_scale, fp8_max, margin);
}

}  // namespace lowp::num
