// The NVFP4 tile kernels (one block per 128 x 128 tile) and their dispatch: the encode of both
// orientations, and the per-tensor exact post-RHT amax pass (RHT + amax fused, one read of x).
#include <algorithm>
#include <type_traits>

#include "cuda/common/timeline.cuh"
#include "cuda/group/nvfp4_member_lookup.cuh"
#include "cuda/nvfp4/heuristics.h"
#include "cuda/nvfp4/launch.h"
#include "cuda/nvfp4/tile.cuh"

namespace lowp::cuda::nvfp4 {
namespace {

// Members: MemberMap, or InlineMembers (groups of host rows of a per-row recipe).
template <typename T, bool kPerToken, bool kRht, bool kSr, bool kDefaultSigns, bool kEvictFirst, bool kRowScaled,
          bool k4over6, typename Members>
__global__ void __launch_bounds__(Geometry<T>::kThreads) encode_tile_kernel(TileArgs whole, Members g) {
  using Tile = Nvfp4Tile<T, kPerToken, kRht, kSr, kDefaultSigns, kEvictFirst, kRowScaled, k4over6>;
  extern __shared__ uint4 dynamic_smem[];
  auto& sm = *reinterpret_cast<typename Tile::Smem*>(dynamic_smem);
  TileArgs a;
  int64_t tile;
  const timeline::Block tl = timeline::enter(timeline::kEncode);
  // Tiles in reverse order: the encode follows an amax pass over the same x (K1, the per-tensor
  // amax passes), and the tiles that pass read last are the ones still in L2.
  if (!member_tile<T, true>(whole, g, blockIdx.x, &a, &tile)) {
    tl.stamp(timeline::kExit);
    return;
  }
  const Tile t(a, tile, sm);  // copies start first: the tables below overlap their latency
  tl.stamp(timeline::kWaited);
  t.prepare(a, sm);
  Tile::wait_loads();
  __syncthreads();
  tl.stamp(timeline::kLoaded);
  const uint32_t tile16 = (Tile::k2dPossible && a.block_2d) ? t.tile16_amax(sm) : 0u;
  if constexpr (Tile::k2dPossible && k4over6) {
    if (a.block_2d) {  // every 16x16 tile's choice before either pass reads it
      t.choose_tiles(a, sm);
      __syncthreads();
    }
  }
  const bool redo_cols = a.col_codes != nullptr && t.encode_cols(a, sm, tile16);
  const bool redo_rows = a.row_codes != nullptr && t.encode_rows(a, sm, tile16);
  // Rare (Nvfp4Tile::kClampLater): the thread's pass had a block that needs the clamp.
  if (redo_cols) t.template encode_cols<true>(a, sm, tile16);
  if (redo_rows) t.template encode_rows<true>(a, sm, tile16);
  __syncthreads();
  t.store_staged(a, sm);
  tl.stamp(timeline::kExit);
}

template <typename T>
__global__ void __launch_bounds__(Geometry<T>::kThreads) rht_amax_tile_kernel(TileArgs a, float* out) {
  __shared__ uint32_t scratch[32];
  allow_dependents();  // the encode may start loading x (it waits for the amax)
  const RegisterTile<T> t(a, blockIdx.x);
  uint32_t acc = 0;
#pragma unroll
  for (int e = 0; e < Geometry<T>::V; ++e) {
    float v[kBlock];
#pragma unroll
    for (int j = 0; j < kBlock; ++j) v[j] = element<T>(t.raw[j], e);
    acc = max(acc, rht_block<false>(v, a.sign_mask));
  }
  acc = block_max(acc, scratch);
  if (threadIdx.x == 0) atomic_fold(out, acc);
}

// How the encode kernel runs, planned once per call (heuristics.h decides the tuning).
struct EncodePlan {
  unsigned blocks;
  size_t smem_floor;  // dynamic shared memory the launch takes at least (to cap its blocks per SM)
  bool early;         // a programmatic dependent launch (launch_kernel)
  bool per_token, rht, sr;
  bool row_scaled, four_over_six;
  bool default_signs;  // RHT with num::kDefaultRhtSignMask: the kernel with the mask built in
  bool evict_first;
};

template <typename T, bool kPerToken, bool kRht, bool kSr, bool kDefaultSigns, bool kEvictFirst, bool kRowScaled,
          bool k4over6, typename Members>
lowp_status launch_encode_kernel(const TileArgs& a, const Members& g, const EncodePlan& p, cudaStream_t st) {
  const auto kernel = encode_tile_kernel<T, kPerToken, kRht, kSr, kDefaultSigns, kEvictFirst, kRowScaled, k4over6, Members>;
  using Tile = Nvfp4Tile<T, kPerToken, kRht, kSr, kDefaultSigns, kEvictFirst, kRowScaled, k4over6>;
  const size_t smem = std::max(sizeof(typename Tile::Smem), p.smem_floor);
  LOWP_TRY(prefer_shared_carveout(kernel, "nvfp4 encode: carveout"));
  // The opt-in is per device and, unlike the carveout hint, not recorded: after a cudaDeviceReset
  // a launch without it fails. Set on every launch that needs it (fp32 tiles, capped launches).
  if (smem > 48 * 1024)
    LOWP_TRY(check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
                        "nvfp4 encode: shared memory opt-in"));
  return launch_kernel(kernel, p.blocks, Geometry<T>::kThreads, smem, st, p.early, "nvfp4 encode tile kernel", a, g);
}

// The kernel of a plan. Only what a plan can ask for is instantiated: the built-in sign mask with
// RHT, evict-first and member rows by value (InlineMembers) with a per-row recipe, row-scaled
// apart from per-token, 4over6 without RHT and SR on per-tensor or row-scaled.
template <typename T, typename Members>
lowp_status launch_encode(const TileArgs& a, const Members& g, const EncodePlan& p, cudaStream_t st) {
  constexpr bool kInline = std::is_same_v<Members, InlineMembers>;
  return with_flags(
      [&](auto per_token, auto rht, auto sr, auto signs, auto evict_first, auto row_scaled, auto four_over_six) {
        constexpr bool kPerToken = decltype(per_token)::value, kRht = decltype(rht)::value, kSr = decltype(sr)::value;
        constexpr bool kSigns = decltype(signs)::value, kEvictFirst = decltype(evict_first)::value;
        constexpr bool kRowScaled = decltype(row_scaled)::value, k4over6 = decltype(four_over_six)::value;
        constexpr bool kPerRow = kPerToken || kRowScaled;
        if constexpr ((kSigns && !kRht) || ((kEvictFirst || kInline) && !kPerRow) || (kPerToken && kRowScaled) ||
                      (k4over6 && (kPerToken || kRht || kSr)))
          return fail(LOWP_ERROR_INTERNAL, "nvfp4 encode: no kernel for this plan");
        else
          return launch_encode_kernel<T, kPerToken, kRht, kSr, kSigns, kEvictFirst, kRowScaled, k4over6>(a, g, p, st);
      },
      p.per_token, p.rht, p.sr, p.default_signs, p.evict_first, p.row_scaled, p.four_over_six);
}

// A group launch's shared-memory floor: the cap on its blocks per SM (heuristics.h), if any.
size_t group_smem_floor(const TileArgs& a, const GroupLaunch& g, unsigned blocks) {
  const int cap = heuristics::group_encode_blocks_per_sm(g.worst_split_sized, blocks,
                                                         tile_count(g.map().total_rows) * a.col_tiles, sm_count());
  return cap == 0 ? 0 : smem_for_blocks_per_sm(cap);
}

template <typename T>
lowp_status launch_rht_amax(const TileArgs& a, float* out, cudaStream_t st) {
  LOWP_TRY(check_cuda(cudaMemsetAsync(out, 0, sizeof(float), st), "nvfp4 rht amax: memset"));
  unsigned blocks = 0;
  LOWP_TRY(launch_blocks(a, {}, "nvfp4 rht amax", &blocks));
  if (blocks > 0) {
    LOWP_TRY(prefer_shared_carveout(rht_amax_tile_kernel<T>, "nvfp4 rht amax: carveout"));
    rht_amax_tile_kernel<T><<<blocks, Geometry<T>::kThreads, 0, st>>>(a, out);
  }
  return check_launch("nvfp4 rht amax tile kernel");
}

}  // namespace

lowp_status encode(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st, const GroupLaunch& g) {
  if (!tile_path_ok(a)) {
    if (g.map().n != 0) return fail(LOWP_ERROR_UNSUPPORTED, "nvfp4 grouped encode: outside the tile path's alignment and shape limits");
    return encode_blocks(a, r, st);
  }
  EncodePlan p{};
  LOWP_TRY(launch_blocks(a, g.map(), "nvfp4 encode", &p.blocks));
  if (p.blocks == 0) return LOWP_SUCCESS;
  p.early = r.after_amax;
  p.per_token = r.per_token;  // groups are per-row only
  p.rht = r.rht;
  p.sr = r.sr;
  p.row_scaled = r.row_scaled;
  p.four_over_six = r.four_over_six;
  p.default_signs = r.rht && a.sign_mask == num::kDefaultRhtSignMask;
  p.evict_first = per_row(r) && heuristics::per_token_evict_first(a.rows * a.cols * dtype_bytes(r.in), l2_cache_bytes());
  p.smem_floor = g.rows_inline ? 0 : group_smem_floor(a, g, p.blocks);
  return with_input_type(r.in, [&](auto t) {
    using T = decltype(t);
    return g.rows_inline ? launch_encode<T>(a, g.members, p, st) : launch_encode<T>(a, g.map(), p, st);
  });
}

lowp_status rht_amax(const TileArgs& a, lowp_dtype in, float* out, cudaStream_t st) {
  if (!aligned16(a.x)) return rht_amax_blocks(a, in, out, st);
  return with_input_type(in, [&](auto t) { return launch_rht_amax<decltype(t)>(a, out, st); });
}

}  // namespace lowp::cuda::nvfp4
