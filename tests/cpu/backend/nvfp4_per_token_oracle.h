// An independent NVFP4 per-token quantizer written from docs/numerics.md (§3, §5, §6, §7), for the
// CPU backend tests. Like nvfp4_oracle.h (whose scalar pieces it uses: CUDA's host conversions,
// numerics §1's decode tables, cuRAND's Philox, numerics §7's butterflies) it shares no code with
// src/numerics. Slow and simple on purpose: one orientation, one block at a time.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "nvfp4_oracle.h"

namespace nvfp4_per_token_oracle {

using namespace nvfp4_oracle;

// numerics §5: fmaxf(A, 1e-12) drops a NaN A. A stored amax is raw and can be a signaling NaN,
// which the host's std::fmax returns as NaN, hence the explicit test.
inline float floor_amax(float amax) { return std::isnan(amax) ? 1e-12f : std::fmax(amax, 1e-12f); }

// S_enc from the floored amax, the per-token multiplier (§3), and the dequantize with the same
// floor.
inline float encode_scale_pt(float amax) { return encode_scale(floor_amax(amax)); }
inline float multiplier_pt(uint8_t s, float s_enc) {
  const float fs = e4m3_value(s);
  return fs == 0.0f ? 0.0f : s_enc / fs;
}
inline float dequantize_pt(uint8_t code, uint8_t s, float amax) { return dequantize(code, s, floor_amax(amax)); }

struct PtConfig {
  bool columnwise = false;
  bool rht = false;  // columnwise only
  uint32_t mask = 0xD7E8u;
  bool sr = false;
  uint64_t seed = 0, offset = 0;
  uint64_t block_base = 0;                  // SR index of block (0, 0): a group's earlier blocks
  const std::vector<float>* given = nullptr;  // this orientation's amaxes; else computed (K1)
};

struct PtResult : Result {  // values: x, x^T, or with RHT the unnormalised RHT16 of x^T's strips
  std::vector<float> amaxes;  // one per orientation row
};

// Outer amax of each orientation row (K1): max |row|, with RHT 0.25 * max |RHT16 strips|.
inline std::vector<float> row_amaxes(const PtResult& r, bool rht) {
  std::vector<float> a(static_cast<size_t>(r.rows));
  for (int64_t i = 0; i < r.rows; ++i) {
    a[i] = amax_of(&r.values[i * r.cols], static_cast<size_t>(r.cols));
    if (rht) a[i] *= 0.25f;
  }
  return a;
}

// x: M x K floats (the decoded input). One orientation of the per-token recipe.
inline PtResult quantize(const std::vector<float>& x, int64_t M, int64_t K, const PtConfig& c) {
  PtResult r{orientation_of(x, M, K, c.columnwise), {}};
  const bool rht = c.columnwise && c.rht;
  if (rht)
    for (int64_t i = 0; i < r.rows; ++i)
      for (int64_t j = 0; j < r.cols; j += 16) rht16(&r.values[i * r.cols + j], c.mask);
  r.amaxes = c.given ? *c.given : row_amaxes(r, rht);
  const int64_t blocks = r.cols / 16;
  for (int64_t i = 0; i < r.rows; ++i) {
    const float s_enc = encode_scale_pt(r.amaxes[i]);
    for (int64_t jb = 0; jb < blocks; ++jb) {
      const float* v = &r.values[i * r.cols + jb * 16];
      const float b = amax_of(v, 16) * (rht ? 0.25f : 1.0f);
      const uint8_t s = block_scale(b, s_enc);
      r.scales[i * r.scale_cols + jb] = s;
      if (e4m3_value(s) == 0.0f) continue;  // numerics §5: the block's codes stay 0 (positive zero)
      const float m = multiplier_pt(s, s_enc) * (rht ? 0.25f : 1.0f);
      for (int t = 0; t < 16; ++t) {
        const float y = v[t] * m;
        const uint64_t index = c.block_base + static_cast<uint64_t>(i * blocks + jb);
        put_code(r, i, jb * 16 + t, c.sr ? e2m1_sr(y, sr_random_byte(c.seed, c.offset, index, c.columnwise, t)) : e2m1(y));
      }
    }
  }
  return r;
}

}  // namespace nvfp4_per_token_oracle
