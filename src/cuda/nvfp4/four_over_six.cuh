// 4over6 on the device (numerics §5c): which of its two candidate scales a block or a 16x16 tile
// keeps, in the steps and order of the CPU reference (cpu/nvfp4/four_over_six.h), every scalar
// step numerics/nvfp4_four_over_six.h's. A candidate's decoded value x^ depends only on its code,
// so each candidate tabulates x^ of the 8 magnitude codes once and every element looks its own up:
// a negative code's x^ is the negated positive one (round to nearest is symmetric), and the code's
// sign is that of y = x * m (a NaN y, positive on the GPU, encodes as +6).
#pragma once
#include "cuda/nvfp4/encode.cuh"
#include "cuda/nvfp4/tile_thread.cuh"
#include "numerics/nvfp4_four_over_six.h"

namespace lowp::cuda::nvfp4 {

// What the error of a block depends on besides its values: its orientation row's outer scale and
// amax A, 6E and the measure.
struct FourOverSixOuter {
  OuterScale o;
  float amax;
  float outer_max;
  bool mse;
};

// The error of n values (value_at(0..n)) encoded with scale code s: the terms added in element
// order from 0.
template <typename ValueAt>
__device__ __forceinline__ float four_over_six_error(uint32_t s, const FourOverSixOuter& f, int n, ValueAt value_at) {
  const float fs = decode_ue4m3(s);
  const float m = num::nvfp4_multiplier_per_tensor_of(fs, f.o.s_dec);
  float decoded[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) decoded[k] = num::nvfp4_four_over_six_value(static_cast<uint8_t>(k), fs, f.amax, f.outer_max);
  float err = 0.0f;
#pragma unroll 4
  for (int j = 0; j < n; ++j) {
    const float x = value_at(j), y = num::mul_rn(x, m);
    const uint32_t code = e2m1_rn_magnitude(y) & 7u;
    const float xhat = __uint_as_float(__float_as_uint(decoded[code]) ^ (__float_as_uint(y) & 0x80000000u));
    err = num::add_rn(err, num::nvfp4_four_over_six_term(xhat, x, f.mse));
  }
  return err;
}

// The kept scale code of a 1D block of 16 values with amax b (equal candidates: map-6).
template <typename ValueAt>
__device__ __forceinline__ uint32_t four_over_six_block_scale(float b, const FourOverSixOuter& f, ValueAt value_at) {
  const num::Nvfp4ScaleCandidates c = num::nvfp4_four_over_six_scales(b, f.o.s_enc);
  if (c.s4 == c.s6) return c.s6;
  const float err4 = four_over_six_error(c.s4, f, kBlock, value_at), err6 = four_over_six_error(c.s6, f, kBlock, value_at);
  return num::nvfp4_four_over_six_takes_map4(err4, err6) ? c.s4 : c.s6;
}

// One candidate's error over a 16x16 tile (value_at(r, c), rows of x): its 16 row errors added as
// numerics' tree.
template <typename ValueAt>
__device__ __forceinline__ float four_over_six_tile_error(uint32_t s, const FourOverSixOuter& f, ValueAt value_at) {
  float rows[kBlock];
#pragma unroll 1
  for (int r = 0; r < kBlock; ++r) rows[r] = four_over_six_error(s, f, kBlock, [&](int c) { return value_at(r, c); });
  return num::nvfp4_four_over_six_tile_error(rows);
}

}  // namespace lowp::cuda::nvfp4
