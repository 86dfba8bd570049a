// Per-token K1 fused with the rowwise encode, for rows of 2048 16-bit elements (4 KB): blocks walk
// strips of whole rows, so a strip's row amaxes are complete inside the block. A block folds them,
// encodes the strip's rowwise copy with them (K2's rules and code, so the same bytes) and keeps its
// columns' running maxima in registers, folded into col_amax once at the end; the columnwise K2
// then reads x a second time. The rowwise encode runs while the next strips' copies are in
// flight, inside K1's DRAM-bound read instead of after it (docs/perf/nvfp4-per-token.md). A group of up
// to 32 members walks x the same way, a block taking consecutive strips so that its column maxima
// change member rarely; only the rowwise scales' rows (each member's padded to 128) and the
// column amaxes depend on the member.
#include <algorithm>
#include <type_traits>

#include "cuda/group/nvfp4_member_scan.cuh"
#include "cuda/group/nvfp4_member_lookup.cuh"  // rows_of
#include "cuda/nvfp4/heuristics.h"
#include "cuda/nvfp4/launch.h"
#include "cuda/nvfp4/tile.cuh"

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

// A group's members as the strips need them: member t has x rows [row0[t], row0[t + 1]) and its
// rowwise scales' row of x row r is r + shift[t] (each member's rows padded to a multiple of 128,
// back to back); shift[n]: the padding rows of all members.
struct MemberRows {
  int32_t row0[kWarpScanMembers + 1];
  int32_t shift[kWarpScanMembers + 1];
  bool valid;
};

struct GroupStripSmem : StripSmem {
  uint32_t col_flush[kCols];  // a member's column maxima on their way out (flush_columns; swizzled)
  MemberRows members;
};

// The single tensor: no members.
struct WholeMatrix {};

// The member of the x rows a block walks, in increasing order below R.
struct MemberCursor {
  int t = 0;
  __device__ __forceinline__ void advance(const MemberRows& m, int64_t row) {
    while (m.row0[t + 1] <= row) ++t;  // empty members (row0[t] == row0[t + 1]) are skipped
  }
};

// A strip's copy of `bytes` (0: none, a row past the matrix) completing on bar (arrive count 1).
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  if (bytes == 0) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
    return;
  }
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(shared_address(dst)), "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}

__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(shared_address(bar)), "r"(parity)
                 : "memory");
  } while (!done);
}

// Column c's word in col_flush: a rowwise block's 16 words rotated by XOR, so that a warp's
// atomics (32 blocks, one column each) and its readout (32 columns) meet few bank conflicts.
__device__ __forceinline__ int flush_word(int blk, int e) { return blk * kBlock + (e ^ (blk % kBlock)); }

// Folds the block's column maxima (each thread's 16 columns of its rows) into dst[kCols] and clears
// them: a column's two thread rows meet in `part` (zero; left zero), then one atomic per column.
// Every thread must call it; the next call must follow another barrier.
template <typename T>
__device__ void flush_columns(uint32_t (&col)[8], uint32_t* part, float* dst) {
  const int t = threadIdx.x, blk = t % kRowBlocks;
#pragma unroll
  for (int e = 0; e < kBlock; ++e) atomicMax(part + flush_word(blk, e), folded_column_bits<T>(col[e / kPerWord<T>], e % kPerWord<T>));
#pragma unroll
  for (auto& w : col) w = 0;
  __syncthreads();
  for (int c = t; c < kCols; c += kStripThreads) {
    uint32_t& w = part[flush_word(c / kBlock, c % kBlock)];
    atomic_fold(dst + c, w);
    w = 0;
  }
}

// A group's member rows from one warp scan of its member_rows (warp 0).
template <typename Members>
__device__ void scan_member_rows(const Members& members, MemberRows& r) {
  const MemberMap g = map_of(members);
  const WarpScan w = scan_members_warp(rows_of(members), g.n, g.total_rows, g.row_multiple);
  const auto shift = [](const Counts& c) { return static_cast<int32_t>(c.v[1] * kTile - c.v[0]); };
  const int lane = threadIdx.x;
  if (lane < g.n) r.row0[lane] = static_cast<int32_t>(w.before.v[0]), r.shift[lane] = shift(w.before);
  if (lane == 0) {
    r.valid = scan_valid(w, g.total_rows);
    r.row0[g.n] = static_cast<int32_t>(g.total_rows);
    r.shift[g.n] = shift(w.sum);
  }
}

// Zero scales in the padding rows of member t's rowwise scales (slot rows past its rows, up to the
// next member's first), by one block.
__device__ void zero_padding_scales(const TileArgs& a, const MemberRows& m, int t) {
  const int64_t first = (m.row0[t + 1] + m.shift[t]) * a.row_scale_cols, end = (m.row0[t + 1] + m.shift[t + 1]) * a.row_scale_cols;
  auto* words = reinterpret_cast<uint32_t*>(a.row_scales);  // rows of 4-byte multiples, 4-byte aligned (tile_path_ok)
  for (int64_t i = first / 4 + threadIdx.x; i < end / 4; i += blockDim.x) words[i] = 0;
}

// Members: WholeMatrix (strips: the matrix's, the scales' padding rows included), or a group of up
// to 32 members (InlineMembers, or a MemberMap whose rows it scans: the prep's map is not needed).
// evict_first: the codes and scales stored evict-first in L2 (x fits there, and the columnwise
// encode reads it again).
template <typename T, typename Members>
__global__ void __launch_bounds__(kStripThreads, kBlocksPerSm)
    token_strips_kernel(TileArgs a, Members members, int strips, bool evict_first) {
  constexpr bool kGroup = !std::is_same_v<Members, WholeMatrix>;
  using Tile = Nvfp4Tile<T, true, false, false>;
  extern __shared__ uint4 dynamic_smem[];
  auto& sm = *reinterpret_cast<std::conditional_t<kGroup, GroupStripSmem, StripSmem>*>(dynamic_smem);
  const int t = threadIdx.x, row0 = t / kRowBlocks, blk = t % kRowBlocks;
  // The block's n strips: the matrix's interleaved over the blocks, or a group's (x's rows only)
  // in consecutive runs from `first`, so that a block's strips change member at most a few times.
  int64_t first = 0;
  int n = 0;
  if constexpr (kGroup) {
    first = int64_t{strips} * blockIdx.x / gridDim.x;
    n = static_cast<int>(int64_t{strips} * (blockIdx.x + 1) / gridDim.x - first);
  } else {
    n = strips > static_cast<int>(blockIdx.x) ? (strips - 1 - static_cast<int>(blockIdx.x)) / gridDim.x + 1 : 0;
  }
  const auto strip_row = [&](int i) {
    return kGroup ? (first + i) * kStripRows : (int64_t{blockIdx.x} + int64_t{i} * gridDim.x) * kStripRows;
  };
  const auto issue = [&](int i) {  // thread 0
    if (i >= n) return;
    const int64_t r0 = strip_row(i);
    const int64_t live_rows = max(min(a.rows - r0, int64_t{kStripRows}), int64_t{0});
    const uint32_t bytes = static_cast<uint32_t>(live_rows * kCols * sizeof(typename T::Raw));
    bulk_copy(sm.x[i % kBuffers], static_cast<const typename T::Raw*>(a.x) + r0 * kCols, bytes, &sm.full[i % kBuffers]);
  };
  if (t == 0) {
    for (int b = 0; b < kBuffers; ++b)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&sm.full[b])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (t == 0)
    for (int i = 0; i < kBuffers - 1; ++i) issue(i);
  if constexpr (kGroup) {
    if (t < 32) scan_member_rows(members, sm.members);  // the rows are written before the prep launch
    for (int c = t; c < kCols; c += kStripThreads) sm.col_flush[c] = 0;
  }
  prepare_token_reciprocals(sm.reciprocal);
  wait_for_predecessor();  // launched early after the amax zeroing (or the group prep): writes only after it
  allow_dependents();      // the columnwise encode may start loading x (it waits for the column amaxes)
  __syncthreads();         // the reciprocals (and a group's member rows)
  if constexpr (kGroup) {
    if (!sm.members.valid) {  // a bad layout: nothing is written; the copies in flight land first
      for (int i = 0; i < min(n, kBuffers - 1); ++i) wait_phase(&sm.full[i], 0);
      return;
    }
  }

  uint32_t col[8] = {};  // the running maxima of the thread's 16 columns, folded raw as in K1
  MemberCursor cursor;    // group: the member of the strip
  int held = -1;          // group: the member whose columns col holds
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    const int buf = i % kBuffers;
    const int64_t r0 = strip_row(i);
    int64_t scale_r0 = r0;  // the strip's first row in the rowwise scales
    if constexpr (kGroup) {
      cursor.advance(sm.members, r0);
      scale_r0 += sm.members.shift[cursor.t];
      if (cursor.t != held) {  // the strips moved on to another member
        if (held >= 0) flush_columns<T>(col, sm.col_flush, a.col_amax + int64_t{held} * kCols);
        held = cursor.t;
      }
    }
    wait_phase(&sm.full[buf], (i / kBuffers) & 1);
    uint4 v[kThreadRows][2];
    uint32_t b[kThreadRows];
#pragma unroll
    for (int h = 0; h < kThreadRows; ++h) {
      const int row = row0 + h * kRowStep;
      v[h][0] = v[h][1] = uint4{};  // rows past the matrix (the scales' padding) fold and encode zeros
      if (r0 + row < a.rows) v[h][0] = sm.x[buf][row * kVectors + 2 * blk], v[h][1] = sm.x[buf][row * kVectors + 2 * blk + 1];
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
      const int64_t r = r0 + row;
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
      auto* dst_scale = reinterpret_cast<char*>(a.row_scales + (scale_r0 + row) * a.row_scale_cols + blk);  // padding rows: 0
      if (evict_first) {
        if (r < a.rows) __stcs(dst_codes, codes);
        __stcs(dst_scale, static_cast<char>(s));
      } else {
        if (r < a.rows) *dst_codes = codes;
        *dst_scale = static_cast<char>(s);
      }
    }
  }
  if constexpr (kGroup) {
    // The members' padding scale rows (the walk covers x's rows only): a block per member.
    for (int m = blockIdx.x; m < map_of(members).n; m += gridDim.x) zero_padding_scales(a, sm.members, m);
    if (held >= 0) flush_columns<T>(col, sm.col_flush, a.col_amax + int64_t{held} * kCols);  // past the last strip's barrier
    return;
  }
  // The single tensor's column maxima leave through its strip buffers by plain stores and one
  // barrier, cheaper here than flush_columns' zeroed buffer and shared atomics.
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

// What the kernel builds: 16-bit x of kCols columns on the tile path, RN without RHT, compact
// scales, both copies with their amaxes, a single matrix or a group of up to 32 members (the rows
// scanned by one warp). Where it builds them, heuristics.h says when it pays.
bool token_strips_ok(const TileArgs& a, const EncodeRecipe& r, int64_t members) {
  const bool two_byte = r.in == LOWP_DTYPE_BFLOAT16 || r.in == LOWP_DTYPE_FLOAT16;
  const bool both = a.row_codes != nullptr && a.col_codes != nullptr && a.row_amax != nullptr && a.col_amax != nullptr;
  return two_byte && r.per_token && !r.rht && !r.sr && !a.swizzled && both && a.cols == kCols &&
         heuristics::take_token_strips(a.rows, members) && members <= kWarpScanMembers && tile_path_ok(a);
}

lowp_status token_strips(const TileArgs& a, lowp_dtype in, cudaStream_t st, const GroupLaunch& g) {
  // A single matrix's strips cover its scales' 128-row padding too, a group's x's rows only (R %
  // 16 == 0); below 2^28 strips (tile_path_ok: rows < 2^30).
  const MemberMap& m = g.map();
  const int64_t strips = (m.n == 0 ? tile_count(a.rows) * kTile : a.rows) / kStripRows;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(int64_t{kBlocksPerSm} * sm_count(), strips));
  if (grid == 0) return LOWP_SUCCESS;
  const bool evict_first = heuristics::per_token_evict_first(a.rows * a.cols * 2, l2_cache_bytes());
  const auto go = [&](auto kernel, const auto& members, size_t smem) {
    LOWP_TRY(prefer_shared_carveout(kernel, "nvfp4 per-token strips: carveout"));  // K2 lands on these SMs early
    LOWP_TRY(check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
                        "nvfp4 per-token strips: shared memory opt-in"));
    return launch_kernel(kernel, grid, kStripThreads, smem, st, true, "nvfp4 per-token strips kernel", a, members,
                         static_cast<int>(strips), evict_first);
  };
  const auto with_type = [&](auto t) {
    using T = decltype(t);
    if (m.n == 0) return go(token_strips_kernel<T, WholeMatrix>, WholeMatrix{}, sizeof(StripSmem));
    if (g.rows_inline) return go(token_strips_kernel<T, InlineMembers>, g.members, sizeof(GroupStripSmem));
    return go(token_strips_kernel<T, MemberMap>, m, sizeof(GroupStripSmem));
  };
  return in == LOWP_DTYPE_BFLOAT16 ? with_type(Bf16{}) : with_type(F16{});
}

}  // namespace lowp::cuda::nvfp4
