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
// A block's 16 values, passed to the rule below by reference: by value, the call's argument
// registers would stay reserved around the hot loop.
struct BlockValues {
  float v[kBlock];
};
static __device__ __noinline__ float four_over_six_error_by_rule(uint32_t s, float m, const FourOverSixOuter& f,
                                                                  const BlockValues& x) {
  const float fs = decode_ue4m3(s);
  float err = 0.0f;
#pragma unroll 1
  for (int j = 0; j < kBlock; ++j) {
    const float y = num::mul_rn(x.v[j], m);
    const uint8_t code = static_cast<uint8_t>(e2m1_rn_magnitude(y) & 7u);
    const float xhat = with_sign_of(num::nvfp4_four_over_six_value(code, fs, f.amax, f.outer_max), y);
    err = num::add_rn(err, num::nvfp4_four_over_six_term(xhat, x.v[j], f.mse));
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
  BlockValues x;
#pragma unroll
  for (int j = 0; j < kBlock; ++j) x.v[j] = value_at(j);
  if (!bases.exact) return four_over_six_error_by_rule(s, m, f, x);
  float err = 0.0f;
#pragma unroll
  for (int j = 0; j < kBlock; ++j) {
    const float y = num::mul_rn(x.v[j], m);
    const float xhat = with_sign_of(num::nvfp4_four_over_six_value_of_bases(e2m1_rn_magnitude(y) & 7u, bases), y);
    err = num::add_rn(err, num::nvfp4_four_over_six_term(xhat, x.v[j], f.mse));
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

// One candidate of a 1D block (the tile kernels' encode): its scale code, multiplier and bases;
// exact false: four_over_six_error_by_rule measures it.
struct FourOverSixCandidate {
  uint32_t s;
  float m, one, one_and_half;
  bool exact;
};

// A candidate from the rule (row-scaled, whose outer scale varies by row: three divisions).
__device__ __forceinline__ FourOverSixCandidate four_over_six_candidate(uint32_t s, const FourOverSixOuter& f) {
  const float fs = decode_ue4m3(s);
  const num::Nvfp4FourOverSixBases b = num::nvfp4_four_over_six_bases(fs, f.amax, f.outer_max);
  return {s, num::nvfp4_multiplier_per_tensor_of(fs, f.o.s_dec), b.one, b.one_and_half, b.exact};
}

// nvfp4_four_over_six_value_of_bases of a biased magnitude k (e2m1_rn_magnitude) with exact bases,
// as one integer sum: code 0 gives 0, codes 1, 2, 4, 6 one / 2 and codes 3, 5, 7 one_and_half / 2
// (bits - 2^23), plus 2^23 per step of code >> 1.
__device__ __forceinline__ float four_over_six_magnitude(uint32_t k, uint32_t one_half, uint32_t one_and_half_half) {
  // Bit `code` of 0xA8: codes 3, 5, 7 (the funnel shift takes k mod 32, the code: no mask first).
  const uint32_t base = (__funnelshift_r(0xA8u, 0u, k) & 1u) != 0 ? one_and_half_half : one_half;
  return __uint_as_float((k & 7u) != 0 ? base + ((k & 6u) << 22) : 0u);
}

// A candidate's bases halved (bits - 2^23), what four_over_six_magnitude adds to.
struct FourOverSixHalves {
  uint32_t one, one_and_half;
};
__device__ __forceinline__ FourOverSixHalves four_over_six_halves(const FourOverSixCandidate& c) {
  return {__float_as_uint(c.one) - 0x800000u, __float_as_uint(c.one_and_half) - 0x800000u};
}

// One element's error term under a candidate with exact bases, from its biased code k: the
// magnitude x^ less |x| (x^ carries y's sign, which is x's wherever x^ is not 0), absolute or
// squared.
template <bool kMse>
__device__ __forceinline__ float four_over_six_term_of(uint32_t k, float x, const FourOverSixHalves& h) {
  const float d = __fsub_rn(four_over_six_magnitude(k, h.one, h.one_and_half), fabsf(x));
  return kMse ? num::mul_rn(d, d) : fabsf(d);
}

// num::nvfp4_four_over_six_scales with both E4M3 encodes as one convert (fp8x2 equals
// num::encode_e4m3 on every input; the minimum leaves no NaN).
__device__ __forceinline__ num::Nvfp4ScaleCandidates four_over_six_scales(float b, float s_enc) {
  const float base = num::nvfp4_four_over_six_base(b, s_enc);
  const uint32_t c = fp8x2<true>(fminf(base, 448.0f), fminf(num::mul_rn(base, 1.5f), 448.0f));
  return {static_cast<uint8_t>(c & 0xFFu), static_cast<uint8_t>(c >> 8)};
}

// The kept candidate of a 1D block and its 16 codes, packed as block_codes packs them.
struct FourOverSixChoice {
  uint32_t s;
  uint2 codes;
};

// Both candidates of a 1D block in one walk over its values: each element's code under either
// multiplier gives its term and is kept packed, so the kept candidate is not encoded again. The
// codes are the clamped encoder's (exact for every y, as block_codes' with or without the clamp).
// The signs are y6's: a NaN value makes the block amax NaN, so s4 == s6 and map-6 is kept, and
// otherwise both products have the value's sign (m > 0). The terms use |x| and the magnitude
// x^ (|x^ - x| and (x^ - x)^2 are those of |x^| - |x|: x^ carries y's sign, which is x's
// wherever x^ is not 0). Each error adds its terms in element order from 0, as the rule.
template <bool kMse, typename ValueAt>
__device__ __forceinline__ FourOverSixChoice four_over_six_choose_as(const FourOverSixCandidate& c6,
                                                                     const FourOverSixCandidate& c4,
                                                                     const FourOverSixOuter& f, ValueAt value_at) {
  const FourOverSixHalves h6 = four_over_six_halves(c6), h4 = four_over_six_halves(c4);
  BlockValues x;
  float err6 = 0.0f, err4 = 0.0f;
  uint32_t words6[2], words4[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float y6[8];
    uint32_t k6[8], k4[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int j = h * 8 + i;
      x.v[j] = value_at(j);
      y6[i] = num::mul_rn(x.v[j], c6.m);
      k6[i] = e2m1_rn_magnitude(y6[i]);
      k4[i] = e2m1_rn_magnitude(num::mul_rn(x.v[j], c4.m));
      err6 = num::add_rn(err6, four_over_six_term_of<kMse>(k6[i], x.v[j], h6));
      err4 = num::add_rn(err4, four_over_six_term_of<kMse>(k4[i], x.v[j], h4));
    }
    const uint32_t signs = e2m1_sign_bits_x8(y6);
    words6[h] = pack_e2m1x8(k6, signs);
    words4[h] = pack_e2m1x8(k4, signs);
  }
  if (!c6.exact) err6 = four_over_six_error_by_rule(c6.s, c6.m, f, x);
  if (!c4.exact) err4 = four_over_six_error_by_rule(c4.s, c4.m, f, x);
  const bool map4 = num::nvfp4_four_over_six_takes_map4(err4, err6);
  return {map4 ? c4.s : c6.s, map4 ? make_uint2(words4[0], words4[1]) : make_uint2(words6[0], words6[1])};
}

// four_over_six_choose_as with the measure as a branch (uniform) rather than a select per element.
template <typename ValueAt>
__device__ __forceinline__ FourOverSixChoice four_over_six_choose(const FourOverSixCandidate& c6, const FourOverSixCandidate& c4,
                                                                  const FourOverSixOuter& f, ValueAt value_at) {
  if (f.mse) return four_over_six_choose_as<true>(c6, c4, f, value_at);
  return four_over_six_choose_as<false>(c6, c4, f, value_at);
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

// four_over_six_tile_error of a candidate with exact bases and known multiplier (the per-tensor
// tables): each row's terms as four_over_six_choose_as adds them, no division.
template <bool kMse, typename ValueAt>
__device__ __forceinline__ float four_over_six_tile_error_as(const FourOverSixCandidate& c, ValueAt value_at) {
  const FourOverSixHalves h = four_over_six_halves(c);
  float rows[kBlock];
#pragma unroll 1
  for (int r = 0; r < kBlock; ++r) {
    float err = 0.0f;
#pragma unroll
    for (int j = 0; j < kBlock; ++j) {
      const float x = value_at(r, j);
      err = num::add_rn(err, four_over_six_term_of<kMse>(e2m1_rn_magnitude(num::mul_rn(x, c.m)), x, h));
    }
    rows[r] = err;
  }
  return num::nvfp4_four_over_six_tile_error(rows);
}

// A 16x16 tile's error under candidate c: from its bases where they are exact, else by the rule.
template <typename ValueAt>
__device__ __forceinline__ float four_over_six_tile_error(const FourOverSixCandidate& c, const FourOverSixOuter& f,
                                                          ValueAt value_at) {
  if (!c.exact) return four_over_six_tile_error(c.s, f, value_at);
  if (f.mse) return four_over_six_tile_error_as<true>(c, value_at);
  return four_over_six_tile_error_as<false>(c, value_at);
}

}  // namespace lowp::cuda::nvfp4
