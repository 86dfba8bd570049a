// The FP8 element rule: q = fp8(x * scale), one RN product (SPEC §2), and its inverse.
#pragma once
#include "host_device.h"
#include "minifloat.h"

namespace lowp::num {

template <bool kE4M3>
LOWP_HD uint8_t fp8_quantize_element(float x, float scale) {
  const float v = mul_rn(x, scale);
  return kE4M3 ? encode_e4m3(v) : encode_e5m2(v);
}

// A NaN code returns its decoded NaN as is: NaN arithmetic results differ between CPU and GPU
// (payload kept vs canonical 0x7FFFFFFF), and the backends must agree bit for bit.
template <bool kE4M3>
LOWP_HD float fp8_dequantize_element(uint8_t q, float scale_inv) {
  const float d = kE4M3 ? decode_e4m3(q) : decode_e5m2(q);
  return is_nan(d) ? d : mul_rn(d, scale_inv);
}

// scale_inv = 1 / scale (RN division).
LOWP_HD float reciprocal_rn(float s) { return div_rn(1.0f, s); }

}  // namespace lowp::num
