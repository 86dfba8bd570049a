// The members of a grouped NVFP4 per-token tensor as the tile kernels see them: member t's rows
// [row0[t], row0[t + 1]) of the R x K input are a matrix of their own (SPEC §5, lowp.h
// lowp_nvfp4_grouped_quantize), tiled from its own row 0. Launch blocks walk a list of row-tile
// slots, member after member; a slot past the group's live tiles (a bad layout: none) exits.
#pragma once
#include "group_search.cuh"
#include "nvfp4_tile.cuh"

namespace lowp::cuda::nvfp4 {

// Prefix sums over the members, in device memory (nvfp4_group_prep.cu fills them).
struct MemberMap {
  int64_t n;                  // 0: not a group; the TileArgs are the whole matrix
  const int64_t* row0;        // [n + 1] first row of each member
  const int64_t* tile0;       // [n + 1] first row-tile slot: sum of ceil(M_u / 128), u < t
  const int64_t* col_quads0;  // [n + 1] sum of ceil(M_u / 64), u < t (columnwise scale columns / 4)
  const int64_t* status;      // 0, or the first bad member + 1
  const int64_t* live_tiles;  // row-tile slots to run: tile0[n], or 0 when the layout is bad
  int64_t slot_bound;         // host: row-tile slots to launch, >= *live_tiles for any valid split
};

// Slot `slot` of a launch over row-tile slots x a.col_tiles: the matrix it encodes (a member's
// view of the group's arrays) and its tile index in that matrix. False: nothing to do. Every
// thread of the launch block must call it (warp-wide search).
template <typename T>
__device__ inline bool member_tile(const TileArgs& whole, const MemberMap& g, int64_t block, TileArgs* m,
                                   int64_t* tile) {
  *tile = block;
  if (g.n == 0) {
    *m = whole;
    return true;
  }
  const int64_t slot = block / whole.col_tiles;
  if (slot >= *g.live_tiles) return false;
  const int64_t t = find_member(g.tile0, g.n, slot);
  const int64_t r0 = g.row0[t], k = whole.cols;
  *tile = (slot - g.tile0[t]) * whole.col_tiles + block % whole.col_tiles;
  // Copied here, after the exits: copied first, nvcc 13.0 dropped the x offset below once
  // TileArgs grew from 128 to 136 bytes (members read member 0's rows; the grouped tests caught it).
  *m = whole;
  m->x = static_cast<const typename T::Raw*>(whole.x) + r0 * k;
  m->rows = g.row0[t + 1] - r0;
  m->sr_base = static_cast<uint64_t>(r0 * k / kBlock);
  if (whole.row_codes != nullptr) {
    m->row_codes += r0 * k / 2;
    m->row_scales += g.tile0[t] * kTile * whole.row_scale_cols;
  }
  if (whole.row_amax != nullptr) m->row_amax += r0;
  if (whole.col_codes != nullptr) {
    m->col_codes += r0 * k / 2;
    m->col_scales += g.col_quads0[t] * 4 * num::scale_rows_padded(k);
    m->col_scale_cols = num::scale_cols_padded(m->rows / kBlock);
  }
  if (whole.col_amax != nullptr) m->col_amax += t * k;
  return true;
}

}  // namespace lowp::cuda::nvfp4
