// Stochastic rounding to E2M1 (numerics §7): Philox4x32-10 bits per 16-element block from
// cuRAND's header-only generator, and the rounding rule itself.
#pragma once
#include "host_device.h"
#include "minifloat.h"

#include <vector_functions.h>
#include <vector_types.h>
#if !defined(QUALIFIERS)
#define QUALIFIERS static __forceinline__ __host__ __device__
#define LOWP_DEFINED_CURAND_QUALIFIERS
#endif
#include <curand_philox4x32_x.h>

namespace lowp::num {

// 16 random bytes for block `block` of the output orientation (columnwise sets counter bit 63).
LOWP_HD uint4 sr_block_bits(uint64_t seed, uint64_t offset, uint64_t block, bool columnwise) {
  const uint2 key = make_uint2(static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  const uint4 ctr = make_uint4(static_cast<uint32_t>(block),
                               static_cast<uint32_t>(block >> 32) | (columnwise ? 0x80000000u : 0u),
                               static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32));
  return curand_Philox4x32_10(ctr, key);
}

// Byte j % 4 of word j / 4: element j's random value in [0, 255].
LOWP_HD uint32_t sr_byte(const uint4& r, int j) {
  const uint32_t w = (j < 4) ? r.x : (j < 8) ? r.y : (j < 12) ? r.z : r.w;
  return (w >> (8 * (j & 3))) & 0xFFu;
}

// v = x * m already scaled; returns the E2M1 code. NaN rounds as RN.
LOWP_HD uint8_t encode_e2m1_sr(float v, uint32_t r) {
  const float a = abs_f(v);
  if (is_nan(a)) return encode_e2m1(v);
  const float step = a < 2.0f ? 0.5f : (a < 4.0f ? 1.0f : 2.0f);
  const float t = add_rn(a, mul_rn(static_cast<float>(r) * (1.0f / 256.0f), step));
  // Largest E2M1 magnitude <= t, capped at 6.
  uint8_t mag;
  if (t >= 6.0f) mag = 7;
  else if (t >= 4.0f) mag = 6;
  else if (t >= 3.0f) mag = 5;
  else if (t >= 2.0f) mag = 4;
  else if (t >= 1.5f) mag = 3;
  else if (t >= 1.0f) mag = 2;
  else if (t >= 0.5f) mag = 1;
  else mag = 0;
  return static_cast<uint8_t>(((bits_of(v) >> 31) ? 8 : 0) | mag);
}

}  // namespace lowp::num
