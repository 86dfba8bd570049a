// FP8 cast: x -> rowwise codes and/or columnwise (transposed) codes in one read of x.
// Scale sources: DELAYED reads *scale and folds max|x| into *amax; CURRENT derives the scale
// from *amax (written by the amax kernel just before); PER_TOKEN derives one scale per row and
// per column from row_amax / col_amax (written by the per-token amax kernel just before).
//
// Fast path: 64x64 tiles; a thread owns 4 consecutive rows x one 16-byte vector of columns, so
// each column's 4 codes pack into one 32-bit shared-memory word; the transposed tile then leaves
// as coalesced 16-byte stores. Anything the fast path cannot take (unaligned pointers, cols not a
// multiple of the vector, rows not a multiple of 16 with a columnwise output) runs the scalar
// kernel, which gives the same bytes.
#include <algorithm>

#include "common.cuh"
#include "common/backends.h"
#include "numerics/fp8_cast.h"
#include "numerics/fp8_scaling.h"

namespace lowp::cuda {
namespace {

constexpr int kTile = 64;
constexpr int kRowGroups = kTile / 4;  // threads along rows; each owns 4 rows

struct CastParams {
  const void* x;
  int64_t rows, cols;
  uint8_t* row_codes;
  uint8_t* col_codes;
  lowp_scaling scaling;
  float fp8_max, eps;
  bool pow2;
  const float* scale;  // DELAYED
  float* scale_out;    // CURRENT: written by block 0
  float* scale_inv;    // per-tensor: written by block 0
  float* amax;         // DELAYED: folded; CURRENT: read
  const float* row_amax;
  const float* col_amax;
  float* row_scale_inv;
  float* col_scale_inv;
};

__device__ __forceinline__ float scale_from(float amax, const CastParams& p) {
  return num::fp8_scale_from_amax(amax, p.fp8_max, p.eps, p.pow2);
}

// The per-tensor scale of this launch (DELAYED: given; CURRENT: from the amax pass).
__device__ __forceinline__ float tensor_scale(const CastParams& p) {
  return p.scaling == LOWP_SCALING_DELAYED ? *p.scale : scale_from(*p.amax, p);
}

// Per-tensor bookkeeping done once per launch by block 0, thread 0.
__device__ __forceinline__ void write_tensor_scales(const CastParams& p, float s) {
  if (p.scaling == LOWP_SCALING_CURRENT) *p.scale_out = s;
  *p.scale_inv = num::reciprocal_rn(s);
}

template <bool kE4M3>
__device__ __forceinline__ uint8_t enc(float v) {
  return kE4M3 ? num::encode_e4m3(v) : num::encode_e5m2(v);
}

template <typename T, bool kE4M3>
__global__ void __launch_bounds__(kRowGroups * (kTile / kVec<T>)) cast_tile_kernel(CastParams p) {
  constexpr int V = kVec<T>;
  constexpr int kColVecs = kTile / V;
  constexpr int kThreads = kRowGroups * kColVecs;
  __shared__ __align__(16) uint32_t tile_t[kTile][kTile / 4];  // [col][row/4]: 4 codes per word
  __shared__ uint32_t scratch[kThreads / 32];

  const int64_t col_tiles = (p.cols + kTile - 1) / kTile;
  const int64_t tr = blockIdx.x / col_tiles, tc = blockIdx.x % col_tiles;
  const int rg = threadIdx.x % kRowGroups, cv = threadIdx.x / kRowGroups;
  const int64_t r0 = tr * kTile + rg * 4;
  const int64_t c0 = tc * kTile + cv * V;
  const bool col_ok = c0 < p.cols;
  const bool per_token = p.scaling == LOWP_SCALING_PER_TOKEN;
  const auto* x = static_cast<const typename T::Raw*>(p.x);

  float v[4][V];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (col_ok && r0 + j < p.rows) {
      load_vec<T>(x + (r0 + j) * p.cols + c0, v[j]);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e) v[j][e] = 0.0f;
    }
  }

  float ts = 0.0f;
  if (!per_token) {
    ts = tensor_scale(p);
    if (blockIdx.x == 0 && threadIdx.x == 0) write_tensor_scales(p, ts);
    if (p.scaling == LOWP_SCALING_DELAYED) {
      uint32_t acc = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < V; ++e) acc = fold(acc, v[j][e]);
      acc = block_max(acc, scratch);
      if (threadIdx.x == 0) atomic_fold(p.amax, acc);
    }
  }

  if (p.row_codes != nullptr && col_ok) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t r = r0 + j;
      if (r >= p.rows) break;
      float s = ts;
      if (per_token) {
        s = scale_from(p.row_amax[r], p);
        if (tc == 0 && cv == 0) p.row_scale_inv[r] = num::reciprocal_rn(s);
      }
      union {
        uint16_t h[V / 2];
        uint8_t b[V];
      } out;
#pragma unroll
      for (int e = 0; e < V; e += 2) out.h[e / 2] = fp8x2<kE4M3>(num::mul_rn(v[j][e], s), num::mul_rn(v[j][e + 1], s));
      if constexpr (V == 8) {
        *reinterpret_cast<uint2*>(p.row_codes + r * p.cols + c0) = *reinterpret_cast<uint2*>(out.b);
      } else {
        *reinterpret_cast<uint32_t*>(p.row_codes + r * p.cols + c0) = *reinterpret_cast<uint32_t*>(out.b);
      }
    }
  }

  if (p.col_codes == nullptr) return;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    float s = ts;
    if (per_token && col_ok) {
      s = scale_from(p.col_amax[c0 + e], p);
      if (tr == 0 && rg == 0) p.col_scale_inv[c0 + e] = num::reciprocal_rn(s);
    }
    const uint32_t lo = fp8x2<kE4M3>(num::mul_rn(v[0][e], s), num::mul_rn(v[1][e], s));
    const uint32_t hi = fp8x2<kE4M3>(num::mul_rn(v[2][e], s), num::mul_rn(v[3][e], s));
    tile_t[cv * V + e][rg] = lo | (hi << 16);
  }
  __syncthreads();
  // The transposed tile: kTile rows (columns of x) of 64 codes = 4 chunks of 16 bytes each.
  for (int i = threadIdx.x; i < kTile * 4; i += kThreads) {
    const int tcol = i / 4, q = i % 4;
    const int64_t c = tc * kTile + tcol;
    const int64_t r = tr * kTile + q * 16;
    if (c < p.cols && r < p.rows)  // rows % 16 == 0 on this path: a chunk is all in or all out
      *reinterpret_cast<uint4*>(p.col_codes + c * p.rows + r) = *reinterpret_cast<const uint4*>(&tile_t[tcol][q * 4]);
  }
}

// One thread per element; same bytes as the tile kernel for any shape and alignment.
template <typename T, bool kE4M3>
__global__ void __launch_bounds__(256) cast_scalar_kernel(CastParams p) {
  __shared__ uint32_t scratch[8];
  const int64_t n = p.rows * p.cols;
  const bool per_token = p.scaling == LOWP_SCALING_PER_TOKEN;
  const float ts = per_token ? 0.0f : tensor_scale(p);
  if (!per_token && blockIdx.x == 0 && threadIdx.x == 0) write_tensor_scales(p, ts);
  const auto* x = static_cast<const typename T::Raw*>(p.x);
  uint32_t acc = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / p.cols, c = i % p.cols;
    const float v = to_f32<T>(x[i]);
    acc = fold(acc, v);
    if (p.row_codes) {
      float s = ts;
      if (per_token) {
        s = scale_from(p.row_amax[r], p);
        if (c == 0) p.row_scale_inv[r] = num::reciprocal_rn(s);
      }
      p.row_codes[i] = enc<kE4M3>(num::mul_rn(v, s));
    }
    if (p.col_codes) {
      float s = ts;
      if (per_token) {
        s = scale_from(p.col_amax[c], p);
        if (r == 0) p.col_scale_inv[c] = num::reciprocal_rn(s);
      }
      p.col_codes[c * p.rows + r] = enc<kE4M3>(num::mul_rn(v, s));
    }
  }
  if (p.scaling == LOWP_SCALING_DELAYED) {
    acc = block_max(acc, scratch);
    if (threadIdx.x == 0) atomic_fold(p.amax, acc);
  }
}

template <typename T, bool kE4M3>
lowp_status launch_cast(const CastParams& p, cudaStream_t s) {
  constexpr int V = kVec<T>;
  const bool fast = aligned16(p.x) && p.cols % V == 0 &&
                    (p.row_codes == nullptr || reinterpret_cast<uintptr_t>(p.row_codes) % V == 0) &&
                    (p.col_codes == nullptr || (aligned16(p.col_codes) && p.rows % 16 == 0));
  if (fast) {
    const int64_t tiles = ((p.rows + kTile - 1) / kTile) * ((p.cols + kTile - 1) / kTile);
    if (tiles > 0x7FFFFFFF) return fail(LOWP_ERROR_UNSUPPORTED, "fp8 cast: tensor too large for one launch");
    cast_tile_kernel<T, kE4M3><<<static_cast<unsigned>(tiles), kRowGroups * (kTile / V), 0, s>>>(p);
  } else {
    const int64_t n = p.rows * p.cols;
    const int grid = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((n + 255) / 256, int64_t{sm_count()} * 16)));
    cast_scalar_kernel<T, kE4M3><<<grid, 256, 0, s>>>(p);
  }
  return check_launch("fp8 cast kernel");
}

template <typename T>
lowp_status launch_cast_fmt(const CastParams& p, bool e4m3, cudaStream_t s) {
  return e4m3 ? launch_cast<T, true>(p, s) : launch_cast<T, false>(p, s);
}

}  // namespace

lowp_status fp8_quantize(const Fp8QuantizeArgs& a, void* stream) {
  cudaStream_t s = as_stream(stream);
  if (a.scaling == LOWP_SCALING_CURRENT) LOWP_TRY(amax(a.x, a.amax, stream));
  if (a.scaling == LOWP_SCALING_PER_TOKEN)
    LOWP_TRY(amax_per_token(a.x, a.row_codes ? a.row_amax : nullptr, a.col_codes ? a.col_amax : nullptr, stream));
  CastParams p{};
  p.x = a.x.data;
  p.rows = a.x.rows;
  p.cols = a.x.cols;
  p.row_codes = a.row_codes;
  p.col_codes = a.col_codes;
  p.scaling = a.scaling;
  p.fp8_max = fp8_max_of(a.out_dtype);
  p.eps = a.amax_epsilon;
  p.pow2 = a.power_of_two_scale;
  p.scale = a.scale;
  p.scale_out = a.scale;
  p.scale_inv = a.scale_inv;
  p.amax = a.amax;
  p.row_amax = a.row_amax;
  p.col_amax = a.col_amax;
  p.row_scale_inv = a.row_scale_inv;
  p.col_scale_inv = a.col_scale_inv;
  const bool e4m3 = a.out_dtype == LOWP_DTYPE_E4M3;
  switch (a.x.dtype) {
    case LOWP_DTYPE_BFLOAT16: return launch_cast_fmt<Bf16>(p, e4m3, s);
    case LOWP_DTYPE_FLOAT16: return launch_cast_fmt<F16>(p, e4m3, s);
    default: return launch_cast_fmt<F32>(p, e4m3, s);
  }
}

}  // namespace lowp::cuda
