// What the NVFP4 tile kernels share on the device (the geometry and arguments: tile_args.h): where a
// thread sits in a 128 x 128 tile, element extraction from raw 16-byte vectors, the outer scale
// and block multiplier rules, the columnwise RHT of a block, and the register tile of the
// one-read amax passes (per-token K1, the per-tensor exact post-RHT amax).
#pragma once
#include <type_traits>

#include "cuda/common/common.cuh"
#include "cuda/nvfp4/encode.cuh"
#include "cuda/nvfp4/tile_args.h"
#include "numerics/rht16.h"

namespace lowp::cuda::nvfp4 {

template <typename T>
struct Geometry {
  static constexpr int V = kVec<T>;                   // elements per 16-byte vector
  static constexpr int kLanesPerBlock = kBlock / V;   // lanes sharing a rowwise block
  static constexpr int kColLanes = kTile / V;         // lanes along a tile row
  static constexpr int kRowGroups = kTile / kBlock;   // 16-row groups of a tile
  static constexpr int kThreads = kRowGroups * kColLanes;
  static_assert(kColLanes <= 32 && 32 % kColLanes == 0, "a warp holds whole tile rows");
};

__device__ __forceinline__ uint32_t word_of(const uint4& u, int i) { return i == 0 ? u.x : i == 1 ? u.y : i == 2 ? u.z : u.w; }

template <typename T>
constexpr int kPerWord = 4 / static_cast<int>(sizeof(typename T::Raw));  // elements per 32-bit word

// Element h of a 32-bit word of raw elements, widened to fp32.
template <typename T>
__device__ __forceinline__ float word_element(uint32_t w, int h) {
  if constexpr (kPerWord<T> == 2) return to_f32<T>(static_cast<uint16_t>(h ? w >> 16 : w & 0xFFFFu));
  else return __uint_as_float(w);
}

// Element e of a loaded 16-byte vector, widened to fp32.
template <typename T>
__device__ __forceinline__ float element(const uint4& u, int e) {
  return word_element<T>(word_of(u, e / kPerWord<T>), e % kPerWord<T>);
}

// word_element with the sign flipped when flip (0 or 0x80000000) is set. For bf16 the flip rides
// on the extraction: a multiply-add (adding 2^31 flips bit 31) and a 3-input logic op.
template <typename T>
__device__ __forceinline__ float word_element_flipped(uint32_t w, int h, uint32_t flip) {
  if constexpr (std::is_same_v<T, Bf16>) return __uint_as_float(h ? (w ^ flip) & 0xFFFF0000u : w * 0x10000u + flip);
  else return __uint_as_float(__float_as_uint(word_element<T>(w, h)) ^ flip);
}

// amax bits of column h of a word of raw elements folded across rows (fold_raw).
template <typename T>
__device__ __forceinline__ uint32_t folded_column_bits(uint32_t acc, int h) {
  return __float_as_uint(word_element<T>(acc, h));
}

// The outer scale of one orientation row (numerics §3, §5, §5b, §5c) and what its blocks derive
// from it.
struct OuterScale {
  float s_enc, s_enc6, s_dec;
};

// outer_max: 6E (4over6), else the standard 2688.
template <bool kPerToken>
__device__ __forceinline__ OuterScale outer_scale(float amax, float outer_max = num::kNvfp4OuterMax) {
  const float s_enc = kPerToken ? num::nvfp4_encode_scale_per_token(amax) : num::nvfp4_encode_scale(amax, outer_max);
  return {s_enc, num::nvfp4_block_scale_factor(s_enc), kPerToken ? 0.0f : num::nvfp4_decode_factor(s_enc)};
}

// Element multiplier of a block with scale code s (per-tensor: never 0; per-token: 0 when the
// scale decodes to 0, and such a block writes all-zero codes).
template <bool kPerToken>
__device__ __forceinline__ float multiplier(uint32_t s, const OuterScale& o) {
  const float fs = decode_ue4m3(s);
  if constexpr (kPerToken) return num::nvfp4_multiplier_per_token_of(fs, o.s_enc);
  else return num::nvfp4_multiplier_per_tensor_of(fs, o.s_dec);
}

// Per-token, division-free block multipliers (num::nvfp4_multiplier_per_token_prepared): a row's
// or column's outer scale staged as S_enc * 2^64, its OuterScale, and each scale code's reciprocal
// operands {y, b} (threads 0..127 of a block write the table).
constexpr int kTokenScaleCodes = 128;  // UE4M3 block scales are 0..0x7E (satfinite)
__device__ __forceinline__ float token_scale_staged(float amax) {
  return num::nvfp4_token_scale_prepared(num::nvfp4_encode_scale_per_token(amax));
}
__device__ __forceinline__ OuterScale token_outer(float staged) {
  return {staged, num::nvfp4_block_scale_factor_prepared(staged), 0.0f};
}
__device__ __forceinline__ void prepare_token_reciprocals(float2 (&table)[kTokenScaleCodes]) {
  if (threadIdx.x < kTokenScaleCodes) {
    const float fs = decode_ue4m3(threadIdx.x);
    table[threadIdx.x] = make_float2(num::nvfp4_token_reciprocal_prepared(fs), num::nvfp4_token_divisor_prepared(fs));
  }
}
// The multiplier of a block whose scale code's table entry is r.
__device__ __forceinline__ float token_multiplier(float2 r, const OuterScale& o) {
  return num::nvfp4_multiplier_per_token_prepared(o.s_enc, r.x, r.y);
}

// The per-tensor columnwise RHT of one block of 16 values in place: bf16(RHT16 * 0.25) as the
// CPU reference (whose NaN canonicalisation the GPU's arithmetic does itself), also as bf16 pairs
// (value 2i in the low half of pairs[i]). Returns their amax bits, folded on the pairs; kEncode:
// by fold_abs (a block amax, whose NaN payload never matters).
template <bool kEncode = false>
__device__ __forceinline__ uint32_t rht_block_bf16(float (&v)[kBlock], uint32_t sign_mask, uint32_t (&pairs)[kBlock / 2]) {
  num::rht16_unnormalized(v, sign_mask);
  uint32_t bits = 0;
#pragma unroll
  for (int j = 0; j < kBlock; j += 2) {
    pairs[j / 2] = bf16x2_bits(num::mul_rn(v[j], 0.25f), num::mul_rn(v[j + 1], 0.25f));
    bits = kEncode ? fold_abs<Bf16>(bits, pairs[j / 2]) : fold_raw<Bf16>(bits, pairs[j / 2]);
    unpack_bf16x2(pairs[j / 2], v[j], v[j + 1]);
  }
  return widen_folded<Bf16>(kEncode ? clear_folded_signs<Bf16>(bits) : bits);
}

// The columnwise RHT of one block of 16 values in place; returns their amax bits. Per-tensor:
// rht_block_bf16. Per-token: unnormalised fp32 (0.25 applied later).
template <bool kPerToken>
__device__ __forceinline__ uint32_t rht_block(float (&v)[kBlock], uint32_t sign_mask) {
  if constexpr (kPerToken) {
    num::rht16_unnormalized(v, sign_mask);
    uint32_t bits = 0;
#pragma unroll
    for (int j = 0; j < kBlock; ++j) bits = fold(bits, v[j]);
    return bits;
  } else {
    uint32_t pairs[kBlock / 2];
    return rht_block_bf16(v, sign_mask, pairs);
  }
}

// A per-token columnwise amax as stored (numerics §5): with RHT 0.25 * the max (canonical NaN);
// kBf16 (row-scaled, numerics §5b): that rounded to bf16. Monotone in the bits, so applying it to
// partial maxima before folding them equals applying it to the final max.
template <bool kRht, bool kBf16 = false>
__device__ __forceinline__ uint32_t token_col_amax_bits(uint32_t max_bits) {
  if constexpr (kRht) {
    const float amax = num::canonical_nan(num::mul_rn(__uint_as_float(max_bits), 0.25f));
    return __float_as_uint(kBf16 ? num::nvfp4_row_scaled_rht_amax(amax) : amax);
  } else {
    return max_bits;
  }
}

// Where a thread sits in a tile: its 16-row group and column lane, first row and column.
template <typename T>
struct TileThread {
  using G = Geometry<T>;
  static constexpr int V = G::V;

  int64_t tr, tc;  // tile coordinates
  int rg, cl;      // this thread's 16-row group and column lane
  int64_t r0, c0;  // its first row and column
  int live_rows;   // how many of its 16 rows exist (0 when its columns do not)

  __device__ TileThread(const TileArgs& a, int64_t tile) {
    // In 32 bits: a launch has fewer than 2^31 tiles (launch_blocks).
    const uint32_t t = static_cast<uint32_t>(tile), ct = static_cast<uint32_t>(a.col_tiles);
    tr = t / ct;
    tc = t - static_cast<uint32_t>(tr) * ct;
    rg = threadIdx.x / G::kColLanes;
    cl = threadIdx.x % G::kColLanes;
    r0 = tr * kTile + rg * kBlock;
    c0 = tc * kTile + cl * V;
    live_rows = c0 < a.cols ? static_cast<int>(min(max(a.rows - r0, int64_t{0}), int64_t{kBlock})) : 0;
  }

  // This thread's vector of row r0 (rows follow every cols / V vectors); valid while a row is live.
  __device__ const uint4* first_vector(const TileArgs& a) const {
    return reinterpret_cast<const uint4*>(static_cast<const typename T::Raw*>(a.x) + r0 * a.cols + c0);
  }

  // Max over the lanes that share a rowwise block.
  __device__ static uint32_t block_lanes_max(uint32_t v) {
#pragma unroll
    for (int o = 1; o < G::kLanesPerBlock; o <<= 1) v = max(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
    return v;
  }
};

// The thread's 16 vectors in registers, zeros outside the matrix: the one-read amax passes.
template <typename T>
struct RegisterTile : TileThread<T> {
  uint4 raw[kBlock];

  __device__ RegisterTile(const TileArgs& a, int64_t tile) : TileThread<T>(a, tile) {
    const uint4* p = this->first_vector(a);
#pragma unroll
    for (int j = 0; j < kBlock; ++j, p += a.cols / this->V)
      raw[j] = j < this->live_rows ? __ldg(p) : make_uint4(0, 0, 0, 0);
  }
};

}  // namespace lowp::cuda::nvfp4
