// Device-side set-up of a grouped NVFP4 per-token call: the member map in the workspace (host
// member_rows are copied there first), checked with the host's rules (group_layout_rules.h), and
// the zeroing of the amax arrays K1 folds into, all in one launch, so device member_rows need no
// host sync and the call stays graph-capturable. A bad layout leaves its status and zero live
// tiles, and nothing zeroed: every later kernel of the call exits without writing. Host rows of
// up to 32 members skip all of it but the zeroing: the kernels take them as parameters.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <climits>

#include "core/group_layout_rules.h"
#include "core/grouped_args.h"
#include "cuda/common/common.cuh"
#include "cuda/group/member_scan.cuh"
#include "cuda/group/nvfp4_member_scan.cuh"
#include "cuda/group/nvfp4_prep.h"
#include "cuda/common/timeline.cuh"

namespace lowp::cuda::nvfp4 {
namespace {

constexpr int kPrepThreads = 1024;

// Workspace words (lowp::grouped_workspace_bytes covers them): [0] status (0, or the first bad
// member + 1), [1] live row tiles, then the map's arrays row0, tile0, col_quads0 ([n + 1] each),
// then n words of host member_rows copied to the device: array q = 0..3 of map_array.
__host__ __device__ int64_t* map_array(int64_t* ws, int64_t n, int q) { return ws + kGroupedWsHeader + q * (n + 1); }

// Entry t of the map's three arrays: the sums before member t (t = n: all of them).
__device__ void store_entry(int64_t* ws, int64_t n, int64_t t, const Counts& before) {
#pragma unroll
  for (int q = 0; q < 3; ++q) map_array(ws, n, q)[t] = static_cast<int64_t>(before.v[q]);
}

// The map's end entries and the status (first_bad: ULLONG_MAX when none).
__device__ void finish_member_map(int64_t* ws, int64_t n, int64_t total, const Counts& sum, unsigned long long first_bad) {
  store_entry(ws, n, n, sum);
  const bool valid = layout_ok(first_bad, sum, total);
  // Only the sum failing (the members end short of total): the last member is reported.
  const int64_t bad = first_bad != ULLONG_MAX ? static_cast<int64_t>(first_bad) : n - 1;
  ws[0] = valid ? 0 : bad + 1;
  ws[1] = valid ? static_cast<int64_t>(sum.v[1]) : 0;
}

// A member as the block-wide walk loads it: its rows and what they count.
struct LoadedMember {
  int64_t rows;
  Counts counts;
};

// Block 0: the member map and the status, by the block-wide member walk (member_scan.cuh) with
// the rule of group_layout_rules.h.
__device__ void build_member_map(const int64_t* rows, int64_t n, int64_t total, int64_t multiple, int64_t* ws) {
  const MemberWalk<Counts> w = scan_members_block<kPrepThreads, Counts>(
      n, [&](int64_t t) { return LoadedMember{rows[t], counts_of(rows[t])}; },
      [&](int64_t t, const LoadedMember& m, const Counts& before) {
        store_entry(ws, n, t, before);
        return member_rows_ok(m.rows, static_cast<int64_t>(before.v[0]), total, multiple);
      });
  if (threadIdx.x == 0) finish_member_map(ws, n, total, w.sum, w.first_bad);
}

// build_member_map for groups of up to 32 members: one warp.
__device__ void build_member_map_warp(const int64_t* rows, int64_t n, int64_t total, int64_t multiple, int64_t* ws) {
  const WarpScan w = scan_members_warp(rows, n, total, multiple);
  if (static_cast<int64_t>(threadIdx.x) < n) store_entry(ws, n, threadIdx.x, w.before);
  if (threadIdx.x == 0) finish_member_map(ws, n, total, w.sum, w.first_bad);
}

// The layout check without the map, for the zeroing blocks of groups of more than 32 members,
// which need only the verdict: a reduction, not the member walk. The walk's scan in every
// zeroing block cost grouped N = 64 about 1.3 us at 1024 x 2048 (docs/perf/grouped.md). The rule
// is layout_ok's in another form: with every member's rows >= 0 (and % multiple == 0) the
// prefixes grow, so "each member ends inside total" and "the last ends at total" together say
// the rows sum to total. The sum saturates at total + 1.
__device__ bool layout_valid(const int64_t* rows, int64_t n, int64_t total, int64_t multiple) {
  using Reduce = cub::BlockReduce<unsigned long long, kPrepThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const unsigned long long cap = static_cast<unsigned long long>(total) + 1;
  const auto add = [cap](unsigned long long a, unsigned long long b) { return min(a + b, cap); };
  bool bad = false;
  unsigned long long sum = 0;
  for (int64_t t = threadIdx.x; t < n; t += kPrepThreads) {
    const int64_t m = rows[t];
    bad |= m < 0 || m % multiple != 0;
    sum = add(sum, m < 0 ? 0 : min(static_cast<unsigned long long>(m), cap));
  }
  sum = Reduce(storage).Reduce(sum, add);
  __shared__ bool valid;
  const int any_bad = __syncthreads_or(bad);
  if (threadIdx.x == 0) valid = !any_bad && sum == static_cast<unsigned long long>(total);
  __syncthreads();
  return valid;
}

// Element `first` of z's two arrays, then every stride-th.
__device__ void zero_share(const GroupAmaxes& z, int64_t first, int64_t stride) {
  for (int64_t i = first; i < z.row_n; i += stride) z.row[i] = 0.0f;
  for (int64_t i = first; i < z.col_n; i += stride) z.col[i] = 0.0f;
}

// The first kernel of a call, launched early: it waits for whatever ran before it on the stream
// (which may write the amax arrays, x or the member rows) before it lets K1 start loading x.
__global__ void zero_amaxes_kernel(GroupAmaxes z) {
  const timeline::Block tl = timeline::enter(timeline::kPrep);
  wait_for_predecessor();
  tl.stamp(timeline::kWaited);
  allow_dependents();  // K1 may start loading x (it waits for the zeros before folding)
  zero_share(z, blockIdx.x * int64_t{blockDim.x} + threadIdx.x, int64_t{gridDim.x} * blockDim.x);
  tl.stamp(timeline::kExit);
}

// The layout's validity as block 0 finds it (finish_member_map's status is 0): groups of up
// to 32 members by block 0's own warp scan, larger ones by layout_valid's reduction.
__device__ bool group_valid(const int64_t* rows, int64_t n, int64_t total, int64_t multiple) {
  if (n > kWarpScanMembers) return layout_valid(rows, n, total, multiple);
  __shared__ bool valid;
  if (threadIdx.x < kWarpScanMembers) {
    const WarpScan w = scan_members_warp(rows, n, total, multiple);
    if (threadIdx.x == 0) valid = scan_valid(w, total);
  }
  __syncthreads();
  return valid;
}

// Every block but block 0 zeroes its share of the amax arrays when the layout is valid.
__global__ void __launch_bounds__(kPrepThreads) group_prep_kernel(const int64_t* rows, int64_t n, int64_t total,
                                                                  int64_t multiple, int64_t* ws, GroupAmaxes z) {
  const timeline::Block tl = timeline::enter(timeline::kPrep);
  wait_for_predecessor();  // launched early, as zero_amaxes_kernel
  tl.stamp(timeline::kWaited);
  allow_dependents();      // K1 waits for the map before reading it
  if (blockIdx.x == 0) {
    if (n > kWarpScanMembers) build_member_map(rows, n, total, multiple, ws);
    else if (threadIdx.x < kWarpScanMembers) build_member_map_warp(rows, n, total, multiple, ws);
    tl.stamp(timeline::kExit);
    return;
  }
  if (!group_valid(rows, n, total, multiple)) {
    tl.stamp(timeline::kExit);
    return;
  }
  zero_share(z, (blockIdx.x - 1) * int64_t{kPrepThreads} + threadIdx.x, int64_t{gridDim.x - 1} * kPrepThreads);
  tl.stamp(timeline::kExit);
}

// Zeroing blocks of kPrepThreads: one per 16K floats, at most 2 per SM.
unsigned zeroing_blocks(const GroupAmaxes& z) {
  return static_cast<unsigned>(std::min<int64_t>((z.row_n + z.col_n + 16383) / 16384, int64_t{sm_count()} * 2));
}

// Row-tile slots of any valid split of `total` rows into n members whose rows are multiples of
// `multiple` (<= kTile, a power of two): ceil(M_t / 128) <= (M_t + 128 - multiple) / 128 over at
// most min(n, total / multiple) non-empty members. With 128 it is total / 128: no surplus slot.
int64_t slot_bound(int64_t total, int64_t n, int64_t multiple) {
  const int64_t nonempty = std::min(n, total / multiple);
  return (total + (kTile - multiple) * nonempty) / kTile;
}

// Row-tile slots to launch: exact from host rows (the API has checked them), so no surplus block;
// device rows: the bound of every valid split.
int64_t launch_slots(const Nvfp4GroupRows& g, int64_t total, int64_t multiple) {
  if (g.rows_on_device) return slot_bound(total, g.n, multiple);
  int64_t slots = 0;
  for (int64_t t = 0; t < g.n; ++t) slots += tile_count(g.member_rows[t]);
  return slots;
}

}  // namespace

lowp_status prepare_group(const Nvfp4GroupRows& g, int64_t total_rows, const GroupAmaxes& zero,
                          cudaStream_t st, GroupLaunch* out) {
  const int64_t multiple = std::max<int64_t>(g.row_multiple, 1);  // the API sets >= 1; 0 would divide by 0
  *out = {};
  if (!g.rows_on_device && g.n <= kWarpScanMembers) {
    MemberMap& m = out->members.map;
    m.n = g.n;
    m.slot_bound = launch_slots(g, total_rows, multiple);
    m.total_rows = total_rows;
    m.row_multiple = multiple;
    std::copy(g.member_rows, g.member_rows + g.n, out->members.rows);
    out->rows_inline = true;
    return zero.row_n + zero.col_n > 0 ? zero_amaxes(zero, st) : LOWP_SUCCESS;
  }
  auto* ws = static_cast<int64_t*>(g.workspace);
  const int64_t* rows = g.member_rows;
  if (!g.rows_on_device) {
    int64_t* copy = map_array(ws, g.n, 3);
    LOWP_TRY(check_cuda(cudaMemcpyAsync(copy, g.member_rows, sizeof(int64_t) * g.n, cudaMemcpyHostToDevice, st),
                        "nvfp4 grouped: copy member_rows"));
    rows = copy;
  }
  LOWP_TRY(launch_kernel(group_prep_kernel, 1 + zeroing_blocks(zero), kPrepThreads, 0, st, true, "nvfp4 grouped prep kernel",
                         rows, g.n, total_rows, multiple, ws, zero));
  out->members.map = {g.n,    map_array(ws, g.n, 0), map_array(ws, g.n, 1), map_array(ws, g.n, 2),
                       ws + 1, launch_slots(g, total_rows, multiple), rows, total_rows, multiple};
  out->worst_split_sized = g.rows_on_device && out->members.map.slot_bound > tile_count(total_rows);
  return LOWP_SUCCESS;
}

lowp_status zero_amaxes(const GroupAmaxes& z, cudaStream_t st) {
  // At least one block even with nothing to zero: K1 launches early after it (it must follow a
  // kernel of ours, not the producer of x).
  const unsigned blocks = std::max(1u, zeroing_blocks(z));
  return launch_kernel(zero_amaxes_kernel, blocks, kPrepThreads, 0, st, true, "nvfp4 per-token: zero amaxes", z);
}

}  // namespace lowp::cuda::nvfp4
