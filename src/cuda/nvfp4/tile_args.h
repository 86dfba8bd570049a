// What the NVFP4 launchers and the tile kernels share on the host side: the tile geometry, the
// arguments of one matrix (TileArgs, a kernel parameter) and when the tile path applies. No device
// code beyond one host-device helper; the kernels' device code is in tile_thread.cuh and tile.cuh.
#pragma once
#include <cstdint>

#include "core/nvfp4_args.h"
#include "cuda/common/launch.h"  // aligned16
#include "numerics/nvfp4_scaling.h"
#include "numerics/swizzle.h"

namespace lowp::cuda::nvfp4 {

constexpr int kBlock = 16;
constexpr int kTile = 128;                  // rows and columns of a tile
constexpr int kTileBlocks = kTile / kBlock;  // blocks along each edge of a tile

// One matrix to encode (a tensor or a group member). Null codes: orientation not produced.
struct TileArgs {
  const void* x;
  int64_t rows, cols;
  uint8_t* row_codes;
  uint8_t* row_scales;
  float* row_amax;  // per-tensor: &A_row; per-token: rows floats (written by K1)
  uint8_t* col_codes;
  uint8_t* col_scales;
  float* col_amax;  // per-tensor: &A_col; per-token: cols floats (written by K1)
  int64_t row_scale_cols, col_scale_cols;  // padded compact columns of each scale array
  bool swizzled;
  bool block_2d;
  // 4over6 (numerics §5c; the kernels' k4over6): its error measure and E (448, or 256: 6E =
  // four_over_six_outer_max()). Bools where the struct has room: no field moves.
  bool four_over_six_mse;
  bool four_over_six_e256;
  uint32_t sign_mask;
  const uint64_t* rng_state;  // {seed, offset}; stochastic rounding only
  uint64_t sr_base;           // SR index of this matrix's block 0 (a group member's offset)
  int64_t col_tiles;
  // Per-tensor: A_col derived from A_row by the encode itself (block 0 stores it) instead of read.
  bool col_amax_from_row;
  bool col_amax_estimate;  // A_row * col_amax_factor (else a copy)
  float col_amax_factor;
};

// 4over6's 6E.
__host__ __device__ inline float four_over_six_outer_max(const TileArgs& a) {
  return a.four_over_six_e256 ? num::kNvfp4OuterMax256 : num::kNvfp4OuterMax;
}

// A_col from A_row: a copy, or with RHT the estimate.
__host__ __device__ inline float derived_col_amax(float a_row, bool estimate, float factor) {
  return estimate ? num::nvfp4_estimated_col_amax(a_row, factor) : a_row;
}

// Rows and columns below 2^30 keep the tile kernels' byte strides (a row of fp32 x, a column of
// columnwise codes) below 2^32, so an address takes one 32 x 32 -> 64-bit multiply-add.
constexpr int64_t kTileDimLimit = int64_t{1} << 30;
// Fewer than 2^36 elements (128 GiB of bf16) number the 16-element blocks of each orientation
// in 32 bits: the SR counter's high block word is 0, so the first two rounds of every block's
// Philox share their constant halves.
constexpr int64_t kTileElementLimit = int64_t{1} << 36;

// True when the shape and every pointer allow the tile path's vector loads and stores (codes of
// both orientations leave as 8-byte stores of whole blocks).
inline bool tile_path_ok(const TileArgs& a) {
  const auto al = [](const void* p, uintptr_t n) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % n == 0; };
  const bool shape = a.rows < kTileDimLimit && a.cols < kTileDimLimit && a.rows * a.cols < kTileElementLimit;
  return shape && aligned16(a.x) && al(a.row_codes, 8) && al(a.col_codes, 8) && al(a.row_scales, 4) && al(a.col_scales, 4);
}

inline int64_t tile_count(int64_t n) { return (n + kTile - 1) / kTile; }

// The tile arguments of one matrix x and its two orientations' outputs (null codes: not made).
inline TileArgs tile_args(const DenseView& x, const Nvfp4Part& row, const Nvfp4Part& col, lowp_scale_layout layout,
                          uint32_t sign_mask, const uint64_t* rng_state, const Nvfp4FourOverSix& four_over_six = {}) {
  TileArgs t{};
  t.x = x.data;
  t.rows = x.rows;
  t.cols = x.cols;
  t.row_codes = row.codes;
  t.row_scales = row.scales;
  t.row_amax = row.amax;
  t.col_codes = col.codes;
  t.col_scales = col.scales;
  t.col_amax = col.amax;
  t.row_scale_cols = num::scale_cols_padded(x.cols / kBlock);
  t.col_scale_cols = num::scale_cols_padded(x.rows / kBlock);
  t.swizzled = layout == LOWP_SCALE_LAYOUT_SWIZZLED;
  t.four_over_six_mse = four_over_six.mse;
  t.four_over_six_e256 = four_over_six.outer_max == num::kNvfp4OuterMax256;
  t.sign_mask = sign_mask;
  t.rng_state = rng_state;
  t.col_tiles = tile_count(x.cols);
  return t;
}

}  // namespace lowp::cuda::nvfp4
