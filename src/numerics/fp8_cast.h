// The FP8 element rule: q = fp8(x * scale), one RN product (numerics §2), and its inverse.
#pragma once
#include "host_device.h"
#include "minifloat.h"

namespace lowp::num {

template <bool kE4M3>
LOWP_HD uint8_t fp8_quantize_element(float x, float scale) {
  const float v = mul_rn(x, scale);
  return kE4M3 ? encode_e4m3(v) : encode_e5m2(v);
}

// Dequantize from an already decoded code (kernels decode through a 256-entry table).
LOWP_HD float fp8_dequantize_decoded(float decoded, float scale_inv) {
  return canonical_nan(mul_rn(decoded, scale_inv));
}

template <bool kE4M3>
LOWP_HD float fp8_dequantize_element(uint8_t q, float scale_inv) {
  return fp8_dequantize_decoded(kE4M3 ? decode_e4m3(q) : decode_e5m2(q), scale_inv);
}

// scale_inv = 1 / scale (RN division); a NaN scale (given by a caller) gives the canonical NaN.
LOWP_HD float reciprocal_rn(float s) { return canonical_nan(div_rn(1.0f, s)); }

}  // namespace lowp::num
