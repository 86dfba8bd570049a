// 4over6 on the device (numerics §5c): which of its two candidate scales a block or a 16x16 tile
// keeps, in the steps and order of the CPU reference (cpu/nvfp4/four_over_six.h), every scalar
// step numerics/nvfp4_four_over_six.h's. A candidate's decoded value x^ depends only on its code:
// each candidate derives its two bases once (two divisions) and every element's x^ from them by an
// exponent add (nvfp4_four_over_six_value_of_bases; where the bases are not exact, a rare block at
// the ends of the float range, from the rule itself). A negative code's x^ is the negated
// positive one (round to nearest is symmetric), and the code's sign is that of y = x * m (a NaN y,
// positive on the GPU, encodes as +6); no table: the common path keeps everything in registers.
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

// x^ with the sign of y (round to nearest is symmetric; a NaN y is positive on the GPU).
__device__ __forceinline__ float with_sign_of(float magnitude, float y) {
  return __uint_as_float(__float_as_uint(magnitude) ^ (__float_as_uint(y) & 0x80000000u));
}

// four_over_six_error where the bases are not exact (an outer amax or block scale at the ends of
// the float range): every x^ from the rule. Out of line: rare, and its divisions would otherwise be
// inlined at every call.
static __device__ __noinline__ float four_over_six_error_by_rule(float fs, float m, const FourOverSixOuter& f,
                                                                  const float (&x)[kBlock]) {
  float err = 0.0f;
#pragma unroll 1
  for (int j = 0; j < kBlock; ++j) {
    const float y = num::mul_rn(x[j], m);
    const uint8_t code = static_cast<uint8_t>(e2m1_rn_magnitude(y) & 7u);
    const float xhat = with_sign_of(num::nvfp4_four_over_six_value(code, fs, f.amax, f.outer_max), y);
    err = num::add_rn(err, num::nvfp4_four_over_six_term(xhat, x[j], f.mse));
  }
  return err;
}

// The error of a block's 16 values (value_at(0..15)) encoded with scale code s: the terms added in
// element order from 0. Unrolled whole, so the values stay in registers.
template <typename ValueAt>
__device__ __forceinline__ float four_over_six_error(uint32_t s, const FourOverSixOuter& f, ValueAt value_at) {
  const float fs = decode_ue4m3(s);
  const float m = num::nvfp4_multiplier_per_tensor_of(fs, f.o.s_dec);
  const num::Nvfp4FourOverSixBases bases = num::nvfp4_four_over_six_bases(fs, f.amax, f.outer_max);
  float x[kBlock];
#pragma unroll
  for (int j = 0; j < kBlock; ++j) x[j] = value_at(j);
  if (!bases.exact) return four_over_six_error_by_rule(fs, m, f, x);
  float err = 0.0f;
#pragma unroll
  for (int j = 0; j < kBlock; ++j) {
    const float y = num::mul_rn(x[j], m);
    const float xhat = with_sign_of(num::nvfp4_four_over_six_value_of_bases(e2m1_rn_magnitude(y) & 7u, bases), y);
    err = num::add_rn(err, num::nvfp4_four_over_six_term(xhat, x[j], f.mse));
  }
  return err;
}

// The kept scale code of a 1D block of 16 values with amax b (equal candidates: map-6).
template <typename ValueAt>
__device__ __forceinline__ uint32_t four_over_six_block_scale(float b, const FourOverSixOuter& f, ValueAt value_at) {
  const num::Nvfp4ScaleCandidates c = num::nvfp4_four_over_six_scales(b, f.o.s_enc);
  if (c.s4 == c.s6) return c.s6;
  const float err4 = four_over_six_error(c.s4, f, value_at), err6 = four_over_six_error(c.s6, f, value_at);
  return num::nvfp4_four_over_six_takes_map4(err4, err6) ? c.s4 : c.s6;
}

// One candidate's error over a 16x16 tile (value_at(r, c), rows of x): its 16 row errors added as
// numerics' tree.
template <typename ValueAt>
__device__ __forceinline__ float four_over_six_tile_error(uint32_t s, const FourOverSixOuter& f, ValueAt value_at) {
  float rows[kBlock];
#pragma unroll 1
  for (int r = 0; r < kBlock; ++r) rows[r] = four_over_six_error(s, f, [&](int c) { return value_at(r, c); });
  return num::nvfp4_four_over_six_tile_error(rows);
}

}  // namespace lowp::cuda::nvfp4
