// Tile -> member lookup of the grouped kernels: which member a global tile belongs to, from the
// prefix sums of the members' tile counts. The work per lookup does not depend on N.
#pragma once
#include <cstdint>

namespace lowp::cuda {

// The member t with prefix[t] <= tile < prefix[t + 1] (prefix non-decreasing, prefix[0] = 0 <=
// tile < prefix[n]); empty members, whose range is empty, are never returned. A warp-wide
// 32-ary search: every lane of the warp must call it, and every lane gets the result.
__device__ inline int64_t find_member(const int64_t* prefix, int64_t n, int64_t tile) {
  const int lane = threadIdx.x & 31;
  int64_t lo = 0, hi = n;  // invariant: prefix[lo] <= tile, answer in [lo, hi)
  while (hi - lo > 1) {
    const int64_t step = (hi - lo + 31) / 32;
    const int64_t idx = lo + lane * step;
    const bool le = idx < hi && prefix[idx] <= tile;
    const unsigned ballot = __ballot_sync(0xFFFFFFFFu, le);
    const int last = 31 - __clz(ballot);
    lo += last * step;
    hi = min(hi, lo + step);
  }
  return lo;
}

}  // namespace lowp::cuda
