// Device-side set-up of a grouped NVFP4 per-token call: the member map in the workspace (host
// member_rows are copied there first), checked with the host's rules (group_layout_rules.h) by a
// one-block prep kernel, so device member_rows need no host sync and the call stays
// graph-capturable. A bad layout leaves its status and zero live tiles: every later kernel of
// the call exits without writing.
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <climits>

#include "common/group_layout_rules.h"
#include "common/grouped_args.h"
#include "nvfp4_group_prep.h"

namespace lowp::cuda::nvfp4 {
namespace {

constexpr int kPrepThreads = 1024;

// Workspace words (lowp::grouped_workspace_bytes covers them): [0] status (0, or the first bad
// member + 1), [1] live row tiles, then row0, tile0, col_quads0 ([n + 1] each), then n words of
// host member_rows copied to the device.
__host__ __device__ int64_t* row0_of(int64_t* ws) { return ws + kGroupedWsHeader; }

__device__ __forceinline__ unsigned long long ceil_div(int64_t m, int64_t d) {
  return m > 0 ? static_cast<unsigned long long>((m + d - 1) / d) : 0ull;
}

// Sums run in unsigned arithmetic: after a bad member they may wrap, but only the first bad
// member is reported and every prefix before it is a valid partial sum (<= total).
__global__ void __launch_bounds__(kPrepThreads)
    group_prep_kernel(const int64_t* rows, int64_t n, int64_t total, bool rows16, int64_t* ws) {
  using Scan = cub::BlockScan<unsigned long long, kPrepThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ unsigned long long carry[3];
  __shared__ unsigned long long first_bad;
  int64_t* row0 = row0_of(ws);
  int64_t* tile0 = row0 + n + 1;
  int64_t* quads0 = tile0 + n + 1;
  if (threadIdx.x == 0) {
    carry[0] = carry[1] = carry[2] = 0;
    first_bad = ULLONG_MAX;
  }
  __syncthreads();
  for (int64_t base = 0; base < n; base += kPrepThreads) {
    const int64_t t = base + threadIdx.x;
    const int64_t m = t < n ? rows[t] : 0;
    unsigned long long ex[3], sum[3];
    const unsigned long long in[3] = {static_cast<unsigned long long>(m), ceil_div(m, kTile), ceil_div(m, 4 * kBlock)};
#pragma unroll
    for (int q = 0; q < 3; ++q) {
      Scan(scan_storage).ExclusiveSum(in[q], ex[q], sum[q]);
      __syncthreads();  // scan_storage is reused
    }
    if (t < n) {
      const int64_t start = static_cast<int64_t>(carry[0] + ex[0]);
      if (!member_rows_ok(m, start, total, rows16)) atomicMin(&first_bad, static_cast<unsigned long long>(t));
      row0[t] = start;
      tile0[t] = static_cast<int64_t>(carry[1] + ex[1]);
      quads0[t] = static_cast<int64_t>(carry[2] + ex[2]);
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (int q = 0; q < 3; ++q) carry[q] += sum[q];
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  row0[n] = static_cast<int64_t>(carry[0]);
  tile0[n] = static_cast<int64_t>(carry[1]);
  quads0[n] = static_cast<int64_t>(carry[2]);
  unsigned long long bad = first_bad;
  if (bad == ULLONG_MAX && static_cast<int64_t>(carry[0]) != total) bad = static_cast<unsigned long long>(n - 1);
  ws[0] = bad == ULLONG_MAX ? 0 : static_cast<int64_t>(bad) + 1;
  ws[1] = bad == ULLONG_MAX ? static_cast<int64_t>(carry[1]) : 0;
}

__global__ void zero_if_valid_kernel(const int64_t* status, float* p, int64_t n) {
  if (*status != 0) return;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) p[i] = 0.0f;
}

// Row-tile slots of any valid split of `total` rows into n members: sum of ceil(M_t / 128) over
// at most min(n, total) non-empty members.
int64_t slot_bound(int64_t total, int64_t n) {
  const int64_t nonempty = std::min(n, total);
  return (total - nonempty) / kTile + nonempty;
}

}  // namespace

lowp_status prepare_group(const Nvfp4GroupRows& g, int64_t total_rows, bool rows16, cudaStream_t st, MemberMap* out) {
  auto* ws = static_cast<int64_t*>(g.workspace);
  int64_t* row0 = row0_of(ws);
  const int64_t* rows = g.member_rows;
  if (!g.rows_on_device) {
    int64_t* copy = row0 + 3 * (g.n + 1);
    LOWP_TRY(check_cuda(cudaMemcpyAsync(copy, g.member_rows, sizeof(int64_t) * g.n, cudaMemcpyHostToDevice, st),
                        "nvfp4 grouped: copy member_rows"));
    rows = copy;
  }
  group_prep_kernel<<<1, kPrepThreads, 0, st>>>(rows, g.n, total_rows, rows16, ws);
  LOWP_TRY(check_launch("nvfp4 grouped prep kernel"));
  *out = {g.n, row0, row0 + (g.n + 1), row0 + 2 * (g.n + 1), ws, ws + 1, slot_bound(total_rows, g.n)};
  return LOWP_SUCCESS;
}

lowp_status zero_if_valid(const MemberMap& g, float* p, int64_t n, cudaStream_t st) {
  if (p == nullptr || n == 0) return LOWP_SUCCESS;
  const unsigned grid = static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + 255) / 256, int64_t{sm_count()} * 4)));
  zero_if_valid_kernel<<<grid, 256, 0, st>>>(g.status, p, n);
  return check_launch("nvfp4 grouped: zero amaxes");
}

}  // namespace lowp::cuda::nvfp4
