// The NVFP4 tile kernels (one block per 128 x 128 tile) and their dispatch: the encode of both
// orientations, and the per-tensor exact post-RHT amax pass (RHT + amax fused, one read of x).
#include <algorithm>

#include "cuda/common/timeline.cuh"
#include "cuda/group/nvfp4_member_lookup.cuh"
#include "cuda/nvfp4/launch.h"
#include "cuda/nvfp4/tile.cuh"

namespace lowp::cuda::nvfp4 {
namespace {

// Members: MemberMap, or InlineMembers (per-token groups of host rows).
template <typename T, bool kPerToken, bool kRht, bool kSr, bool kDefaultSigns, bool kEvictFirst, typename Members>
__global__ void __launch_bounds__(Geometry<T>::kThreads) encode_tile_kernel(TileArgs whole, Members g) {
  using Tile = Nvfp4Tile<T, kPerToken, kRht, kSr, kDefaultSigns, kEvictFirst>;
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

// smem_floor: dynamic shared memory the launch takes at least (to cap its blocks per SM).
template <typename T, bool kPerToken, bool kRht, bool kSr, bool kDefaultSigns, bool kEvictFirst, typename Members>
lowp_status launch_kernel_of(const TileArgs& a, const Members& g, unsigned blocks, size_t smem_floor, bool early,
                             cudaStream_t st) {
  const auto kernel = encode_tile_kernel<T, kPerToken, kRht, kSr, kDefaultSigns, kEvictFirst, Members>;
  const size_t smem = std::max(sizeof(typename Nvfp4Tile<T, kPerToken, kRht, kSr, kDefaultSigns, kEvictFirst>::Smem), smem_floor);
  LOWP_TRY(prefer_shared_carveout(kernel, "nvfp4 encode: carveout"));
  // The opt-in is per device and, unlike the carveout hint, not recorded: after a cudaDeviceReset
  // a launch without it fails. Set on every launch that needs it (fp32 tiles, capped launches).
  if (smem > 48 * 1024)
    LOWP_TRY(check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
                        "nvfp4 encode: shared memory opt-in"));
  return launch_kernel(kernel, blocks, Geometry<T>::kThreads, smem, st, early, "nvfp4 encode tile kernel", a, g);
}

// Measured (docs/perf-notes.md): when x fits in L2, evict-first loads and stores make the
// per-token composite up to 5% faster (likely because K1 left most of x there and the codes then
// evict the tiles already encoded, not those still to come); at 5x L2 up to 11% slower. Past the
// L2 the stores stay plain: evict-last ones were 2.7-4.4% faster back to back, but their lines
// outlived the call and made a later 33.5 MB composite 3-4% slower.
template <typename T, bool kPerToken, bool kRht, bool kSr, bool kDefaultSigns, typename Members>
lowp_status launch_with(const TileArgs& a, const Members& g, unsigned blocks, size_t smem_floor, bool early, cudaStream_t st) {
  if constexpr (kPerToken)
    if (a.rows * a.cols * static_cast<int64_t>(sizeof(typename T::Raw)) <= l2_cache_bytes())
      return launch_kernel_of<T, kPerToken, kRht, kSr, kDefaultSigns, true>(a, g, blocks, smem_floor, early, st);
  return launch_kernel_of<T, kPerToken, kRht, kSr, kDefaultSigns, false>(a, g, blocks, smem_floor, early, st);
}

// A launch sized for the worst split (device rows) runs its live tiles first and its surplus
// blocks after. With 5 blocks per SM the live ones piled up on a few SMs (H100 timeline, N = 8 at
// 1024 x 4096: 4 live tiles on some SMs, 2 on most). Capped at 3 per SM when the fewest live tiles
// any split has fit so and every split fits in two rounds of them; measured (H100, graph):
// equal, uneven and worst splits 3-12% faster at the shapes this caps, the worst split at
// 1024 x 4096 1-2% slower. A cap of 2 was faster for the equal split but up to 16% slower for
// splits with more tiles, and larger launches lose more from fewer blocks per SM than they gain
// (docs/perf-notes.md).
size_t group_smem_floor(const TileArgs& a, const GroupLaunch& g, unsigned blocks) {
  if (!g.worst_split_sized) return 0;  // every other launch (the single tensor's too) asks nothing more
  constexpr int kCap = 3;
  const int64_t one_round = int64_t{kCap} * sm_count();
  if (blocks > 2 * one_round || tile_count(g.map().total_rows) * a.col_tiles > one_round) return 0;
  return smem_for_blocks_per_sm(kCap);
}

template <typename T, bool kPerToken, bool kRht, bool kSr, bool kDefaultSigns = false>
lowp_status launch(const TileArgs& a, const GroupLaunch& g, bool early, cudaStream_t st) {
  unsigned blocks = 0;
  LOWP_TRY(launch_blocks(a, g.map(), "nvfp4 encode", &blocks));
  if (blocks == 0) return LOWP_SUCCESS;
  if constexpr (kPerToken)  // groups are per-token only
    if (g.rows_inline) return launch_with<T, kPerToken, kRht, kSr, kDefaultSigns>(a, g.members, blocks, 0, early, st);
  return launch_with<T, kPerToken, kRht, kSr, kDefaultSigns>(a, g.map(), blocks, group_smem_floor(a, g, blocks), early, st);
}

// RHT with the default sign mask takes the kernel that has it built in.
template <typename T, bool kPerToken, bool kSr>
lowp_status launch_rht(const TileArgs& a, const GroupLaunch& g, bool early, cudaStream_t st) {
  if (a.sign_mask == num::kDefaultRhtSignMask) return launch<T, kPerToken, true, kSr, true>(a, g, early, st);
  return launch<T, kPerToken, true, kSr>(a, g, early, st);
}

template <typename T, bool kPerToken>
lowp_status launch_variant(const TileArgs& a, const EncodeRecipe& r, const GroupLaunch& g, cudaStream_t st) {
  const bool e = r.after_amax;
  if (r.rht) return r.sr ? launch_rht<T, kPerToken, true>(a, g, e, st) : launch_rht<T, kPerToken, false>(a, g, e, st);
  return r.sr ? launch<T, kPerToken, false, true>(a, g, e, st) : launch<T, kPerToken, false, false>(a, g, e, st);
}

template <typename T>
lowp_status launch_recipe(const TileArgs& a, const EncodeRecipe& r, const GroupLaunch& g, cudaStream_t st) {
  if (!tile_path_ok(a)) {
    if (g.map().n != 0) return fail(LOWP_ERROR_UNSUPPORTED, "nvfp4 grouped encode: outside the tile path's alignment and shape limits");
    return encode_blocks(a, r, st);
  }
  return r.per_token ? launch_variant<T, true>(a, r, g, st) : launch_variant<T, false>(a, r, g, st);
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
  return with_input_type(r.in, [&](auto t) { return launch_recipe<decltype(t)>(a, r, g, st); });
}

lowp_status rht_amax(const TileArgs& a, lowp_dtype in, float* out, cudaStream_t st) {
  if (!aligned16(a.x)) return rht_amax_blocks(a, in, out, st);
  return with_input_type(in, [&](auto t) { return launch_rht_amax<decltype(t)>(a, out, st); });
}

}  // namespace lowp::cuda::nvfp4
