// NVFP4 per-token K1 (numerics §5; row-scaled's too, §5b): the outer amaxes of both orientations
// in one read of x, over 128 x 128 tiles (of the whole matrix, or of each group member: see
// launch()). Rows reduce across the lanes of a tile row, columns across the tile's 16-row groups;
// each tile folds its partial maxima into the zeroed outputs with one atomic per row and per
// column (bits order as floats, so the result does not depend on tile order and equals the CPU's
// fold).
#include <type_traits>

#include "core/backends.h"
#include "cuda/common/timeline.cuh"
#include "cuda/group/nvfp4_member_lookup.cuh"
#include "cuda/nvfp4/heuristics.h"
#include "cuda/nvfp4/launch.h"
#include "cuda/nvfp4/tile_thread.cuh"

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

// Groups walk whole-matrix tiles when every 16-row group lies in one member (the rows are
// multiples of 16, or no column amax is made): the launch has exactly the single tensor's tiles,
// and the member lookup runs while the tile loads. Row amaxes do not depend on the member; each
// tile folds its column maxima once per member its row groups cover. member_of[q]: the member of
// row group q (a partial last tile's missing groups: the last row's member, folding zeros).
// Returns the layout's validity (false: nothing may be written); every thread must call it.
template <typename T, typename Members>
__device__ bool locate_row_groups(const TileArgs& whole, const Members& g, int64_t tr, int64_t* member_of) {
  constexpr int kWarps = Geometry<T>::kThreads / 32;
  const MemberMap m = map_of(g);  // a copy: a reference to the parameter compiled worse
  const int warp = threadIdx.x / 32;
  const auto first_row = [&](int q) { return min(tr * kTile + q * kBlock, whole.rows - 1); };
  if (m.n <= kWarpScanMembers) {
    const WarpScan w = scan_members_warp(rows_of(g), m.n, m.total_rows, m.row_multiple);
    const int64_t row0 = static_cast<int64_t>(w.before.v[0]);
    const bool member = (threadIdx.x & 31) < m.n;
    for (int q = warp; q < Geometry<T>::kRowGroups; q += kWarps) {
      const int t = last_le_lane(member && row0 <= first_row(q));  // an empty member is never the last
      if ((threadIdx.x & 31) == 0) member_of[q] = t;
    }
    return scan_valid(w, m.total_rows);
  }
  // The prep's map (after the wait for the prep); a bad layout's prefixes may not grow, so
  // they are searched only when it is valid.
  if (*m.live_tiles == 0) return false;
  for (int q = warp; q < Geometry<T>::kRowGroups; q += kWarps) {
    const int64_t t = find_member(m.row0, m.n, first_row(q));
    if ((threadIdx.x & 31) == 0) member_of[q] = t;
  }
  return true;
}

// Members: MemberMap, or InlineMembers (groups of host rows). kWholeTiles (groups): launch block
// b takes tile b of the whole matrix (locate_row_groups); else block b takes the b-th tile of the
// member walk (member_tile; a single tensor: its own tiles). kBf16 (with kRht): row-scaled's
// column amaxes, rounded to bf16.
template <typename T, bool kRht, bool kWholeTiles, typename Members, bool kBf16 = false>
__global__ void __launch_bounds__(Geometry<T>::kThreads) token_amax_tile_kernel(TileArgs whole, Members g) {
  using G = Geometry<T>;
  __shared__ uint32_t col_part[G::kRowGroups][kTile];
  __shared__ int64_t member_of[G::kRowGroups];
  TileArgs a = whole;
  int64_t tile = blockIdx.x;
  const timeline::Block tl = timeline::enter(timeline::kTokenAmax);
  if constexpr (!kWholeTiles) {
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
  }
  const RegisterTile<T> t(a, tile);
  wait_for_predecessor();  // the zeroed amaxes (and the prep's map)
  tl.stamp(timeline::kWaited);
  allow_dependents();      // K2 may start loading x (it waits for this launch to finish)
  // The lookup after the release, so K2's launch does not wait for the member rows' load.
  if (kWholeTiles && !locate_row_groups<T>(whole, g, t.tr, member_of)) {  // a bad layout: nothing written
    tl.stamp(timeline::kExit);
    return;
  }
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
    const int64_t c = t.tc * kTile + i;
    if (c >= a.cols) continue;
    // The member walk's tile lies in one matrix, whose col_amax member_tile has offset.
    const auto member = [&](int q) { return kWholeTiles ? member_of[q] : int64_t{0}; };
    int64_t cur = member(0);
    uint32_t m = 0;
#pragma unroll
    for (int q = 0; q < G::kRowGroups; ++q) {
      if (const int64_t mq = member(q); mq != cur) {  // a member boundary inside the tile
        atomic_fold(a.col_amax + cur * a.cols + c, token_col_amax_bits<kRht, kBf16>(m));
        cur = mq;
        m = 0;
      }
      m = max(m, col_part[q][i]);
    }
    atomic_fold(a.col_amax + cur * a.cols + c, token_col_amax_bits<kRht, kBf16>(m));
  }
  tl.stamp(timeline::kExit);
}

// Launched early: K1 always follows the amax zeroing (or the group prep) on its stream.
template <typename T, bool kWholeTiles>
lowp_status launch_tiles(const TileArgs& a, bool rht, bool rht_bf16, const GroupLaunch& g, cudaStream_t st) {
  unsigned blocks = 0;
  LOWP_TRY(launch_blocks(a, kWholeTiles ? MemberMap{} : g.map(), "nvfp4 per-token amax", &blocks));
  if (blocks == 0) return LOWP_SUCCESS;
  const auto go = [&](const auto& members) {
    using Members = std::decay_t<decltype(members)>;
    const auto kernel = !rht       ? token_amax_tile_kernel<T, false, kWholeTiles, Members>
                        : rht_bf16 ? token_amax_tile_kernel<T, true, kWholeTiles, Members, true>
                                   : token_amax_tile_kernel<T, true, kWholeTiles, Members>;
    LOWP_TRY(prefer_shared_carveout(kernel, "nvfp4 per-token amax: carveout"));
    return launch_kernel(kernel, blocks, Geometry<T>::kThreads, 0, st, true, "nvfp4 per-token amax tile kernel", a, members);
  };
  return g.rows_inline ? go(g.members) : go(g.map());
}

}  // namespace

lowp_status token_amax(const TileArgs& a, lowp_dtype in, bool rht, cudaStream_t st, const GroupLaunch& g,
                       bool rht_bf16) {
  if (token_amax_tile_path_ok(a.x, a.cols, in)) {
    // Whole-matrix tiles need every 16-row group of x in one member: member rows multiples of 16
    // (always with RHT, whose column amax runs on 16-row strips), or no column amaxes to split.
    const MemberMap& m = g.map();
    const bool whole = heuristics::k1_whole_matrix_tiles(m.n > 0, rht || a.col_amax == nullptr || m.row_multiple % kBlock == 0);
    return with_input_type(in, [&](auto t) {
      return with_flags([&](auto w) { return launch_tiles<decltype(t), decltype(w)::value>(a, rht, rht_bf16, g, st); },
                        whole);
    });
  }
  if (g.map().n != 0) return fail(LOWP_ERROR_UNSUPPORTED, "nvfp4 grouped per-token amax: the tile path needs x and its rows 16-byte aligned");
  const DenseView x{a.x, in, a.rows, a.cols};
  float* plain_col = rht ? nullptr : a.col_amax;
  if (a.row_amax != nullptr || plain_col != nullptr) LOWP_TRY(amax_per_token(x, a.row_amax, plain_col, st));
  if (rht && a.col_amax != nullptr) LOWP_TRY(token_rht_amax_blocks(a, in, rht_bf16, st));
  return LOWP_SUCCESS;
}

}  // namespace lowp::cuda::nvfp4
