// An independent quantizer for the NVFP4 variants, written from docs/numerics.md: row-scaled NVFP4
// (§5b) and 4over6 adaptive block scaling (§5c, on per-tensor 1D and 2D blocks and on row-scaled).
// Like nvfp4_oracle.h, whose scalar pieces it uses (CUDA's host conversions, numerics §1's decode
// tables, cuRAND's Philox, numerics §7's butterflies), it shares no code with src/numerics. Slow and
// simple on purpose: one orientation, one block at a time, in the order docs/numerics.md states.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#include "nvfp4_oracle.h"

namespace nvfp4_variants_oracle {

using namespace nvfp4_oracle;

// numerics §5c: S_enc = min(6E / A, FLT_MAX), 1 for A = 0 or a zero quotient (E = 448: numerics §3's).
inline float encode_scale_e(float amax, float six_e) {
  const float s = std::fmin(six_e / amax, FLT_MAX);
  return (amax == 0.0f || s == 0.0f) ? 1.0f : s;
}

// numerics §3's per-tensor multiplier, min(1 / (float(s) * (1 / S_enc)), FLT_MAX).
inline float multiplier_of(uint8_t s, float s_enc) {
  const float s_dec = 1.0f / s_enc;
  return std::fmin(1.0f / (e4m3_value(s) * s_dec), FLT_MAX);
}

struct FourOverSix {
  bool on = false;
  bool mse = false;
  float six_e = 2688.0f;  // 6E: 2688 or 1536
};

// numerics §5c: the error of values v[0..n) encoded with scale s: sum over j in order of |x^ - x| or
// (x^ - x)^2, x^ = ((e2m1(q) * float(s)) * A) / 6E.
inline float candidate_error(const float* v, int n, uint8_t s, float s_enc, float amax, const FourOverSix& f) {
  const float m = multiplier_of(s, s_enc);
  float err = 0.0f;
  for (int j = 0; j < n; ++j) {
    const uint8_t q = e2m1(v[j] * m);
    const float decoded = ((e2m1_value(q) * e4m3_value(s)) * amax) / f.six_e;
    const float d = decoded - v[j];
    err = err + (f.mse ? d * d : std::fabs(d));
  }
  return err;
}

// numerics §5c's two candidates for block (or tile) amax b.
struct Candidates {
  uint8_t s6, s4;
};
inline Candidates candidates(float b, float s_enc) {
  const float base = (b / 6.0f) * s_enc;
  return {e4m3(std::fmin(base, 448.0f)), e4m3(std::fmin(base * 1.5f, 448.0f))};
}

// The scale a 1D block keeps: map-4 only when its error is strictly smaller.
inline uint8_t chosen_block_scale(const float* v, float b, float s_enc, float amax, const FourOverSix& f) {
  const Candidates c = candidates(b, s_enc);
  return candidate_error(v, 16, c.s4, s_enc, amax, f) < candidate_error(v, 16, c.s6, s_enc, amax, f) ? c.s4 : c.s6;
}

// The scale a 16x16 tile keeps (tile[r * 16 + c], rows of the orientation being made): its 16
// row errors, then pairwise (r with r + 8, then r + 4, r + 2, r + 1).
inline uint8_t chosen_tile_scale(const float* tile, float b, float s_enc, float amax, const FourOverSix& f) {
  const Candidates c = candidates(b, s_enc);
  auto tile_error = [&](uint8_t s) {
    float rows[16];
    for (int r = 0; r < 16; ++r) rows[r] = candidate_error(tile + r * 16, 16, s, s_enc, amax, f);
    for (int h = 8; h >= 1; h /= 2)
      for (int r = 0; r < h; ++r) rows[r] = rows[r] + rows[r + h];
    return rows[0];
  };
  return tile_error(c.s4) < tile_error(c.s6) ? c.s4 : c.s6;
}

struct VariantConfig {
  bool columnwise = false;
  bool row_scaled = false;  // else per-tensor
  bool rht = false;         // columnwise only: bf16(RHT16(g) * 0.25)
  uint32_t mask = 0xD7E8u;
  bool block_2d = false;    // per-tensor only
  bool sr = false;
  uint64_t seed = 0, offset = 0;
  FourOverSix fos;
  const std::vector<float>* given = nullptr;  // this orientation's amaxes (1 per-tensor, or per row)
};

struct VariantResult : Result {
  std::vector<float> amaxes;  // per orientation row (row-scaled), or 1 (per-tensor)
  int64_t map4_blocks = 0;    // 4over6: blocks (tiles: their blocks) that kept map-4
};

// x: M x K floats (the decoded input). One orientation of row-scaled or per-tensor NVFP4.
inline VariantResult quantize(const std::vector<float>& x, int64_t M, int64_t K, const VariantConfig& c) {
  VariantResult r{orientation_of(x, M, K, c.columnwise), {}, 0};
  if (c.columnwise && c.rht)
    for (int64_t i = 0; i < r.rows; ++i)
      for (int64_t j = 0; j < r.cols; j += 16) rht16_bf16(&r.values[i * r.cols + j], c.mask);
  // Outer amaxes: of each row of the values the encoder sees (row-scaled), or of all of them.
  if (c.given) {
    r.amaxes = *c.given;
  } else if (c.row_scaled) {
    r.amaxes.resize(static_cast<size_t>(r.rows));
    for (int64_t i = 0; i < r.rows; ++i) r.amaxes[i] = amax_of(&r.values[i * r.cols], static_cast<size_t>(r.cols));
  } else {
    r.amaxes = {amax_of(r.values.data(), r.values.size())};
  }
  r.amax = r.amaxes[0];
  const int64_t blocks = r.cols / 16;
  for (int64_t i = 0; i < r.rows; ++i) {
    const float amax = c.row_scaled ? r.amaxes[i] : r.amax;
    const float s_enc = encode_scale_e(amax, c.fos.on ? c.fos.six_e : 2688.0f);
    for (int64_t jb = 0; jb < blocks; ++jb) {
      const float* v = &r.values[i * r.cols + jb * 16];
      float b;
      float tile[256];
      if (c.block_2d) {  // the 16x16 tile holding this block, in this orientation's rows (2D: no RHT)
        const int64_t tr = (i / 16) * 16, tc = jb * 16;
        b = 0.0f;
        for (int64_t rr = 0; rr < 16; ++rr) {
          const float* row = &r.values[(tr + rr) * r.cols + tc];
          for (int64_t cc = 0; cc < 16; ++cc) tile[rr * 16 + cc] = row[cc];
          const float t = amax_of(row, 16);
          b = std::isnan(t) || std::isnan(b) ? NAN : std::fmax(b, t);
        }
      } else {
        b = amax_of(v, 16);
      }
      uint8_t s;
      if (!c.fos.on) {
        s = block_scale(b, s_enc);
      } else {
        s = c.block_2d ? chosen_tile_scale(tile, b, s_enc, amax, c.fos) : chosen_block_scale(v, b, s_enc, amax, c.fos);
        const Candidates cand = candidates(b, s_enc);
        r.map4_blocks += s == cand.s4 && s != cand.s6;
      }
      const float m = multiplier_of(s, s_enc);
      r.scales[i * r.scale_cols + jb] = s;
      for (int t = 0; t < 16; ++t) {
        const float y = v[t] * m;
        const uint64_t index = static_cast<uint64_t>(i * blocks + jb);
        put_code(r, i, jb * 16 + t, c.sr ? e2m1_sr(y, sr_random_byte(c.seed, c.offset, index, c.columnwise, t)) : e2m1(y));
      }
    }
  }
  return r;
}

// numerics §3 dequantize with 6E in place of 2688: e2m1(q) * (float(s) * A * (1/6E)).
inline float dequantize_e(uint8_t code, uint8_t s, float amax, float six_e) {
  return e2m1_value(code) * (e4m3_value(s) * amax * (1.0f / six_e));
}

}  // namespace nvfp4_variants_oracle
