// The device-side walk over a group's members that every grouped prep kernel makes (the FP8
// grouped prep, the NVFP4 per-token group prep): one block takes the members in chunks of its
// threads, each thread loads its member, a block-wide exclusive scan gives every member the sums
// of the earlier members' counts, and visit() checks the member against the layout rules
// (core/group_layout_rules.h) with those sums and stores what the caller keeps. Groups of up to 32
// members also have a one-warp form for the kernels that look members up themselves
// (nvfp4_member_scan.cuh, scan_members_warp).
#pragma once
#include <cub/block/block_scan.cuh>

#include <climits>
#include <cstdint>

namespace lowp::cuda {

// What the walk found: the counts of all members, and the first member that broke the rule
// (ULLONG_MAX: none).
template <typename Counts>
struct MemberWalk {
  Counts sum;
  unsigned long long first_bad;
};

// Every thread of the block must call it; every thread gets the result. load(t) -> Item with
// .counts (the member's summand; sums run in the counts' own arithmetic, so after a bad member
// they may be anything, but only the first bad member is reported and every sum before it is
// valid); visit(t, item, before) -> whether member t keeps the rules, `before` the sums of
// members 0..t-1.
template <int kThreads, typename Counts, typename Load, typename Visit>
__device__ MemberWalk<Counts> scan_members_block(int64_t n, Load load, Visit visit) {
  using Scan = cub::BlockScan<Counts, kThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ Counts carry;
  __shared__ unsigned long long first_bad;
  if (threadIdx.x == 0) {
    carry = Counts{};
    first_bad = ULLONG_MAX;
  }
  __syncthreads();
  for (int64_t base = 0; base < n; base += kThreads) {
    const int64_t t = base + threadIdx.x;
    const auto item = t < n ? load(t) : decltype(load(t)){};
    Counts ex, chunk;
    Scan(scan_storage).ExclusiveSum(item.counts, ex, chunk);
    if (t < n && !visit(t, item, carry + ex)) atomicMin(&first_bad, static_cast<unsigned long long>(t));
    __syncthreads();  // carry and scan_storage are reused
    if (threadIdx.x == 0) carry = carry + chunk;
    __syncthreads();
  }
  return {carry, first_bad};
}

}  // namespace lowp::cuda
