// CPU reference of the per-row NVFP4 recipes: per-token (numerics §3, §5, §6, §7) and row-scaled
// (§5b, with 4over6: §5c).
// K1: one outer amax per orientation row: rowwise max_k |x[i][k]|; columnwise max_i |x[i][k]|,
// or with RHT the max over the column's 16-row strips g of |RHT16(g)| (unnormalised fp32, bits
// folded) times 0.25 once at the end (row-scaled: that rounded to bf16).
// K2, per-token: per 16-element block of an orientation row: block amax b (x 0.25 with RHT) ->
// UE4M3 scale s against that row's S_enc -> per-token multiplier m (x 0.25 with RHT) -> E2M1
// codes (RN or SR); a block whose scale decodes to 0 writes positive-zero codes.
// K2, row-scaled: the per-tensor recipe's block (RHT values rounded to bf16, its multiplier, no
// zero-block rule) against the row's S_enc; with 4over6 the better of two candidate scales.
// Grouped: member after member through the same code, with the SR block numbering continued
// across members. Every formula comes from src/numerics; this file only walks the blocks.
#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/backends.h"
#include "core/nvfp4_members.h"
#include "numerics/nvfp4_scaling.h"
#include "numerics/rht16.h"
#include "cpu/nvfp4/blocks.h"
#include "cpu/nvfp4/four_over_six.h"
#include "cpu/parallel.h"

namespace lowp::cpu {
namespace {

using nvfp4_blocks::kBlock;
constexpr int64_t kRowsPerChunk = 16;

// Block jb of orientation row i as the encoder sees it; with RHT (columnwise only) the
// unnormalised fp32 transform, the 0.25 going into the block amax and the multiplier instead.
void load_block(const DenseView& x, bool columnwise, bool rht, uint32_t mask, int64_t i, int64_t jb, float v[kBlock]) {
  nvfp4_blocks::load(x, columnwise, i, jb, v);
  if (rht) num::rht16_unnormalized(v, mask);
}

// col_amax[k] = 0.25 * max over the column's strips of |RHT16(strip)|, canonical NaN; row-scaled:
// that rounded to bf16.
void columnwise_rht_amax(const DenseView& x, uint32_t mask, bool row_scaled, float* col_amax) {
  const int64_t strips = x.rows / kBlock;
  parallel_for(x.cols, kRowsPerChunk, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      uint32_t acc = 0;
      for (int64_t s = 0; s < strips; ++s) {
        float v[kBlock];
        load_block(x, true, true, mask, k, s, v);
        acc = std::max(acc, nvfp4_blocks::fold(v));
      }
      const float amax = num::canonical_nan(num::mul_rn(num::float_of(acc), 0.25f));
      col_amax[k] = row_scaled ? num::nvfp4_row_scaled_rht_amax(amax) : amax;
    }
  });
}

// Row-scaled K2 of block jb of orientation row i: the per-tensor math against the row's raw amax.
uint8_t encode_row_scaled_block(const Nvfp4PerTokenArgs& a, bool columnwise, int64_t i, int64_t jb, float amax,
                                const uint64_t* rng, uint64_t index, uint8_t* codes) {
  float v[kBlock];
  nvfp4_blocks::load(a.x, columnwise, i, jb, v);
  if (columnwise && a.rht) nvfp4_blocks::rht_to_bf16(v, a.rht_sign_mask);
  const float b = num::float_of(nvfp4_blocks::fold(v));
  const Nvfp4FourOverSix& fos = a.four_over_six;
  const float s_enc = num::nvfp4_encode_scale(amax, fos.outer_max);
  const uint8_t s = fos.on ? four_over_six::block_scale(v, b, {s_enc, amax, fos.outer_max, fos.mse})
                           : num::nvfp4_block_scale(b, s_enc);
  nvfp4_blocks::encode(v, num::nvfp4_multiplier_per_tensor(s, s_enc), rng, index, columnwise, codes);
  return s;
}

// K2 for one orientation; p.amax holds its per-row outer amaxes. SR block (i, jb) draws with
// index sr_base + i * B + jb (sr_base: blocks of the earlier members of a group, else 0).
void encode_orientation(const Nvfp4PerTokenArgs& a, const Nvfp4Part& p, bool columnwise, uint64_t sr_base) {
  const int64_t blocks = (columnwise ? a.x.rows : a.x.cols) / kBlock;
  const bool rht = columnwise && a.rht;
  const uint64_t* rng = a.stochastic_rounding ? a.rng_state : nullptr;
  nvfp4_blocks::encode_orientation(a.x, columnwise, a.scale_layout, p, [&](int64_t i, int64_t jb, uint8_t* codes) {
    const uint64_t index = sr_base + static_cast<uint64_t>(i * blocks + jb);
    if (a.row_scaled) return encode_row_scaled_block(a, columnwise, i, jb, p.amax[i], rng, index, codes);
    const float s_enc = num::nvfp4_encode_scale_per_token(p.amax[i]);
    float v[kBlock];
    load_block(a.x, columnwise, rht, a.rht_sign_mask, i, jb, v);
    float b = num::float_of(nvfp4_blocks::fold(v));
    if (rht) b = num::mul_rn(b, 0.25f);
    const uint8_t s = num::nvfp4_block_scale(b, s_enc);
    if (num::nvfp4_per_token_block_is_zero(s)) {
      std::memset(codes, 0, kBlock / 2);
      return s;
    }
    const float m = num::nvfp4_multiplier_per_token(s, s_enc);
    nvfp4_blocks::encode(v, rht ? num::mul_rn(m, 0.25f) : m, rng, index, columnwise, codes);
    return s;
  });
}

lowp_status quantize(const Nvfp4PerTokenArgs& a, uint64_t sr_base) {
  const bool want_row = a.row.codes != nullptr, want_col = a.col.codes != nullptr;
  if (!a.amax_given)  // the composite: K1 into the requested parts' amax arrays, then K2
    nvfp4_per_token_amax({a.x, want_row ? a.row.amax : nullptr, want_col ? a.col.amax : nullptr, a.rht,
                          a.rht_sign_mask, a.row_scaled});
  if (want_row) encode_orientation(a, a.row, false, sr_base);
  if (want_col) encode_orientation(a, a.col, true, sr_base);
  return LOWP_SUCCESS;
}

}  // namespace

lowp_status nvfp4_per_token_amax(const Nvfp4PerTokenAmaxArgs& a) {
  const bool col_rht = a.col_amax != nullptr && a.rht;
  float* plain_col = col_rht ? nullptr : a.col_amax;  // without RHT: the FP8 per-token amax pass
  if (a.row_amax || plain_col) LOWP_TRY(amax_per_token(a.x, a.row_amax, plain_col));
  if (col_rht) columnwise_rht_amax(a.x, a.rht_sign_mask, a.row_scaled, a.col_amax);
  return LOWP_SUCCESS;
}

lowp_status nvfp4_per_token_quantize(const Nvfp4PerTokenArgs& a) { return quantize(a, 0); }

lowp_status nvfp4_grouped_quantize(const Nvfp4GroupedArgs& a) {
  const int64_t k = a.t.x.cols;
  for_each_nvfp4_member(a.group, k, [&](const Nvfp4Member& m) { quantize(member_args(a.t, m), member_sr_base(m, k)); });
  return LOWP_SUCCESS;
}

lowp_status nvfp4_grouped_amax(const Nvfp4GroupedAmaxArgs& a) {
  for_each_nvfp4_member(a.group, a.t.x.cols, [&](const Nvfp4Member& m) { nvfp4_per_token_amax(member_args(a.t, m)); });
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
