// Amax kernels: max|x| over the whole tensor, and per-row / per-column amax in one read of x.
// Results are folded as bit patterns with atomicMax into zeroed outputs, so the result is
// independent of block order and equals the CPU backend bit for bit (NaN included).
#include <algorithm>

#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "cuda/fp8/heuristics.h"

namespace lowp::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kVecsPerThread = fp8::heuristics::kAmaxVectorsPerThread;  // all in flight at once
constexpr int64_t kChunk = int64_t{kThreads} * kVecsPerThread;         // vectors per block

// Aligned x: each block folds one chunk of kChunk vectors (a grid-stride loop over chunks only
// past 2^31 blocks), loaded all at once and folded raw (fold_raw), then one atomic per block:
// many loads in flight and no float conversion per element keep it at the copy bandwidth. Block
// 0 also folds the n % V trailing elements.
template <typename T>
__global__ void __launch_bounds__(kThreads) amax_vec_kernel(const typename T::Raw* x, int64_t n, float* amax) {
  __shared__ uint32_t scratch[kThreads / 32];
  allow_dependents();  // the NVFP4 encode may start loading x (it waits for the amax)
  const int64_t nvec = n / kVec<T>, chunks = (nvec + kChunk - 1) / kChunk;
  const uint4* xv = reinterpret_cast<const uint4*>(x);
  uint32_t raw = 0;
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    const int64_t first = c * kChunk + threadIdx.x;
    uint4 v[kVecsPerThread];
#pragma unroll
    for (int u = 0; u < kVecsPerThread; ++u) {
      const int64_t i = first + int64_t{u} * kThreads;
      v[u] = i < nvec ? __ldg(xv + i) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kVecsPerThread; ++u) raw = fold_raw<T>(raw, v[u]);
  }
  uint32_t acc = widen_folded<T>(raw);
  if (blockIdx.x == 0 && threadIdx.x < n - nvec * kVec<T>) acc = fold(acc, to_f32<T>(x[nvec * kVec<T> + threadIdx.x]));
  acc = block_max(acc, scratch);
  if (threadIdx.x == 0) atomic_fold(amax, acc);
}

// Any alignment: element by element, a persistent grid-stride loop.
template <typename T>
__global__ void __launch_bounds__(kThreads) amax_scalar_kernel(const typename T::Raw* x, int64_t n, float* amax) {
  __shared__ uint32_t scratch[kThreads / 32];
  uint32_t acc = 0;
  const int64_t stride = int64_t{gridDim.x} * kThreads;
  for (int64_t j = blockIdx.x * int64_t{kThreads} + threadIdx.x; j < n; j += stride) acc = fold(acc, to_f32<T>(x[j]));
  acc = block_max(acc, scratch);
  if (threadIdx.x == 0) atomic_fold(amax, acc);
}

// Per-token amax. A block walks `rows_per_block` rows of a column strip of kStrip = 32 lanes x
// kLaneVecs vectors (1 KiB of bf16 per row, read as two warp-contiguous 512-byte loads); each warp
// takes kRowsPerIter rows at a time. Rows fold per warp (one atomic per row per block), columns
// fold in registers across the walk (one atomic per column per block).
template <typename T, bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    amax_per_token_kernel(const typename T::Raw* x, int64_t rows, int64_t cols, int64_t rows_per_block,
                          float* row_amax, float* col_amax) {
  constexpr int V = kVectorized ? kVec<T> : 1;
  constexpr int kLaneVecs = 2;
  constexpr int kStrip = 32 * kLaneVecs * V;
  constexpr int kWarps = kThreads / 32;
  constexpr int kRowsPerIter = 4;  // x kLaneVecs independent loads in flight per lane
  __shared__ uint32_t col_partial[kWarps][kStrip];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t col_blocks = (cols + kStrip - 1) / kStrip;
  const int64_t strip = blockIdx.x % col_blocks;
  const int64_t r_begin = (blockIdx.x / col_blocks) * rows_per_block;
  const int64_t r_end = min(rows, r_begin + rows_per_block);
  // Lane's k-th vector starts at column c[k]; vectorized: cols % V == 0, so a vector is all in or out.
  int64_t c[kLaneVecs];
#pragma unroll
  for (int k = 0; k < kLaneVecs; ++k) c[k] = strip * kStrip + (k * 32 + lane) * V;
  constexpr int kAccWords = kVectorized ? 4 : 1;  // column accumulators per vector (fold_raw words)
  uint32_t cacc[kLaneVecs][kAccWords];
#pragma unroll
  for (int k = 0; k < kLaneVecs; ++k)
#pragma unroll
    for (int q = 0; q < kAccWords; ++q) cacc[k][q] = 0;

  for (int64_t r0 = r_begin + warp * kRowsPerIter; r0 < r_end; r0 += kWarps * kRowsPerIter) {
    if constexpr (kVectorized) {
      // Raw 16-byte vectors folded without widening (fold_raw); 16-bit types keep two columns
      // per accumulator word.
      uint4 raw[kRowsPerIter][kLaneVecs];
#pragma unroll
      for (int j = 0; j < kRowsPerIter; ++j)
#pragma unroll
        for (int k = 0; k < kLaneVecs; ++k)
          raw[j][k] = (c[k] < cols && r0 + j < r_end) ? __ldg(reinterpret_cast<const uint4*>(x + (r0 + j) * cols + c[k]))
                                                      : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int j = 0; j < kRowsPerIter; ++j) {
        uint32_t racc = 0;
#pragma unroll
        for (int k = 0; k < kLaneVecs; ++k) {
          racc = fold_raw<T>(racc, raw[j][k]);
          const uint32_t w[4] = {raw[j][k].x, raw[j][k].y, raw[j][k].z, raw[j][k].w};
#pragma unroll
          for (int q = 0; q < 4; ++q) cacc[k][q] = fold_raw<T>(cacc[k][q], w[q]);
        }
        if (row_amax != nullptr) {
          racc = warp_max(widen_folded<T>(racc));
          if (lane == 0 && r0 + j < r_end) atomic_fold(row_amax + r0 + j, racc);
        }
      }
    } else {
      float v[kRowsPerIter][kLaneVecs];
#pragma unroll
      for (int j = 0; j < kRowsPerIter; ++j)
#pragma unroll
        for (int k = 0; k < kLaneVecs; ++k)
          v[j][k] = (c[k] < cols && r0 + j < r_end) ? to_f32<T>(x[(r0 + j) * cols + c[k]]) : 0.0f;
#pragma unroll
      for (int j = 0; j < kRowsPerIter; ++j) {
        uint32_t racc = 0;
#pragma unroll
        for (int k = 0; k < kLaneVecs; ++k) {
          racc = fold(racc, v[j][k]);
          cacc[k][0] = fold(cacc[k][0], v[j][k]);
        }
        if (row_amax != nullptr) {
          racc = warp_max(racc);
          if (lane == 0 && r0 + j < r_end) atomic_fold(row_amax + r0 + j, racc);
        }
      }
    }
  }
  if (col_amax == nullptr) return;
#pragma unroll
  for (int k = 0; k < kLaneVecs; ++k)
#pragma unroll
    for (int e = 0; e < V; ++e) {
      uint32_t bits = cacc[k][0];
      if constexpr (kVectorized) {
        constexpr int kPerWord = V / 4;  // columns per accumulator word: 2 (16-bit types) or 1
        const uint32_t w = cacc[k][e / kPerWord];
        bits = widen_folded<T>(kPerWord == 2 ? ((w >> (16 * (e % 2))) & 0xFFFFu) : w);
      }
      col_partial[warp][(k * 32 + lane) * V + e] = bits;
    }
  __syncthreads();
  for (int i = threadIdx.x; i < kStrip; i += kThreads) {
    uint32_t m = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) m = col_partial[w][i] > m ? col_partial[w][i] : m;
    const int64_t cc = strip * kStrip + i;
    if (cc < cols) atomic_fold(col_amax + cc, m);
  }
}

template <typename T>
lowp_status launch_amax(const DenseView& x, float* amax, cudaStream_t s) {
  const auto* p = static_cast<const typename T::Raw*>(x.data);
  const int64_t n = x.rows * x.cols;
  LOWP_TRY(check_cuda(cudaMemsetAsync(amax, 0, sizeof(float), s), "amax: memset"));
  if (n == 0) return LOWP_SUCCESS;
  if (aligned16(p)) {
    const int64_t chunks = (n / kVec<T> + kChunk - 1) / kChunk;
    const int64_t grid = std::max<int64_t>(1, std::min<int64_t>(chunks, 0x7FFFFFFF));
    LOWP_TRY(prefer_shared_carveout(amax_vec_kernel<T>, "amax: carveout"));
    amax_vec_kernel<T><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(p, n, amax);
  } else {
    const int grid = fp8::heuristics::amax_scalar_grid(n, kThreads, sm_count());
    amax_scalar_kernel<T><<<grid, kThreads, 0, s>>>(p, n, amax);
  }
  return check_launch("amax kernel");
}

template <typename T>
lowp_status launch_amax_per_token(const DenseView& x, float* row_amax, float* col_amax, cudaStream_t s) {
  const auto* p = static_cast<const typename T::Raw*>(x.data);
  if (row_amax) LOWP_TRY(check_cuda(cudaMemsetAsync(row_amax, 0, sizeof(float) * x.rows, s), "amax_per_token: memset"));
  if (col_amax) LOWP_TRY(check_cuda(cudaMemsetAsync(col_amax, 0, sizeof(float) * x.cols, s), "amax_per_token: memset"));
  const bool vec = aligned16(p) && x.cols % kVec<T> == 0;
  const int64_t strip = 64 * (vec ? kVec<T> : 1);  // the kernel's kStrip
  const int64_t col_blocks = (x.cols + strip - 1) / strip;
  int64_t row_blocks = fp8::heuristics::amax_per_token_row_blocks(x.rows, col_blocks, sm_count());
  const int64_t rows_per_block = (x.rows + row_blocks - 1) / row_blocks;
  row_blocks = (x.rows + rows_per_block - 1) / rows_per_block;
  const int64_t grid = row_blocks * col_blocks;
  if (grid > 0x7FFFFFFF) return fail(LOWP_ERROR_UNSUPPORTED, "amax_per_token: tensor too large for one launch");
  if (vec)
    amax_per_token_kernel<T, true><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(p, x.rows, x.cols, rows_per_block, row_amax, col_amax);
  else
    amax_per_token_kernel<T, false><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(p, x.rows, x.cols, rows_per_block, row_amax, col_amax);
  return check_launch("amax_per_token kernel");
}

}  // namespace

lowp_status amax(const DenseView& x, float* out, void* stream) {
  return with_input_type(x.dtype, [&](auto t) { return launch_amax<decltype(t)>(x, out, as_stream(stream)); });
}

lowp_status amax_per_token(const DenseView& x, float* row_amax, float* col_amax, void* stream) {
  return with_input_type(x.dtype, [&](auto t) { return launch_amax_per_token<decltype(t)>(x, row_amax, col_amax, as_stream(stream)); });
}

}  // namespace lowp::cuda
