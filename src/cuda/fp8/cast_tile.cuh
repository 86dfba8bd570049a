// The FP8 cast of one tile, shared by the single-tensor and grouped cast kernels.
//
// A tile is 128 rows x 64 columns of one matrix. On the vector path a thread owns 8 consecutive
// rows x one 16-byte vector of columns. Lanes run along the columns first, so one warp load
// reads whole 128-byte lines (a row-group-first mapping multiplies the L2 requests).
// Rowwise codes leave as one 4- or 8-byte store per row; each column's 8 codes pack into two
// 32-bit shared-memory words, and the transposed tile leaves as 16-byte stores of 128
// contiguous bytes per column. Shared-memory chunks are XOR-swizzled by column group so those
// word writes spread over the banks. The scalar path (any shape or alignment) walks the tile
// element by element and gives the same bytes.
#pragma once
#include "cuda/common/common.cuh"
#include "numerics/activation_grad.h"
#include "numerics/fp8_cast.h"
#include "numerics/fp8_scaling.h"

namespace lowp::cuda {

// Every FP8 cast tile is kCastTileRows x kCastTileCols, whatever the input type.
constexpr int64_t kCastTileRows = 128, kCastTileCols = 64;

enum Act : int { kActNone = -1, kActGelu = LOWP_ACTIVATION_GELU_TANH, kActSilu = LOWP_ACTIVATION_SILU, kActRelu = LOWP_ACTIVATION_RELU };

template <int kAct>
__device__ __forceinline__ float fused_value(float g, float a) {
  if constexpr (kAct == kActNone) return g;
  else return num::dact_times_grad<kAct>(a, g);
}

// Where one matrix's (a tensor's or a group member's) input and outputs live.
struct TileMatrix {
  const void* x;    // element (r, c) at x[r * cols + c]
  const void* act;  // activation input, same layout (dact casts only)
  int64_t rows, cols;
  uint8_t* row_codes;  // rows x cols, or null
  uint8_t* col_codes;  // cols x rows, or null
};

// Scales of one matrix: per-tensor, or per row / per column from amaxes (per-token).
struct TileScales {
  float tensor_scale;
  const float* row_amax;  // per-token only
  const float* col_amax;
  float* row_scale_inv;  // written by tiles of column 0 / row 0
  float* col_scale_inv;
  float fp8_max, eps;
  bool pow2;

  __device__ __forceinline__ float from(float amax) const { return num::fp8_scale_from_amax(amax, fp8_max, eps, pow2); }
};

template <typename T, bool kE4M3, int kAct>
struct CastTile {
  using Raw = typename T::Raw;
  static constexpr int V = kVec<T>;
  static constexpr int kRowsPerThread = 8;
  static constexpr int kRows = kCastTileRows, kCols = kCastTileCols;
  static constexpr int kRowGroups = kRows / kRowsPerThread;  // 16
  static constexpr int kColVecs = kCols / V;
  static constexpr int kThreads = kRowGroups * kColVecs;
  static constexpr int kChunks = kRows / 16;  // 16-byte chunks per transposed row

  __device__ static int row_group() { return threadIdx.x / kColVecs; }
  __device__ static int col_vec() { return threadIdx.x % kColVecs; }
  // Physical 16-byte chunk of logical chunk q in transposed row `tcol`.
  __device__ static int swizzle(int tcol, int q) { return q ^ ((tcol / V) % kChunks); }
  static constexpr bool kHasAct = kAct != kActNone;

  struct Smem {
    __align__(16) uint32_t t[kCols][kRows / 4];  // transposed codes: [col][row/4]
    uint32_t scratch[kThreads / 32];
  };

  // Whether a matrix can take the vector path.
  __host__ __device__ static bool vector_ok(const TileMatrix& m) {
    return aligned16(m.x) && (!kHasAct || aligned16(m.act)) && m.cols % V == 0 &&
           (m.row_codes == nullptr || reinterpret_cast<uintptr_t>(m.row_codes) % V == 0) &&
           (m.col_codes == nullptr || (aligned16(m.col_codes) && m.rows % 16 == 0));
  }

  struct Loaded {
    uint4 x[kRowsPerThread];
    uint4 a[kHasAct ? kRowsPerThread : 1];
  };

  __device__ static void load(const TileMatrix& m, int64_t tr, int64_t tc, Loaded& L) {
    const int rg = row_group(), cv = col_vec();
    const int64_t r0 = tr * kRows + rg * kRowsPerThread, c0 = tc * kCols + cv * V;
    const auto* x = static_cast<const Raw*>(m.x);
    const auto* a = static_cast<const Raw*>(m.act);
#pragma unroll
    for (int j = 0; j < kRowsPerThread; ++j) {
      const bool ok = c0 < m.cols && r0 + j < m.rows;
      L.x[j] = ok ? __ldg(reinterpret_cast<const uint4*>(x + (r0 + j) * m.cols + c0)) : make_uint4(0, 0, 0, 0);
      if constexpr (kHasAct)
        L.a[j] = ok ? __ldg(reinterpret_cast<const uint4*>(a + (r0 + j) * m.cols + c0)) : make_uint4(0, 0, 0, 0);
    }
  }

  __device__ static float value(const Loaded& L, int j, int e) {
    union U { uint4 u; Raw r[V]; };
    const float g = to_f32<T>(reinterpret_cast<const U*>(&L.x[j])->r[e]);
    if constexpr (kHasAct) return fused_value<kAct>(g, to_f32<T>(reinterpret_cast<const U*>(&L.a[j])->r[e]));
    else return g;
  }

  // amax bits of the loaded tile (zeros stand in for out-of-range elements).
  __device__ static uint32_t amax_of(const Loaded& L) {
    uint32_t acc = 0;
    if constexpr (kHasAct) {
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j)
#pragma unroll
        for (int e = 0; e < V; ++e) acc = fold(acc, value(L, j, e));
      return acc;
    } else {
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) acc = fold_raw<T>(acc, L.x[j]);
      return widen_folded<T>(acc);
    }
  }

  // Writes the tile's codes (and per-token scale_inv entries it owns). Vector path only.
  __device__ static void store(const TileMatrix& m, const TileScales& s, int64_t tr, int64_t tc, const Loaded& L, Smem& sm) {
    const int rg = row_group(), cv = col_vec();
    const int64_t r0 = tr * kRows + rg * kRowsPerThread, c0 = tc * kCols + cv * V;
    const bool col_ok = c0 < m.cols;
    if (m.row_codes != nullptr && col_ok) {
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) {
        const int64_t r = r0 + j;
        if (r >= m.rows) break;
        float sc = s.tensor_scale;
        if (s.row_amax != nullptr) {
          sc = s.from(s.row_amax[r]);
          if (tc == 0 && cv == 0) s.row_scale_inv[r] = num::reciprocal_rn(sc);
        }
        union { uint16_t h[V / 2]; uint2 u2; uint32_t u1; } out;
#pragma unroll
        for (int e = 0; e < V; e += 2) out.h[e / 2] = fp8x2<kE4M3>(num::mul_rn(value(L, j, e), sc), num::mul_rn(value(L, j, e + 1), sc));
        if constexpr (V == 8) *reinterpret_cast<uint2*>(m.row_codes + r * m.cols + c0) = out.u2;
        else *reinterpret_cast<uint32_t*>(m.row_codes + r * m.cols + c0) = out.u1;
      }
    }
    if (m.col_codes == nullptr) return;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      float sc = s.tensor_scale;
      if (s.col_amax != nullptr && col_ok) {
        sc = s.from(s.col_amax[c0 + e]);
        if (tr == 0 && rg == 0) s.col_scale_inv[c0 + e] = num::reciprocal_rn(sc);
      }
#pragma unroll
      for (int w = 0; w < kRowsPerThread / 4; ++w) {
        const uint32_t lo = fp8x2<kE4M3>(num::mul_rn(value(L, 4 * w, e), sc), num::mul_rn(value(L, 4 * w + 1, e), sc));
        const uint32_t hi = fp8x2<kE4M3>(num::mul_rn(value(L, 4 * w + 2, e), sc), num::mul_rn(value(L, 4 * w + 3, e), sc));
        const int word = rg * (kRowsPerThread / 4) + w;
        sm.t[cv * V + e][swizzle(cv * V + e, word / 4) * 4 + word % 4] = lo | (hi << 16);
      }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kCols * kChunks; i += kThreads) {
      const int tcol = i / kChunks, q = i % kChunks;
      const int64_t c = tc * kCols + tcol, r = tr * kRows + q * 16;
      if (c < m.cols && r < m.rows)  // rows % 16 == 0 here: a chunk is all in or all out
        *reinterpret_cast<uint4*>(m.col_codes + c * m.rows + r) =
            *reinterpret_cast<const uint4*>(&sm.t[tcol][swizzle(tcol, q) * 4]);
    }
    __syncthreads();  // the next tile reuses sm.t
  }

  // Scalar path for one tile: any shape and alignment. Returns the tile's amax bits (this
  // thread's share) and writes codes unless amax_only.
  __device__ static uint32_t scalar(const TileMatrix& m, const TileScales& s, int64_t tr, int64_t tc, bool amax_only) {
    const auto* x = static_cast<const Raw*>(m.x);
    const auto* a = static_cast<const Raw*>(m.act);
    uint32_t acc = 0;
    for (int i = threadIdx.x; i < kRows * kCols; i += kThreads) {
      const int64_t r = tr * kRows + i / kCols, c = tc * kCols + i % kCols;
      if (r >= m.rows || c >= m.cols) continue;
      const int64_t idx = r * m.cols + c;
      float v = to_f32<T>(x[idx]);
      if constexpr (kHasAct) v = fused_value<kAct>(v, to_f32<T>(a[idx]));
      acc = fold(acc, v);
      if (amax_only) continue;
      if (m.row_codes != nullptr) {
        float sc = s.tensor_scale;
        if (s.row_amax != nullptr) {
          sc = s.from(s.row_amax[r]);
          if (c == 0) s.row_scale_inv[r] = num::reciprocal_rn(sc);
        }
        m.row_codes[idx] = num::fp8_quantize_element<kE4M3>(v, sc);
      }
      if (m.col_codes != nullptr) {
        float sc = s.tensor_scale;
        if (s.col_amax != nullptr) {
          sc = s.from(s.col_amax[c]);
          if (r == 0) s.col_scale_inv[c] = num::reciprocal_rn(sc);
        }
        m.col_codes[c * m.rows + r] = num::fp8_quantize_element<kE4M3>(v, sc);
      }
    }
    return acc;
  }
};

}  // namespace lowp::cuda
