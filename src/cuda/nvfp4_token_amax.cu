// NVFP4 per-token K1 (SPEC §5): the outer amaxes of both orientations in one read of x, over the
// same 128 x 128 tiles as the encode (and the same member walk for groups). Rows reduce across
// the lanes of a tile row, columns across the tile's 16-row groups; each tile folds its partial
// maxima into the zeroed outputs with one atomic per row and per column (bits order as floats,
// so the result does not depend on tile order and equals the CPU's fold).
#include "common/backends.h"
#include "nvfp4_launch.h"
#include "timeline.cuh"

namespace lowp::cuda::nvfp4 {
namespace {

// Lanes cl of a tile row hold v[0..kN) each; afterwards v[0] of lane cl is the max over the
// kLanes lanes of row cl / (kLanes / 16). A reduce-scatter: each step halves the values a lane
// keeps and exchanges the other half, 15 shuffles in all for 16 lanes instead of 64.
template <int kN, int kStride>
__device__ __forceinline__ void reduce_scatter(uint32_t (&v)[kBlock], int cl) {
  if constexpr (kStride >= 1) {
    const bool upper = (cl & kStride) != 0;
    if constexpr (kN > 1) {
#pragma unroll
      for (int i = 0; i < kN / 2; ++i) {
        const uint32_t keep = upper ? v[i + kN / 2] : v[i], send = upper ? v[i] : v[i + kN / 2];
        v[i] = max(keep, __shfl_xor_sync(0xFFFFFFFFu, send, kStride));
      }
      reduce_scatter<kN / 2, kStride / 2>(v, cl);
    } else {
      v[0] = max(v[0], __shfl_xor_sync(0xFFFFFFFFu, v[0], kStride));
      reduce_scatter<1, kStride / 2>(v, cl);
    }
  }
}

// Members: MemberMap, or InlineMembers (groups of host rows).
template <typename T, bool kRht, typename Members>
__global__ void __launch_bounds__(Geometry<T>::kThreads) token_amax_tile_kernel(TileArgs whole, Members g) {
  using G = Geometry<T>;
  __shared__ uint32_t col_part[G::kRowGroups][kTile];
  TileArgs a;
  int64_t tile;
  const timeline::Block tl = timeline::enter(timeline::kTokenAmax);
  // Groups of more than 32 members read the prep launch's member map; smaller ones scan the
  // member rows themselves and load their tile before the prep has finished.
  if (map_of(g).n > kWarpScanMembers) wait_for_predecessor();
  if (!member_tile<T, false, true>(whole, g, blockIdx.x, &a, &tile)) {
    // K2 reads the prep's map before it waits: it may launch only once every K1 block is past
    // the prep, even when none has a tile (a bad layout).
    wait_for_predecessor();
    tl.stamp(timeline::kExit);
    return;
  }
  const RegisterTile<T> t(a, tile);
  wait_for_predecessor();  // the zeroed amaxes
  tl.stamp(timeline::kWaited);
  allow_dependents();      // K2 may start loading x (it waits for this launch to finish)
  if (a.row_amax != nullptr) {
    uint32_t v[kBlock];
#pragma unroll
    for (int j = 0; j < kBlock; ++j) v[j] = widen_folded<T>(fold_raw<T>(0u, t.raw[j]));
    reduce_scatter<kBlock, G::kColLanes / 2>(v, t.cl);
    constexpr int kCopies = G::kColLanes / kBlock;  // lanes left holding the same row
    const int64_t r = t.r0 + t.cl / kCopies;
    if (t.cl % kCopies == 0 && r < a.rows) atomic_fold(a.row_amax + r, v[0]);
  }
  if (a.col_amax == nullptr) {
    tl.stamp(timeline::kExit);
    return;
  }
  uint32_t acc[4] = {0, 0, 0, 0};
  if constexpr (!kRht) {
#pragma unroll
    for (int j = 0; j < kBlock; ++j)
#pragma unroll
      for (int w = 0; w < 4; ++w) acc[w] = fold_raw<T>(acc[w], word_of(t.raw[j], w));
  }
#pragma unroll
  for (int e = 0; e < G::V; ++e) {
    uint32_t bits = 0;
    if constexpr (kRht) {
      float v[kBlock];
#pragma unroll
      for (int j = 0; j < kBlock; ++j) v[j] = element<T>(t.raw[j], e);
      bits = rht_block<true>(v, a.sign_mask);
    } else {
      bits = folded_column_bits<T>(acc[e / kPerWord<T>], e % kPerWord<T>);
    }
    col_part[t.rg][t.cl * G::V + e] = bits;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kTile; i += G::kThreads) {
    uint32_t m = 0;
#pragma unroll
    for (int q = 0; q < G::kRowGroups; ++q) m = max(m, col_part[q][i]);
    const int64_t c = t.tc * kTile + i;
    if (c < a.cols) atomic_fold(a.col_amax + c, token_col_amax_bits<kRht>(m));
  }
  tl.stamp(timeline::kExit);
}

// Launched early: K1 always follows the amax zeroing (or the group prep) on its stream.
template <typename T, typename Members>
lowp_status launch_with(const TileArgs& a, bool rht, const Members& g, unsigned blocks, cudaStream_t st) {
  const auto kernel = rht ? token_amax_tile_kernel<T, true, Members> : token_amax_tile_kernel<T, false, Members>;
  LOWP_TRY(prefer_shared_carveout(kernel, "nvfp4 per-token amax: carveout"));
  return launch_kernel(kernel, blocks, Geometry<T>::kThreads, 0, st, true, "nvfp4 per-token amax tile kernel", a, g);
}

template <typename T>
lowp_status launch(const TileArgs& a, bool rht, const GroupLaunch& g, cudaStream_t st) {
  unsigned blocks = 0;
  LOWP_TRY(launch_blocks(a, g.map(), "nvfp4 per-token amax", &blocks));
  if (blocks == 0) return LOWP_SUCCESS;
  return g.rows_inline ? launch_with<T>(a, rht, g.members, blocks, st) : launch_with<T>(a, rht, g.map(), blocks, st);
}

}  // namespace

lowp_status token_amax(const TileArgs& a, lowp_dtype in, bool rht, cudaStream_t st, const GroupLaunch& g) {
  if (token_amax_tile_path_ok(a.x, a.cols, in)) return with_input_type(in, [&](auto t) { return launch<decltype(t)>(a, rht, g, st); });
  if (g.map().n != 0) return fail(LOWP_ERROR_UNSUPPORTED, "nvfp4 grouped per-token amax: the tile path needs x and its rows 16-byte aligned");
  const DenseView x{a.x, in, a.rows, a.cols};
  float* plain_col = rht ? nullptr : a.col_amax;
  if (a.row_amax != nullptr || plain_col != nullptr) LOWP_TRY(amax_per_token(x, a.row_amax, plain_col, st));
  if (rht && a.col_amax != nullptr) LOWP_TRY(token_rht_amax_blocks(a, in, st));
  return LOWP_SUCCESS;
}

}  // namespace lowp::cuda::nvfp4
