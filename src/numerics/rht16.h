// 16-point random Hadamard transform (numerics §7): sign flips, then butterflies of stride
// 1, 2, 4, 8 in this fixed order so CPU and GPU agree bit for bit. Unnormalised: the caller
// applies the exact factor 0.25 where its recipe says.
#pragma once
#include "host_device.h"

namespace lowp::num {

constexpr uint32_t kDefaultRhtSignMask = 0xD7E8u;  // TE's default

LOWP_HD void rht16_unnormalized(float v[16], uint32_t sign_mask) {
LOWP_UNROLL
  for (int i = 0; i < 16; ++i) {
    if ((sign_mask >> i) & 1u) v[i] = -v[i];
  }
LOWP_UNROLL
  for (int h = 1; h < 16; h <<= 1) {
LOWP_UNROLL
    for (int i = 0; i < 16; ++i) {
      if ((i & h) == 0) {
        const float a = v[i], b = v[i + h];
        v[i] = add_rn(a, b);
        v[i + h] = sub_rn(a, b);
      }
    }
  }
}

}  // namespace lowp::num
