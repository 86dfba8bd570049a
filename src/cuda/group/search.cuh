// Tile -> member lookup of the grouped kernels: which member a global tile belongs to, from the
// prefix sums of the members' tile counts. The work per lookup does not depend on N.
#pragma once
#include <cstdint>

namespace lowp::cuda {

// Narrows [lo, hi) = [0, n) to at most 32 candidates holding the member t with prefix[t] <=
// tile < prefix[t + 1] (prefix non-decreasing, prefix[0] = 0 <= tile < prefix[n]; empty members,
// whose range is empty, are never it). A warp-wide 32-ary search: every lane of the warp must
// call it, and every lane gets the result. The work does not depend on N.
__device__ inline void narrow_members(const int64_t* prefix, int64_t n, int64_t tile, int64_t* lo_out, int64_t* hi_out) {
  const int lane = threadIdx.x & 31;
  int64_t lo = 0, hi = n;  // invariant: prefix[lo] <= tile, answer in [lo, hi)
  while (hi - lo > 32) {
    const int64_t step = (hi - lo + 31) / 32;
    const int64_t idx = lo + lane * step;
    const bool le = idx < hi && prefix[idx] <= tile;
    const unsigned ballot = __ballot_sync(0xFFFFFFFFu, le);
    const int last = 31 - __clz(ballot);
    lo += last * step;
    hi = min(hi, lo + step);
  }
  *lo_out = lo;
  *hi_out = hi;
}

// The lane of the last candidate lo + lane < hi whose `le` (prefix[lo + lane] <= tile) holds:
// the answer's lane after narrow_members (lane 0, lo itself, always holds).
__device__ inline int last_le_lane(bool le) { return 31 - __clz(__ballot_sync(0xFFFFFFFFu, le)); }

// The member t with prefix[t] <= tile < prefix[t + 1] (narrow_members' contract).
__device__ inline int64_t find_member(const int64_t* prefix, int64_t n, int64_t tile) {
  int64_t lo, hi;
  narrow_members(prefix, n, tile, &lo, &hi);
  const int64_t idx = lo + (threadIdx.x & 31);
  return lo + last_le_lane(idx < hi && prefix[idx] <= tile);
}

}  // namespace lowp::cuda
