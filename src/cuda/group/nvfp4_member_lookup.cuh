// How a tile kernel's launch block finds its group member (the group as nvfp4_members.h describes
// it): member t's rows [row0[t], row0[t + 1]) of the R x K input are a matrix of their own (numerics
// §5, lowp.h lowp_nvfp4_grouped_quantize), tiled from its own row 0. Launch blocks walk a list of
// row-tile slots, member after member; a slot past the group's live tiles (a bad layout: none)
// exits.
#pragma once
#include <type_traits>

#include "cuda/group/nvfp4_member_scan.cuh"
#include "cuda/group/nvfp4_members.h"
#include "cuda/group/search.cuh"
#include "cuda/nvfp4/tile_args.h"

namespace lowp::cuda::nvfp4 {

__device__ inline const int64_t* rows_of(const MemberMap& g) { return g.rows; }
__device__ inline const int64_t* rows_of(const InlineMembers& g) { return g.rows; }

// Member t of a group and its prefix entries.
struct Member {
  int64_t t, tile0, row0, row_end, quads0;
};

// Lane's candidate lo + lane of [lo, hi) with its prefix entries (t = hi when it has none).
__device__ inline Member load_candidate(const MemberMap& g, int64_t lo, int64_t hi) {
  const int64_t idx = lo + (threadIdx.x & 31);
  if (idx >= hi) return {hi, 0, 0, 0, 0};
  return {idx, g.tile0[idx], g.row0[idx], g.row0[idx + 1], g.col_quads0[idx]};
}

// The member holding `slot` among the candidates (warp-wide): the last one starting at or before
// it. Lane 0's candidate (lo) qualifies for any slot >= 0 (tile0[0] = 0, and the narrowing only
// moves lo to a qualifying index), so the answer is always some member of [0, n).
__device__ inline Member pick_member(const Member& c, int64_t hi, int64_t slot) {
  const int w = last_le_lane(c.t < hi && c.tile0 <= slot);
  return {__shfl_sync(0xFFFFFFFFu, c.t, w), __shfl_sync(0xFFFFFFFFu, c.tile0, w), __shfl_sync(0xFFFFFFFFu, c.row0, w),
          __shfl_sync(0xFFFFFFFFu, c.row_end, w), __shfl_sync(0xFFFFFFFFu, c.quads0, w)};
}

// The end both lookups share: false past the live slots, else the slot of this rank (reversed:
// counted from the last live one) and its member among the candidates c.
template <bool kReverse>
__device__ inline bool pick_live_slot(int64_t rank, int64_t live, const Member& c, int64_t hi, int64_t* slot, Member* mb) {
  if (rank >= live) return false;
  *slot = kReverse ? live - 1 - rank : rank;
  *mb = pick_member(c, hi, *slot);
  return true;
}

// Launch block `block` of a group launch over row-tile slots x col_tiles: its row-tile slot and
// member (warp-wide), or false past the live tiles (a bad layout has none). Forward, block b
// takes slot b / col_tiles; reversed, the live slots are walked from the last one, so the
// launch's surplus blocks (device rows: it is sized for the worst split) still come last and
// exit after the live ones have started. Groups of up to 32 members load their candidates and
// the live count in one memory round trip (the slot is needed only for the pick); larger groups
// read the live count first, since the narrowing rounds read the map at the slot.
template <bool kReverse>
__device__ inline bool locate_slot(const MemberMap& g, int64_t block, int64_t col_tiles, int64_t* slot, Member* mb) {
  const int64_t rank = block / col_tiles;
  int64_t lo = 0, hi = g.n, live = 0;
  if (g.n > kWarpScanMembers) {
    live = *g.live_tiles;
    if (rank >= live) return false;
    narrow_members(g.tile0, g.n, kReverse ? live - 1 - rank : rank, &lo, &hi);
  }
  const Member c = load_candidate(g, lo, hi);
  if (g.n <= kWarpScanMembers) live = *g.live_tiles;
  return pick_live_slot<kReverse>(rank, live, c, hi, slot, mb);
}

// locate_slot for groups of up to 32 members from the member rows themselves (one warp scan,
// the prep's rules) instead of the prep's map: valid before the prep launch has finished.
template <bool kReverse, typename Members>
__device__ inline bool locate_slot_scanned(const Members& members, int64_t block, int64_t col_tiles, int64_t* slot, Member* mb) {
  const MemberMap g = map_of(members);  // a copy: a reference to the parameter compiled worse
  const WarpScan w = scan_members_warp(rows_of(members), g.n, g.total_rows, g.row_multiple);
  const int64_t live = scan_valid(w, g.total_rows) ? static_cast<int64_t>(w.sum.v[1]) : 0;
  const int64_t lane = threadIdx.x & 31;
  const auto at = [&](int q) { return static_cast<int64_t>(w.before.v[q]); };
  const Member c = lane < g.n ? Member{lane, at(1), at(0), at(0) + w.rows, at(2)} : Member{g.n, 0, 0, 0, 0};
  return pick_live_slot<kReverse>(block / col_tiles, live, c, g.n, slot, mb);
}

// Launch block `block` (reversed: counted from the last tile): the matrix it encodes (a
// member's view of the group's arrays, or the whole matrix) and its tile index in that matrix.
// False: nothing to do. Every thread of the launch block must call it (warp-wide search).
// kScan: groups of up to 32 members find their member without the prep's map (InlineMembers
// always: they have none).
template <typename T, bool kReverse, bool kScan = false, typename Members>
__device__ inline bool member_tile(const TileArgs& whole, const Members& members, int64_t block, TileArgs* m, int64_t* tile) {
  constexpr bool kInline = std::is_same_v<Members, InlineMembers>;
  const MemberMap g = map_of(members);  // a copy: a reference to the parameter compiled worse
  const int64_t ct = whole.col_tiles;
  if (g.n == 0) {
    *tile = kReverse ? (whole.rows + kTile - 1) / kTile * ct - 1 - block : block;
    *m = whole;
    return true;
  }
  int64_t slot;
  Member mb;
  const bool scan = kInline || (kScan && g.n <= kWarpScanMembers);
  const bool found = scan ? locate_slot_scanned<kReverse>(members, block, ct, &slot, &mb) : locate_slot<kReverse>(g, block, ct, &slot, &mb);
  if (!found) return false;
  const int64_t t = mb.t, r0 = mb.row0, k = whole.cols;
  *tile = (slot - mb.tile0) * ct + (kReverse ? ct - 1 - block % ct : block % ct);
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
