// CPU reference of the NVFP4 per-tensor quantize (numerics §3, §4, §5c, §7): outer amax per
// orientation, then for every 16-element block of an orientation: block amax b -> UE4M3 scale s
// (with 4over6 the better of two candidates) -> element multiplier m -> E2M1 codes of x * m (RN
// or SR), two per byte; scales in the compact or the swizzled layout. Every formula comes from
// src/numerics; this file only walks the blocks. Parallel over the rows of each orientation.
#include <algorithm>
#include <vector>

#include "core/backends.h"
#include "numerics/nvfp4_scaling.h"
#include "numerics/rht16.h"
#include "cpu/nvfp4/blocks.h"
#include "cpu/nvfp4/four_over_six.h"
#include "cpu/parallel.h"

namespace lowp::cpu {
namespace {

using nvfp4_blocks::kBlock;
using nvfp4_blocks::x_at;
constexpr int64_t kRowsPerChunk = 16;

// Block jb of row i of an orientation, as the 16 values the encoder sees (columnwise:
// RHT-transformed when asked).
void load_block(const Nvfp4QuantizeArgs& a, bool columnwise, int64_t i, int64_t jb, float v[kBlock]) {
  nvfp4_blocks::load(a.x, columnwise, i, jb, v);
  if (columnwise && a.rht) nvfp4_blocks::rht_to_bf16(v, a.rht_sign_mask);
}

// Exact post-RHT amax of the columnwise copy: one pass over every columnwise block.
float columnwise_rht_amax(const Nvfp4QuantizeArgs& a) {
  const int64_t rows = a.x.cols, blocks = a.x.rows / kBlock;
  std::vector<uint32_t> partial(rows, 0);
  parallel_for(rows, kRowsPerChunk, [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
      uint32_t acc = 0;
      for (int64_t jb = 0; jb < blocks; ++jb) {
        float v[kBlock];
        load_block(a, true, i, jb, v);
        acc = std::max(acc, nvfp4_blocks::fold(v));
      }
      partial[i] = acc;
    }
  });
  return num::float_of(*std::max_element(partial.begin(), partial.end()));
}

// 2D: amax of every 16x16 tile of x, [M/16][K/16].
std::vector<float> tile_amaxes(const DenseView& x) {
  const int64_t tr = x.rows / kBlock, tc = x.cols / kBlock;
  std::vector<float> tiles(tr * tc);
  parallel_for(tr, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t ti = t0; ti < t1; ++ti)
      for (int64_t tj = 0; tj < tc; ++tj) {
        uint32_t acc = 0;
        for (int64_t r = 0; r < kBlock; ++r)
          for (int64_t c = 0; c < kBlock; ++c) acc = num::amax_bits_fold(acc, x_at(x, ti * kBlock + r, tj * kBlock + c));
        tiles[ti * tc + tj] = num::float_of(acc);
      }
  });
  return tiles;
}

// 4over6 with 2D blocks: the kept scale of every 16x16 tile of x, [M/16][K/16], for an
// orientation encoded against `o` (its amax). The error runs over the tile in that orientation's
// rows: columnwise, xᵀ's (numerics §5c).
std::vector<uint8_t> four_over_six_tile_scales(const DenseView& x, bool columnwise, const std::vector<float>& tiles,
                                               const four_over_six::Outer& o) {
  const int64_t tr = x.rows / kBlock, tc = x.cols / kBlock;
  std::vector<uint8_t> scales(tr * tc);
  parallel_for(tr, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t ti = t0; ti < t1; ++ti)
      for (int64_t tj = 0; tj < tc; ++tj) {
        float tile[kBlock][kBlock];
        for (int64_t r = 0; r < kBlock; ++r)
          for (int64_t c = 0; c < kBlock; ++c)
            (columnwise ? tile[c][r] : tile[r][c]) = x_at(x, ti * kBlock + r, tj * kBlock + c);
        scales[ti * tc + tj] = four_over_six::tile_scale(tile, tiles[ti * tc + tj], o);
      }
  });
  return scales;
}

// Encodes one orientation with outer amax `amax`. `tiles` (2D only) gives the block amax;
// otherwise it is the amax of the block's 16 values.
void encode_orientation(const Nvfp4QuantizeArgs& a, const Nvfp4Part& p, bool columnwise, float amax,
                        const std::vector<float>* tiles) {
  const int64_t blocks = (columnwise ? a.x.rows : a.x.cols) / kBlock;
  const int64_t tile_cols = a.x.cols / kBlock;
  const Nvfp4FourOverSix& fos = a.four_over_six;
  const float s_enc = num::nvfp4_encode_scale(amax, fos.outer_max);
  const four_over_six::Outer outer{s_enc, amax, fos.outer_max, fos.mse};
  std::vector<uint8_t> tile_scales;
  if (tiles && fos.on) tile_scales = four_over_six_tile_scales(a.x, columnwise, *tiles, outer);
  const uint64_t* rng = a.stochastic_rounding ? a.rng_state : nullptr;
  nvfp4_blocks::encode_orientation(a.x, columnwise, a.scale_layout, p, [&](int64_t i, int64_t jb, uint8_t* codes) {
    float v[kBlock];
    load_block(a, columnwise, i, jb, v);
    const int64_t tile = (columnwise ? jb : i / kBlock) * tile_cols + (columnwise ? i / kBlock : jb);  // 2D: x's tile
    const float b = tiles ? (*tiles)[tile] : num::float_of(nvfp4_blocks::fold(v));
    uint8_t s;
    if (!fos.on) s = num::nvfp4_block_scale(b, s_enc);
    else s = tiles ? tile_scales[tile] : four_over_six::block_scale(v, b, outer);
    nvfp4_blocks::encode(v, num::nvfp4_multiplier_per_tensor(s, s_enc), rng, static_cast<uint64_t>(i * blocks + jb),
                         columnwise, codes);
    return s;
  });
}

}  // namespace

lowp_status nvfp4_quantize(const Nvfp4QuantizeArgs& a) {
  const bool want_row = a.row.codes != nullptr, want_col = a.col.codes != nullptr;
  // Outer amaxes (numerics §4). Given: each requested part's own. Else A_row = max|x|;
  // A_col = A_row, or with RHT the exact post-RHT amax or A_row * c (estimation).
  float row_amax = 0.0f, col_amax = 0.0f;
  if (a.amax_given) {
    if (want_row) row_amax = *a.row.amax;
    if (want_col) col_amax = *a.col.amax;
  } else {
    const bool exact_rht = want_col && a.rht && !a.amax_estimation;
    if (want_row || (want_col && !exact_rht)) amax(a.x, &row_amax);
    if (want_col) {
      if (!a.rht) col_amax = row_amax;
      else if (a.amax_estimation) col_amax = num::nvfp4_estimated_col_amax(row_amax, a.amax_estimation_factor);
      else col_amax = columnwise_rht_amax(a);
    }
    if (want_row) *a.row.amax = row_amax;
    if (want_col) *a.col.amax = col_amax;
  }
  std::vector<float> tiles;
  if (a.block_2d) tiles = tile_amaxes(a.x);
  const std::vector<float>* t = a.block_2d ? &tiles : nullptr;
  if (want_row) encode_orientation(a, a.row, false, row_amax, t);
  if (want_col) encode_orientation(a, a.col, true, col_amax, t);
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
