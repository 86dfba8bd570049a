// The CPU walk of 4over6 (numerics §5c): which of its two candidate scales a 16-value block (1D)
// or a 16x16 tile (2D) keeps. The scalar steps are numerics/nvfp4_four_over_six.h's; this file
// only orders them (element order within a block or tile row, the tree over a tile's rows; a
// tile's rows are those of the copy being made).
#pragma once
#include <cstdint>

#include "numerics/nvfp4_four_over_six.h"
#include "numerics/nvfp4_scaling.h"

namespace lowp::cpu::four_over_six {

// What a block's error depends on besides its values: the orientation row's outer scale and amax.
struct Outer {
  float s_enc;      // S_enc(A) against 6E
  float amax;       // A
  float outer_max;  // 6E
  bool mse;
};

// The error of n values v encoded with scale s: its terms added in element order from 0.
inline float error(const float* v, int n, uint8_t s, const Outer& o) {
  const float m = num::nvfp4_multiplier_per_tensor(s, o.s_enc), fs = num::decode_e4m3(s);
  float acc = 0.0f;
  for (int j = 0; j < n; ++j) {
    const uint8_t code = num::encode_e2m1(num::mul_rn(v[j], m));
    acc = num::add_rn(acc, num::nvfp4_four_over_six_term(num::nvfp4_four_over_six_value(code, fs, o.amax, o.outer_max),
                                                         v[j], o.mse));
  }
  return acc;
}

// The kept scale of a 1D block of 16 values with amax b (equal candidates: map-6, their errors
// being equal).
inline uint8_t block_scale(const float (&v)[16], float b, const Outer& o) {
  const num::Nvfp4ScaleCandidates c = num::nvfp4_four_over_six_scales(b, o.s_enc);
  if (c.s4 == c.s6) return c.s6;
  return num::nvfp4_four_over_six_takes_map4(error(v, 16, c.s4, o), error(v, 16, c.s6, o)) ? c.s4 : c.s6;
}

// The kept scale of a 16x16 tile with amax b, tile[r][c] in the rows of the copy being made
// (rowwise: x's rows; columnwise: xᵀ's, x's columns): each candidate's 16 row errors added as
// numerics' tree.
inline uint8_t tile_scale(const float (&tile)[16][16], float b, const Outer& o) {
  const num::Nvfp4ScaleCandidates c = num::nvfp4_four_over_six_scales(b, o.s_enc);
  if (c.s4 == c.s6) return c.s6;
  const auto tile_error = [&](uint8_t s) {
    float rows[16];
    for (int r = 0; r < 16; ++r) rows[r] = error(tile[r], 16, s, o);
    return num::nvfp4_four_over_six_tile_error(rows);
  };
  return num::nvfp4_four_over_six_takes_map4(tile_error(c.s4), tile_error(c.s6)) ? c.s4 : c.s6;
}

}  // namespace lowp::cpu::four_over_six
