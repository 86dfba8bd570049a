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
  const int64_t* live_tiles;  // row-tile slots to run: tile0[n], or 0 when the layout is bad
  int64_t slot_bound;         // host: row-tile slots to launch, >= *live_tiles for any valid split
};

// Member t of a group and its prefix entries.
struct Member {
  int64_t t, tile0, row0, row_end, quads0;
};

// The member holding row-tile slot `slot` (warp-wide, as find_member). The last search round
// loads every candidate's entries with its prefix and the answer's lane hands them out: one
// memory round trip for groups of up to 32 members instead of two. A slot past the live tiles
// (or a bad layout's map) gives some member's entries, for the caller to discard: lane 0's
// candidate always qualifies (tile0[0] = 0, and lo only moves to a qualifying index), so every
// read stays in [0, n].
__device__ inline Member find_member_of_slot(const MemberMap& g, int64_t slot) {
  int64_t lo, hi;
  narrow_members(g.tile0, g.n, slot, &lo, &hi);
  const int64_t idx = lo + (threadIdx.x & 31);
  Member c{idx, 0, 0, 0, 0};
  if (idx < hi) c = {idx, g.tile0[idx], g.row0[idx], g.row0[idx + 1], g.col_quads0[idx]};
  const int w = last_le_lane(idx < hi && c.tile0 <= slot);
  return {__shfl_sync(0xFFFFFFFFu, c.t, w), __shfl_sync(0xFFFFFFFFu, c.tile0, w), __shfl_sync(0xFFFFFFFFu, c.row0, w),
          __shfl_sync(0xFFFFFFFFu, c.row_end, w), __shfl_sync(0xFFFFFFFFu, c.quads0, w)};
}

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
  const int64_t live = *g.live_tiles;  // loaded alongside the search's first loads
  const Member mb = find_member_of_slot(g, slot);
  if (slot >= live) return false;
  const int64_t t = mb.t, r0 = mb.row0, k = whole.cols;
  *tile = (slot - mb.tile0) * whole.col_tiles + block % whole.col_tiles;
  // Copied here, after the exits: copied first, nvcc 13.0 dropped the x offset below once
  // TileArgs grew from 128 to 136 bytes (members read member 0's rows; the grouped tests caught it).
  *m = whole;
  m->x = static_cast<const typename T::Raw*>(whole.x) + r0 * k;
  m->rows = mb.row_end - r0;
  m->sr_base = static_cast<uint64_t>(r0 * k / kBlock);
  if (whole.row_codes != nullptr) {
    m->row_codes += r0 * k / 2;
    m->row_scales += mb.tile0 * kTile * whole.row_scale_cols;
  }
  if (whole.row_amax != nullptr) m->row_amax += r0;
  if (whole.col_codes != nullptr) {
    m->col_codes += r0 * k / 2;
    m->col_scales += mb.quads0 * 4 * num::scale_rows_padded(k);
    m->col_scale_cols = num::scale_cols_padded(m->rows / kBlock);
  }
  if (whole.col_amax != nullptr) m->col_amax += t * k;
  return true;
}

}  // namespace lowp::cuda::nvfp4
