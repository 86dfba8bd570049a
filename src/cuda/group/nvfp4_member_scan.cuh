// The members of a grouped NVFP4 per-token call as a scan counts them (each member's rows, row
// tiles and columnwise scale quads), and the one-warp form of the member walk (member_scan.cuh)
// for groups of up to 32 members: each member's first row, row tile and columnwise scale quad, and
// the layout check of group_layout_rules.h. The group prep builds small groups' member maps with
// it; K1, the encode's lookup and the fused first pass run it themselves, so that they need no
// map and may load their tiles before the prep has finished. It cannot be the block-wide walk:
// that one's barriers and shared memory would cost every tile of those kernels.
#pragma once
#include <climits>

#include "core/group_layout_rules.h"
#include "cuda/group/nvfp4_members.h"  // kWarpScanMembers
#include "cuda/nvfp4/tile_args.h"      // kTile, kBlock

namespace lowp::cuda::nvfp4 {

__device__ __forceinline__ unsigned long long ceil_div(int64_t m, int64_t d) {
  return m > 0 ? static_cast<unsigned long long>((m + d - 1) / d) : 0ull;
}

// A member's rows, row tiles and columnwise scale quads, summed together by one scan.
struct Counts {
  unsigned long long v[3];
};
__device__ __forceinline__ Counts operator+(const Counts& a, const Counts& b) {
  return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]}};
}
__device__ __forceinline__ Counts counts_of(int64_t rows) {
  return {{static_cast<unsigned long long>(rows), ceil_div(rows, kTile), ceil_div(rows, 4 * kBlock)}};
}

// A group of up to 32 members as one warp scans it (shuffles, no barriers): each lane's
// exclusive sums, the totals, and the first bad member (ULLONG_MAX: none).
struct WarpScan {
  Counts before, sum;
  unsigned long long first_bad;
  int64_t rows;  // the lane's member's rows (0 past n)
};

__device__ inline WarpScan scan_members_warp(const int64_t* rows, int64_t n, int64_t total, int64_t multiple) {
  const int lane = threadIdx.x & 31;
  const int64_t m = lane < n ? rows[lane] : 0;
  const Counts own = counts_of(m);
  Counts inc = own;
#pragma unroll
  for (int o = 1; o < kWarpScanMembers; o <<= 1) {
    Counts up;
#pragma unroll
    for (int q = 0; q < 3; ++q) up.v[q] = __shfl_up_sync(0xFFFFFFFFu, inc.v[q], o);
    if (lane >= o) inc = inc + up;
  }
  WarpScan w;
  w.before = inc;  // the exclusive sums: inc less the lane's own counts
#pragma unroll
  for (int q = 0; q < 3; ++q) w.before.v[q] -= own.v[q];
  const bool ok = member_rows_ok(m, static_cast<int64_t>(w.before.v[0]), total, multiple);
  const unsigned bad = __ballot_sync(0xFFFFFFFFu, lane < n && !ok);
#pragma unroll
  for (int q = 0; q < 3; ++q) w.sum.v[q] = __shfl_sync(0xFFFFFFFFu, inc.v[q], 31);  // lanes past n add 0
  w.first_bad = bad != 0 ? static_cast<unsigned long long>(__ffs(bad) - 1) : ULLONG_MAX;
  w.rows = m;
  return w;
}

// The layout rule on a scan's results: no member breaks the rules (first_bad: ULLONG_MAX) and
// the rows sum to the total.
__device__ __forceinline__ bool layout_ok(unsigned long long first_bad, const Counts& sum, int64_t total) {
  return first_bad == ULLONG_MAX && static_cast<int64_t>(sum.v[0]) == total;
}

__device__ inline bool scan_valid(const WarpScan& w, int64_t total) { return layout_ok(w.first_bad, w.sum, total); }

}  // namespace lowp::cuda::nvfp4
