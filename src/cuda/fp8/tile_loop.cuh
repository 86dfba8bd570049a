// The persistent tile loop behind every FP8 cast and tile-based amax pass, single tensor or
// grouped. A Source maps a global tile index to a Job (which matrix, which tile, which scales);
// the loop folds amaxes per matrix (one block reduction + one atomic whenever the matrix
// changes, so a single tensor pays one at the end).
#pragma once
#include <algorithm>

#include "cuda/fp8/cast_tile.cuh"
#include "cuda/fp8/heuristics.h"

namespace lowp::cuda {

enum class LoopMode { kCast, kAmax };

// Per-tensor state of the matrix a tile belongs to. Null pointers: not used by this recipe.
struct TileJob {
  TileMatrix m;
  TileScales s;
  int64_t tr, tc;
  int64_t matrix;   // index of the tensor / group member (changes trigger an amax flush)
  float* amax_out;  // delayed: fold target; amax pass: result; else null
  bool owner;       // tile (0, 0): writes the matrix's scalar outputs below
  float* scale_out;      // current scaling: the derived scale
  float* scale_inv_out;  // per-tensor: 1 / scale
};

// Occupancy keeps enough loads in flight (fp8::heuristics::tile_loop_min_blocks).
template <int kThreads, int kAct>
constexpr int kMinBlocks = fp8::heuristics::tile_loop_min_blocks(kThreads, kAct != kActNone);

template <typename T, bool kE4M3, int kAct, LoopMode kMode, typename Source>
__global__ void __launch_bounds__(CastTile<T, kE4M3, kAct>::kThreads, (kMinBlocks<CastTile<T, kE4M3, kAct>::kThreads, kAct>))
    tile_loop_kernel(Source src) {
  using CT = CastTile<T, kE4M3, kAct>;
  __shared__ typename CT::Smem sm;
  const int64_t tiles = src.tiles();
  uint32_t acc = 0;
  int64_t acc_matrix = -1;
  float* acc_target = nullptr;
  auto flush = [&]() {
    const uint32_t m = block_max(acc, sm.scratch);
    if (threadIdx.x == 0 && acc_target != nullptr) atomic_fold(acc_target, m);
    acc = 0;
  };
  typename CT::Loaded cur;
  __shared__ int64_t claimed[2];  // alternating slots: one barrier per claim suffices
  int slot = 0;
  for (int64_t tile = blockIdx.x; tile < tiles;) {
    const TileJob job = src.job(tile);
    const bool vec = CT::vector_ok(job.m);  // per matrix: group members differ
    if (vec) CT::load(job.m, job.tr, job.tc, cur);
    const bool folds = job.amax_out != nullptr;  // uniform across the block
    if (job.matrix != acc_matrix) {
      if (acc_target != nullptr) flush();
      acc_matrix = job.matrix;
      acc_target = folds ? job.amax_out : nullptr;
    }
    if constexpr (kMode == LoopMode::kCast) {
      if (job.owner && threadIdx.x == 0) {
        if (job.scale_out) *job.scale_out = job.s.tensor_scale;
        if (job.scale_inv_out) *job.scale_inv_out = num::reciprocal_rn(job.s.tensor_scale);
      }
      if (vec) {
        if (folds) acc = max(acc, CT::amax_of(cur));
        CT::store(job.m, job.s, job.tr, job.tc, cur, sm);
      } else {
        acc = max(acc, CT::scalar(job.m, job.s, job.tr, job.tc, false));
      }
    } else {
      acc = max(acc, vec ? CT::amax_of(cur) : CT::scalar(job.m, job.s, job.tr, job.tc, true));
    }
    if constexpr (Source::kClaimsTiles) {
      if (threadIdx.x == 0) claimed[slot] = gridDim.x + static_cast<int64_t>(atomicAdd(src.claim_counter, 1ull));
      __syncthreads();
      tile = claimed[slot];
      slot ^= 1;
    } else {
      tile += gridDim.x;
    }
  }
  if (acc_target != nullptr) flush();
}

// Launches the loop. When the host knows the tile count (`exact`), one block per tile: the
// hardware scheduler balances the tail. Otherwise (group layouts in device memory) a persistent
// grid: as many blocks as fit on the GPU at once (cached per instantiation), at most
// `max_tiles` (an upper bound of src.tiles()).
template <typename T, bool kE4M3, int kAct, LoopMode kMode, typename Source>
lowp_status launch_tile_loop(const Source& src, int64_t max_tiles, bool exact, cudaStream_t stream, const char* op) {
  constexpr int kThreads = CastTile<T, kE4M3, kAct>::kThreads;
  const auto kernel = tile_loop_kernel<T, kE4M3, kAct, kMode, Source>;
  int64_t grid = max_tiles;
  if (!exact) {
    static int per_sm = 0;
    if (per_sm == 0) {
      int n = 0;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreads, 0) != cudaSuccess || n < 1) n = 1;
      per_sm = n;
    }
    grid = std::min<int64_t>(max_tiles, int64_t{per_sm} * sm_count());
  }
  grid = std::max<int64_t>(1, grid);
  kernel<<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(src);
  return check_launch(op);
}

}  // namespace lowp::cuda
