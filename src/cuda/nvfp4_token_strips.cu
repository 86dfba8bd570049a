// Per-token K1 fused with the rowwise encode, for rows of 2048 16-bit elements (4 KB): blocks walk
// strips of whole rows, so a strip's row amaxes are complete inside the block. A block folds them,
// encodes the strip's rowwise copy with them (K2's rules and code, so the same bytes) and keeps its
// columns' running maxima in registers, folded into col_amax once at the end; the columnwise K2
// then reads x a second time. The rowwise encode runs while the next strips' copies are in
// flight, inside K1's DRAM-bound read instead of after it (H100: docs/perf-notes.md).
#include <algorithm>

#include "nvfp4_launch.h"
#include "nvfp4_tile.cuh"

namespace lowp::cuda::nvfp4 {
namespace {

constexpr int kCols = 2048;
constexpr int kRowBlocks = kCols / kBlock;  // a thread per rowwise block of a row
constexpr int kRowWarps = kRowBlocks / 32;
constexpr int kStripRows = 4;
constexpr int kThreadRows = 2;                      // rows of a strip per thread: two encodes to interleave
constexpr int kRowStep = kStripRows / kThreadRows;  // a thread's rows of a strip lie this far apart
constexpr int kStripThreads = kRowStep * kRowBlocks;
constexpr int kBlocksPerSm = 2;  // one block's encode fills the other's barrier waits
constexpr int kBuffers = 6;      // strips in flight per block
constexpr int kVectors = kCols * 2 / 16;  // 16-byte vectors per row

// A thread owns one rowwise block (16 columns) of kThreadRows rows of every strip: it folds its
// columns' running maxima and encodes the blocks. Only the row amaxes cross threads (a row's 4
// warps): one barrier per strip. Strips arrive by bulk copies (rows are contiguous).
struct StripSmem {
  uint4 x[kBuffers][kStripRows * kVectors];                  // a strip as in memory
  uint64_t full[kBuffers];                                   // the copies' mbarriers
  alignas(16) uint32_t row_part[2][kStripRows][kRowWarps];  // per row, each warp's max (two strips)
  float2 reciprocal[kTokenScaleCodes];                       // prepare_token_reciprocals
};

__device__ __forceinline__ uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// A strip's copy of `bytes` (0: none, a row past the matrix) completing on bar (arrive count 1).
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  if (bytes == 0) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
    return;
  }
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}

__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
  } while (!done);
}

// evict_first: the codes and scales stored evict-first in L2 (x fits there, and the columnwise
// encode reads it again).
template <typename T>
__global__ void __launch_bounds__(kStripThreads, kBlocksPerSm) token_strips_kernel(TileArgs a, int strips, bool evict_first) {
  using Tile = Nvfp4Tile<T, true, false, false>;
  extern __shared__ uint4 dynamic_smem[];
  auto& sm = *reinterpret_cast<StripSmem*>(dynamic_smem);
  const int t = threadIdx.x, row0 = t / kRowBlocks, blk = t % kRowBlocks;
  const int n = strips > static_cast<int>(blockIdx.x) ? (strips - 1 - static_cast<int>(blockIdx.x)) / gridDim.x + 1 : 0;
  const auto strip_row = [&](int i) { return (int64_t{blockIdx.x} + int64_t{i} * gridDim.x) * kStripRows; };
  const auto issue = [&](int i) {  // thread 0
    if (i >= n) return;
    const int64_t r0 = strip_row(i);
    const int64_t live_rows = max(min(a.rows - r0, int64_t{kStripRows}), int64_t{0});
    const uint32_t bytes = static_cast<uint32_t>(live_rows * kCols * sizeof(typename T::Raw));
    bulk_copy(sm.x[i % kBuffers], static_cast<const typename T::Raw*>(a.x) + r0 * kCols, bytes, &sm.full[i % kBuffers]);
  };
  if (t == 0) {
    for (int b = 0; b < kBuffers; ++b) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&sm.full[b])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (t == 0)
    for (int i = 0; i < kBuffers - 1; ++i) issue(i);
  prepare_token_reciprocals(sm.reciprocal);
  wait_for_predecessor();  // launched early after the amax zeroing: writes only after it
  allow_dependents();      // the columnwise encode may start loading x (it waits for the column amaxes)
  __syncthreads();         // the reciprocals

  uint32_t col[8] = {};  // the running maxima of the thread's 16 columns, folded raw as in K1
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    const int buf = i % kBuffers;
    wait_phase(&sm.full[buf], (i / kBuffers) & 1);
    uint4 v[kThreadRows][2];
    uint32_t b[kThreadRows];
#pragma unroll
    for (int h = 0; h < kThreadRows; ++h) {
      const int row = row0 + h * kRowStep;
      v[h][0] = v[h][1] = uint4{};  // rows past the matrix (the scales' padding) fold and encode zeros
      if (strip_row(i) + row < a.rows) v[h][0] = sm.x[buf][row * kVectors + 2 * blk], v[h][1] = sm.x[buf][row * kVectors + 2 * blk + 1];
#pragma unroll
      for (int w = 0; w < 8; ++w) col[w] = fold_raw<T>(col[w], word_of(v[h][w / 4], w % 4));
      b[h] = widen_folded<T>(fold_raw<T>(fold_raw<T>(0u, v[h][0]), v[h][1]));  // K1's row fold
      const uint32_t warp_max = __reduce_max_sync(0xFFFFFFFFu, b[h]);
      if (t % 32 == 0) sm.row_part[i & 1][row][(t / 32) % kRowWarps] = warp_max;
    }
    __syncthreads();  // every thread is past strip i - 1: its buffer takes strip i + kBuffers - 1
    if (t == 0) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the reads above before the copy's writes
      issue(i + kBuffers - 1);
    }
#pragma unroll
    for (int h = 0; h < kThreadRows; ++h) {
      const int row = row0 + h * kRowStep;
      const int64_t r = strip_row(i) + row;
      const uint4 part = *reinterpret_cast<const uint4*>(sm.row_part[i & 1][row]);
      const uint32_t amax = max(max(part.x, part.y), max(part.z, part.w));
      if (blk == 0 && r < a.rows) a.row_amax[r] = __uint_as_float(amax);
      const OuterScale o = token_outer(token_scale_staged(__uint_as_float(amax)));
      // b folds raw where K2 folds by abs-max: they differ only in a NaN's payload, and every
      // NaN block amax gives the same (saturated) scale and the clamped encode.
      const uint32_t s = block_scale_code(__uint_as_float(b[h]), o.s_enc6);
      const float m = token_multiplier(sm.reciprocal[s], o);
      const bool zero_block = m == 0.0f;
      const auto value_at = [&](int e) { return element<T>(v[h][e / kVec<T>], e % kVec<T>); };
      uint2 codes = Tile::block_codes(m, uint4{}, true, zero_block, value_at);
      if (!(normal_unsaturated(__uint_as_float(b[h]), o.s_enc6, s) || zero_block))  // rare: |x * m| may reach 7
        codes = Tile::block_codes(m, uint4{}, false, zero_block, value_at);
      auto* dst_codes = reinterpret_cast<uint2*>(a.row_codes + r * (kCols / 2) + blk * (kBlock / 2));
      auto* dst_scale = reinterpret_cast<char*>(a.row_scales + r * a.row_scale_cols + blk);  // padding rows: 0
      if (evict_first) {
        if (r < a.rows) __stcs(dst_codes, codes);
        __stcs(dst_scale, static_cast<char>(s));
      } else {
        if (r < a.rows) *dst_codes = codes;
        *dst_scale = static_cast<char>(s);
      }
    }
  }
  if (a.col_amax == nullptr) return;
  __syncthreads();  // every strip done (each copy was waited for): the buffers take the column maxima
  static_assert(sizeof(uint32_t) * kRowStep * kCols <= sizeof(StripSmem::x), "column maxima fit the buffers");
  auto& part = *reinterpret_cast<uint32_t(*)[kRowStep][kCols]>(&sm.x[0][0]);
#pragma unroll
  for (int e = 0; e < kBlock; ++e) part[row0][blk * kBlock + e] = folded_column_bits<T>(col[e / kPerWord<T>], e % kPerWord<T>);
  __syncthreads();
  for (int c = t; c < kCols; c += kStripThreads) {
    uint32_t m = 0;
#pragma unroll
    for (int k = 0; k < kRowStep; ++k) m = max(m, part[k][c]);
    atomic_fold(a.col_amax + c, m);
  }
}

}  // namespace

// Measured (H100, graph): K = 2048 with 4096 rows and up; 1024 rows, and K = 1024, were slower
// than K1 then K2 (too few strips per block to hide the copies behind the encode).
bool token_strips_ok(const TileArgs& a, const EncodeRecipe& r) {
  const bool two_byte = r.in == LOWP_DTYPE_BFLOAT16 || r.in == LOWP_DTYPE_FLOAT16;
  return two_byte && r.per_token && !r.rht && !r.sr && !a.swizzled && a.row_codes != nullptr && a.col_codes != nullptr &&
         a.cols == kCols && a.rows >= 4096 && tile_path_ok(a);
}

lowp_status token_strips(const TileArgs& a, lowp_dtype in, cudaStream_t st) {
  // The scales' 128-row padding too; below 2^28 strips (tile_path_ok: rows < 2^30).
  const int64_t strips = tile_count(a.rows) * kTile / kStripRows;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(int64_t{kBlocksPerSm} * sm_count(), strips));
  const bool evict_first = a.rows * a.cols * 2 <= l2_cache_bytes();
  const auto go = [&](auto kernel) {
    LOWP_TRY(prefer_shared_carveout(kernel, "nvfp4 per-token strips: carveout"));  // K2 lands on these SMs early
    LOWP_TRY(check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, sizeof(StripSmem)),
                        "nvfp4 per-token strips: shared memory opt-in"));
    return launch_kernel(kernel, grid, kStripThreads, sizeof(StripSmem), st, true, "nvfp4 per-token strips kernel", a,
                         static_cast<int>(strips), evict_first);
  };
  return in == LOWP_DTYPE_BFLOAT16 ? go(token_strips_kernel<Bf16>) : go(token_strips_kernel<F16>);
}

}  // namespace lowp::cuda::nvfp4
