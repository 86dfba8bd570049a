// NVFP4 kernels for any pointer alignment: one thread per 16-element block of an orientation,
// element loads and byte stores. Slow but the same bytes as the tile path (same scalar rules);
// taken when x is not 16-byte aligned or an output pointer is misaligned for the tile's stores.
#include <algorithm>

#include "cuda/nvfp4/four_over_six.cuh"
#include "cuda/nvfp4/launch.h"
#include "cuda/nvfp4/tile.cuh"

namespace lowp::cuda::nvfp4 {
namespace {

constexpr int kThreads = 256;

// The 16 values of block jb of orientation row i (columnwise: x[16jb + t][i]).
template <typename T>
__device__ void load_block(const TileArgs& a, bool columnwise, int64_t i, int64_t jb, float (&v)[kBlock]) {
  const auto* x = static_cast<const typename T::Raw*>(a.x);
#pragma unroll
  for (int t = 0; t < kBlock; ++t)
    v[t] = to_f32<T>(columnwise ? x[(jb * kBlock + t) * a.cols + i] : x[i * a.cols + jb * kBlock + t]);
}

// amax bits of the 16 x 16 tile (ti, tj) of x (2D recipe).
template <typename T>
__device__ uint32_t tile16_amax(const TileArgs& a, int64_t ti, int64_t tj) {
  const auto* x = static_cast<const typename T::Raw*>(a.x);
  uint32_t acc = 0;
  for (int r = 0; r < kBlock; ++r)
    for (int c = 0; c < kBlock; ++c) acc = fold(acc, to_f32<T>(x[(ti * kBlock + r) * a.cols + tj * kBlock + c]));
  return acc;
}

// The kept 4over6 scale of the 16 x 16 tile (ti, tj) of x (2D), for an orientation with outer f,
// its error summed in that orientation's rows (columnwise: x's columns, numerics §5c).
template <typename T>
__device__ uint32_t four_over_six_tile_scale(const TileArgs& a, bool columnwise, int64_t ti, int64_t tj, float b,
                                             const FourOverSixOuter& f) {
  const auto* x = static_cast<const typename T::Raw*>(a.x);
  const auto value_at = [&](int r, int c) {
    if (columnwise) return to_f32<T>(x[(ti * kBlock + c) * a.cols + tj * kBlock + r]);
    return to_f32<T>(x[(ti * kBlock + r) * a.cols + tj * kBlock + c]);
  };
  const num::Nvfp4ScaleCandidates c = num::nvfp4_four_over_six_scales(b, f.o.s_enc);
  if (c.s4 == c.s6) return c.s6;
  return num::nvfp4_four_over_six_takes_map4(four_over_six_tile_error(c.s4, f, value_at),
                                             four_over_six_tile_error(c.s6, f, value_at))
             ? c.s4
             : c.s6;
}

// row_scaled: an amax per orientation row with the per-tensor math; four_over_six: its choice
// per block (or tile) with a's 4over6 knobs.
template <typename T, bool kPerToken>
__global__ void __launch_bounds__(kThreads)
    encode_block_kernel(TileArgs a, bool columnwise, bool rht, bool sr, bool row_scaled, bool four_over_six) {
  const int64_t rows_o = columnwise ? a.cols : a.rows, cols_o = columnwise ? a.rows : a.cols;
  const int64_t blocks = cols_o / kBlock, n = rows_o * blocks;
  uint8_t* codes = columnwise ? a.col_codes : a.row_codes;
  uint8_t* scales = columnwise ? a.col_scales : a.row_scales;
  const float* amax = columnwise ? a.col_amax : a.row_amax;
  const int64_t padded_cols = columnwise ? a.col_scale_cols : a.row_scale_cols;
  const bool rht_here = columnwise && rht;
  for (int64_t idx = blockIdx.x * int64_t{kThreads} + threadIdx.x; idx < n; idx += int64_t{gridDim.x} * kThreads) {
    const int64_t i = idx / blocks, jb = idx % blocks;
    float v[kBlock];
    load_block<T>(a, columnwise, i, jb, v);
    if (rht_here) rht_block<kPerToken>(v, a.sign_mask);
    uint32_t bits = 0;
    for (int t = 0; t < kBlock; ++t) bits = fold(bits, v[t]);
    if (a.block_2d) bits = tile16_amax<T>(a, columnwise ? jb : i / kBlock, columnwise ? i / kBlock : jb);
    float b = __uint_as_float(bits);
    if (kPerToken && rht_here) b = num::mul_rn(b, 0.25f);
    const float outer_max = four_over_six ? four_over_six_outer_max(a) : num::kNvfp4OuterMax;
    const float a_row = kPerToken || row_scaled ? amax[i] : *amax;
    const OuterScale o = outer_scale<kPerToken>(a_row, outer_max);
    uint32_t s;
    if (!four_over_six) {
      s = block_scale_code(b, o.s_enc6);
    } else {
      const FourOverSixOuter f{o, a_row, outer_max, a.four_over_six_mse};
      if (a.block_2d)
        s = four_over_six_tile_scale<T>(a, columnwise, columnwise ? jb : i / kBlock, columnwise ? i / kBlock : jb, b, f);
      else s = four_over_six_block_scale(b, f, [&](int t) { return v[t]; });
    }
    float m = multiplier<kPerToken>(s, o);
    const bool zero_block = kPerToken && m == 0.0f;
    if (kPerToken && rht_here) m = num::mul_rn(m, 0.25f);
    uint4 rnd{};
    if (sr) rnd = num::sr_block_bits(a.rng_state[0], a.rng_state[1], a.sr_base + static_cast<uint64_t>(idx), columnwise);
    for (int half = 0; half < kBlock; half += 8) {
      const auto value_at = [&](int t) { return v[half + t]; };
      uint32_t word = sr ? encode_values_as<true, true>(m, rnd, half, value_at) : encode_values_as<false, true>(m, rnd, half, value_at);
      if (zero_block) word = 0;
      uint8_t* dst = codes + i * (cols_o / 2) + jb * (kBlock / 2) + half / 2;
      for (int j = 0; j < 4; ++j) dst[j] = static_cast<uint8_t>(word >> (8 * j));  // any alignment
    }
    scales[num::scale_offset(i, jb, padded_cols, a.swizzled)] = static_cast<uint8_t>(s);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) rht_amax_block_kernel(TileArgs a, float* out) {
  __shared__ uint32_t scratch[kThreads / 32];
  const int64_t blocks = a.rows / kBlock, n = a.cols * blocks;
  uint32_t acc = 0;
  for (int64_t idx = blockIdx.x * int64_t{kThreads} + threadIdx.x; idx < n; idx += int64_t{gridDim.x} * kThreads) {
    float v[kBlock];
    load_block<T>(a, true, idx / blocks, idx % blocks, v);
    rht_block<false>(v, a.sign_mask);
    for (int t = 0; t < kBlock; ++t) acc = fold(acc, v[t]);
  }
  acc = block_max(acc, scratch);
  if (threadIdx.x == 0) atomic_fold(out, acc);
}

// Per-token columnwise amax with RHT into the zeroed a.col_amax: one thread per 16-row strip of
// a column (kBf16: row-scaled's, rounded to bf16).
template <typename T, bool kBf16>
__global__ void __launch_bounds__(kThreads) token_rht_amax_block_kernel(TileArgs a) {
  const int64_t blocks = a.rows / kBlock, n = a.cols * blocks;
  for (int64_t idx = blockIdx.x * int64_t{kThreads} + threadIdx.x; idx < n; idx += int64_t{gridDim.x} * kThreads) {
    float v[kBlock];
    load_block<T>(a, true, idx / blocks, idx % blocks, v);
    rht_block<true>(v, a.sign_mask);
    uint32_t acc = 0;
    for (int t = 0; t < kBlock; ++t) acc = fold(acc, v[t]);
    atomic_fold(a.col_amax + idx / blocks, token_col_amax_bits<true, kBf16>(acc));
  }
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{sm_count()} * 8)));
}

template <typename T, bool kPerToken>
lowp_status launch_encode(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st) {
  for (const bool columnwise : {false, true}) {
    uint8_t* scales = columnwise ? a.col_scales : a.row_scales;
    if ((columnwise ? a.col_codes : a.row_codes) == nullptr) continue;
    const int64_t rows_o = columnwise ? a.cols : a.rows;
    const int64_t padded_cols = columnwise ? a.col_scale_cols : a.row_scale_cols;
    // Padding scale entries stay 0; the kernel writes every real one.
    LOWP_TRY(check_cuda(cudaMemsetAsync(scales, 0, static_cast<size_t>(num::scale_rows_padded(rows_o) * padded_cols), st),
                        "nvfp4 encode: memset scales"));
    const int64_t n = rows_o * ((columnwise ? a.rows : a.cols) / kBlock);
    encode_block_kernel<T, kPerToken><<<grid_for(n), kThreads, 0, st>>>(a, columnwise, r.rht, r.sr, r.row_scaled, r.four_over_six);
    LOWP_TRY(check_launch("nvfp4 encode block kernel"));
  }
  return LOWP_SUCCESS;
}

template <typename T>
lowp_status launch_rht_amax(const TileArgs& a, float* out, cudaStream_t st) {
  LOWP_TRY(check_cuda(cudaMemsetAsync(out, 0, sizeof(float), st), "nvfp4 rht amax: memset"));
  rht_amax_block_kernel<T><<<grid_for(a.cols * (a.rows / kBlock)), kThreads, 0, st>>>(a, out);
  return check_launch("nvfp4 rht amax block kernel");
}

template <typename T>
lowp_status launch_token_rht_amax(const TileArgs& a, bool rht_bf16, cudaStream_t st) {
  const int64_t n = a.cols * (a.rows / kBlock);
  const auto kernel = rht_bf16 ? token_rht_amax_block_kernel<T, true> : token_rht_amax_block_kernel<T, false>;
  if (n > 0) kernel<<<grid_for(n), kThreads, 0, st>>>(a);
  return check_launch("nvfp4 per-token rht amax block kernel");
}

template <typename T>
lowp_status encode_for(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st) {
  return r.per_token ? launch_encode<T, true>(a, r, st) : launch_encode<T, false>(a, r, st);
}

}  // namespace

lowp_status encode_blocks(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st) {
  return with_input_type(r.in, [&](auto t) { return encode_for<decltype(t)>(a, r, st); });
}

lowp_status rht_amax_blocks(const TileArgs& a, lowp_dtype in, float* out, cudaStream_t st) {
  return with_input_type(in, [&](auto t) { return launch_rht_amax<decltype(t)>(a, out, st); });
}

lowp_status token_rht_amax_blocks(const TileArgs& a, lowp_dtype in, bool rht_bf16, cudaStream_t st) {
  return with_input_type(in, [&](auto t) { return launch_token_rht_amax<decltype(t)>(a, rht_bf16, st); });
}

}  // namespace lowp::cuda::nvfp4
