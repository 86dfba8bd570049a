// 4over6 on the device (numerics §5c): which of its two candidate scales a block or a 16x16 tile
// keeps, in the steps and order of the CPU reference (cpu/nvfp4/four_over_six.h), every scalar
// step numerics/nvfp4_four_over_six.h's. A candidate's decoded value x^ depends only on its code:
// each candidate derives its two bases once and its 8 x^ from them by exponent adds
// (nvfp4_four_over_six_value_of_bases; where the bases are not exact, a rare block at the ends of
// the float range, from the rule itself). The tile kernels look x^ up in per-thread shared-memory
// tables; the one-thread-per-block kernels (four_over_six_error) add in registers. A negative
// code's x^ is the negated positive one (round to nearest is symmetric), and the code's sign is
// that of y = x * m (a NaN y, positive on the GPU, encodes as +6).
#pragma once
#include <type_traits>

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
// exact false: its x^ come from the rule.
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

// One element's error term from its magnitude x^ (x^ carries y's sign, which is x's wherever x^
// is not 0, so |x^ - x| and (x^ - x)^2 are those of |x^| - |x|), absolute or squared.
template <bool kMse>
__device__ __forceinline__ float four_over_six_term(float magnitude, float x) {
  const float d = __fsub_rn(magnitude, fabsf(x));
  return kMse ? num::mul_rn(d, d) : fabsf(d);
}

// num::nvfp4_four_over_six_scales with both E4M3 encodes as one convert (fp8x2 equals
// num::encode_e4m3 on every input; fminf, which leaves no NaN either, is one instruction where
// num::fmin_num is several). k16Bit: b is an amax of bf16 or fp16 values (b / 6 by the shortcut).
template <bool k16Bit = false>
__device__ __forceinline__ num::Nvfp4ScaleCandidates four_over_six_scales(float b, float s_enc) {
  const float base = num::nvfp4_four_over_six_base(b, s_enc, k16Bit);
  const uint32_t c = fp8x2<true>(fminf(base, 448.0f), fminf(num::mul_rn(base, 1.5f), 448.0f));
  return {static_cast<uint8_t>(c & 0xFFu), static_cast<uint8_t>(c >> 8)};
}

// The kept candidate of a 1D block and its 16 codes, packed as block_codes packs them.
struct FourOverSixChoice {
  uint32_t s;
  uint2 codes;
};

__device__ __forceinline__ float ld_shared_f32(uint32_t a) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(a));
  return v;
}
__device__ __forceinline__ void st_shared_b32(uint32_t a, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(v));
}

// A candidate as the walks use it: scale code, multiplier, and where its x^ lie in shared memory,
// x^ of the biased code k (kRoundMagicBits + code) at base + (k << kShift): a shift-add and a
// load per lookup (kShift >= 10 shifts the bias out of 32 bits).
template <int kShift>
struct FourOverSixLookup {
  static_assert((kRoundMagicBits << kShift) == 0u, "the bias must vanish from the address");
  uint32_t s;
  float m;
  uint32_t base;
  __device__ float xhat(uint32_t k) const { return ld_shared_f32(base + (k << kShift)); }
};

// Each thread's x^ of the candidates of the block (or 2D tile) it is at, in shared memory as
// [code][candidate][thread] (candidate 0 map-6, 1 map-4): a warp's lookups, one entry per lane at
// any codes, hit 32 different banks. Code 0's entries stay 0 except while a candidate's bases are
// not exact.
template <int kThreads>
struct FourOverSixThreadTables {
  float v[8][2][kThreads];
};
template <int kThreads>
class FourOverSixThreadXhat {
  static constexpr uint32_t kCodeBytes = 2 * kThreads * sizeof(float);
  static_assert((kCodeBytes & (kCodeBytes - 1)) == 0, "a power-of-two stride: the shift-add");

 public:
  static constexpr int kShift = __builtin_ctz(kCodeBytes);

 private:
  uint32_t at_[2];  // shared address of entry [0][candidate][thread]

  // Every entry from the rule. Out of line (rare, its divisions would otherwise be inlined at
  // every call), on scalars (a reference would store its object to the stack on every block).
  static __device__ __noinline__ void fill_by_rule(uint32_t at, uint32_t s, float amax, float outer_max) {
    const float fs = decode_ue4m3(s);
#pragma unroll 1
    for (uint32_t code = 0; code < 8; ++code)
      st_shared_b32(at + code * kCodeBytes,
                    __float_as_uint(num::nvfp4_four_over_six_value(static_cast<uint8_t>(code), fs, amax, outer_max)));
  }

 public:
  // Code 0's entries written 0 (before the first lookup; no barrier: only this thread reads them).
  __device__ explicit FourOverSixThreadXhat(FourOverSixThreadTables<kThreads>& t) {
#pragma unroll
    for (int c = 0; c < 2; ++c) at_[c] = shared_address(&t.v[0][c][threadIdx.x]);
    clear_zero();
  }
  __device__ void clear_zero() const {
    st_shared_b32(at_[0], 0u);
    st_shared_b32(at_[1], 0u);
  }
  // Candidate cand into slot c (codes 1..7, or all from the rule) and its lookup; dirty is set
  // when code 0's entry must be cleared after the walk.
  __device__ FourOverSixLookup<kShift> fill(int c, const FourOverSixCandidate& cand, const FourOverSixOuter& f,
                                           bool& dirty) const {
    const uint32_t at = at_[c];
    if (!cand.exact) {
      fill_by_rule(at, cand.s, f.amax, f.outer_max);
      dirty = true;
    } else {
      const num::Nvfp4FourOverSixBases bases{cand.one, cand.one_and_half, true};
#pragma unroll
      for (uint32_t code = 1; code < 8; ++code)
        st_shared_b32(at + code * kCodeBytes, __float_as_uint(num::nvfp4_four_over_six_value_of_bases(code, bases)));
    }
    return {cand.s, cand.m, at};
  }
};

// Both candidates of a 1D block in one walk over its values: per element and candidate the
// multiply, the E2M1 magnitude, x^ looked up and the term, added in element order from 0 as the
// rule. The magnitudes are packed as they go, so the kept candidate is not encoded again.
// Unclamped, the signs are x's, which are y's (m > 0); clamped, y6's (a NaN value makes the block
// amax NaN, so s4 == s6 and map-6 is kept; the GPU's NaN y is positive, as the encoder's).
// kClamped: for any y (e2m1_rn_magnitude: NaN, |y| >= 7); else every |y| < 7.
template <bool kMse, bool kClamped, int kShift>
__device__ __forceinline__ FourOverSixChoice four_over_six_walk(const FourOverSixLookup<kShift>& c6,
                                                                const FourOverSixLookup<kShift>& c4,
                                                                const float (&x)[kBlock]) {
  float err6 = 0.0f, err4 = 0.0f;
  uint32_t words6[2], words4[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float y6[8];
    uint32_t k6[8], k4[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int j = h * 8 + i;
      y6[i] = num::mul_rn(x[j], c6.m);
      const float y4 = num::mul_rn(x[j], c4.m);
      k6[i] = kClamped ? e2m1_rn_magnitude(y6[i]) : e2m1_rn_magnitude_unclamped(y6[i]);
      k4[i] = kClamped ? e2m1_rn_magnitude(y4) : e2m1_rn_magnitude_unclamped(y4);
      const float t6 = four_over_six_term<kMse>(c6.xhat(k6[i]), x[j]);
      const float t4 = four_over_six_term<kMse>(c4.xhat(k4[i]), x[j]);
      err6 = j == 0 ? t6 : num::add_rn(err6, t6);  // 0 + t is t: the terms are >= +0 or NaN
      err4 = j == 0 ? t4 : num::add_rn(err4, t4);
    }
    const float(&xh)[8] = reinterpret_cast<const float(&)[8]>(x[h * 8]);
    const uint32_t signs = kClamped ? e2m1_sign_bits_x8(y6) : e2m1_sign_bits_x8(xh);
    words6[h] = pack_e2m1x8(k6, signs);
    words4[h] = pack_e2m1x8(k4, signs);
  }
  const bool map4 = num::nvfp4_four_over_six_takes_map4(err4, err6);
  return {map4 ? c4.s : c6.s, map4 ? make_uint2(words4[0], words4[1]) : make_uint2(words6[0], words6[1])};
}

// The kept candidate of a 1D block with amax b and values x. The clamp is chosen per warp (every
// lane of the warp calls this together), so no warp runs two walks: when any lane needs it (a NaN
// or infinite value, a saturated or subnormal scale).
template <int kShift>
__device__ __forceinline__ FourOverSixChoice four_over_six_choose(const FourOverSixLookup<kShift>& c6,
                                                                  const FourOverSixLookup<kShift>& c4, bool mse,
                                                                  float b, const float (&x)[kBlock]) {
  const bool clamp = __any_sync(0xFFFFFFFFu, !(num::mul_rn(b, c6.m) < 7.0f && num::mul_rn(b, c4.m) < 7.0f));  // or NaN
  const auto walk = [&](auto mse_tag) {
    constexpr bool kMse = decltype(mse_tag)::value;
    return clamp ? four_over_six_walk<kMse, true>(c6, c4, x) : four_over_six_walk<kMse, false>(c6, c4, x);
  };
  return mse ? walk(std::true_type{}) : walk(std::false_type{});
}

// One candidate's error over a 16x16 tile (value_at(r, c), rows of the copy being made): its 16
// row errors added as numerics' tree.
template <typename ValueAt>
__device__ __forceinline__ float four_over_six_tile_error(uint32_t s, const FourOverSixOuter& f, ValueAt value_at) {
  float rows[kBlock];
#pragma unroll 1
  for (int r = 0; r < kBlock; ++r) rows[r] = four_over_six_error(s, f, [&](int c) { return value_at(r, c); });
  return num::nvfp4_four_over_six_tile_error(rows);
}

// One row of a 16x16 tile under a candidate in the thread's tables: its terms added in element
// order from 0, clamped (four_over_six_error's row sum).
template <bool kMse, int kShift>
__device__ __forceinline__ float four_over_six_row_error(const FourOverSixLookup<kShift>& c, const float (&x)[kBlock]) {
  float err = 0.0f;
#pragma unroll
  for (int j = 0; j < kBlock; ++j) {
    const float t = four_over_six_term<kMse>(c.xhat(e2m1_rn_magnitude(num::mul_rn(x[j], c.m))), x[j]);
    err = j == 0 ? t : num::add_rn(err, t);
  }
  return err;
}

}  // namespace lowp::cuda::nvfp4
