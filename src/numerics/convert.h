// Input/output element conversions between fp32 and bf16/fp16 bit patterns (exact decode,
// round-to-nearest-even encode), and the NaN-propagating amax fold (numerics §0).
#pragma once
#include "host_device.h"

namespace lowp::num {

LOWP_HD float bf16_to_f32(uint16_t h) { return float_of(static_cast<uint32_t>(h) << 16); }

LOWP_HD uint16_t f32_to_bf16(float x) {
  const uint32_t u = bits_of(x);
  if (is_nan(x)) return static_cast<uint16_t>((u >> 16) | 0x40);  // keep sign, force quiet
  const uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

LOWP_HD float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1F;
  const uint32_t m = h & 0x3FF;
  if (e == 0x1F) return float_of(sign | 0x7F800000u | (m << 13));
  if (e == 0) {  // zero or subnormal: m * 2^-24, exact in fp32
    const float v = static_cast<float>(m) * float_of(0x33800000u);
    return float_of(sign | bits_of(v));
  }
  return float_of(sign | ((e + 112) << 23) | (m << 13));
}

LOWP_HD uint16_t f32_to_f16(float x) {
  const uint32_t u = bits_of(x);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const float a = abs_f(x);
  if (is_nan(a)) return static_cast<uint16_t>(sign | 0x7E00u);
  if (a >= 65520.0f) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (a < 6.103515625e-05f) {  // subnormal range: quantum 2^-24
#if defined(__CUDA_ARCH__)
    const float r = rintf(a * 16777216.0f);
#else
    const float r = __builtin_rintf(a * 16777216.0f);
#endif
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(r));  // r = 1024 gives the min normal
  }
  const uint32_t ab = bits_of(a);
  const uint32_t rounding = 0xFFFu + ((ab >> 13) & 1u);
  const uint32_t r = ab + rounding;
  return static_cast<uint16_t>(sign | (((r >> 23) - 112) << 10) | ((r >> 13) & 0x3FF));
}

// amax = max |x| with NaN propagation, folded on bit patterns: for non-negative floats the
// integer order is the float order and every NaN ranks above inf, so the fold is
// order-independent and CPU and GPU (atomicMax on uint32) agree bit for bit.
LOWP_HD uint32_t amax_bits_fold(uint32_t acc, float x) {
  const uint32_t b = bits_of(x) & 0x7FFFFFFFu;
  return b > acc ? b : acc;
}

}  // namespace lowp::num
