// The exact fallback NVFP4 GEMM (numerics §8): a 64 x 64 tile of D per block of 256 threads, each
// thread 4 x 4 outputs. Per 64-deep slice of K the block decodes both operand tiles to fp32 in
// shared memory (e2m1(q) * float(s), exact), then every thread sums its products in K order with
// fp32 FMAs (each product is exact, so an FMA rounds like the add alone) and applies the epilogue
// of nvfp4_gemm.h in its order. Codes are read as coalesced bytes; the scales through the compact
// or swizzled index of numerics/swizzle.h.
#include "core/error.h"
#include "cuda/common/common.cuh"
#include "numerics/gemm.h"
#include "numerics/swizzle.h"
#include "cuda/gemm/nvfp4_gemm_simple.h"

namespace lowp::cuda {
namespace {

constexpr int kTile = 64;       // rows of A and of B per block
constexpr int kSlice = 64;      // K elements per shared-memory slice
constexpr int kThreads = 256;   // 16 x 16 threads, 4 x 4 outputs each
constexpr int kPitch = kTile + 4;  // keeps float4 reads aligned

// tile[k][r] = value of operand row row0 + r at K index k0 + k, for k < kn (0 past the rows).
__device__ void load_slice(const Nvfp4GemmOperand& op, int64_t rows, int64_t k, int64_t row0, int64_t k0, int kn,
                           float (*tile)[kPitch]) {
  const int64_t row_bytes = k / 2, padded_cols = num::scale_cols_padded(k / 16);
  const bool swizzled = op.scale_layout == LOWP_SCALE_LAYOUT_SWIZZLED;
  const int slice_bytes = kn / 2;
  for (int e = threadIdx.x; e < kTile * (kSlice / 2); e += kThreads) {
    const int r = e / (kSlice / 2), c = e % (kSlice / 2);
    if (c >= slice_bytes) continue;
    const int64_t row = row0 + r;
    float lo = 0.0f, hi = 0.0f;
    if (row < rows) {
      const uint8_t byte = op.codes[row * row_bytes + k0 / 2 + c];
      const uint8_t s = op.scales[num::scale_offset(row, (k0 + 2 * c) / 16, padded_cols, swizzled)];
      lo = num::nvfp4_gemm_value(byte & 0xF, s);
      hi = num::nvfp4_gemm_value(byte >> 4, s);
    }
    tile[2 * c][r] = lo;
    tile[2 * c + 1][r] = hi;
  }
}

__device__ float outer_scale(const Nvfp4GemmArgs& a, float alpha, int64_t i, int64_t j, float acc) {
  switch (a.outer) {
    case Nvfp4OuterScale::kPerTensor: return num::mul_rn(alpha, acc);
    case Nvfp4OuterScale::kPerTokenFloored:
      return num::nvfp4_gemm_outer_per_row(num::nvfp4_per_token_amax(a.a.amax[i]), num::nvfp4_per_token_amax(a.b.amax[j]),
                                           a.inv_denominator, acc);
    case Nvfp4OuterScale::kPerRowRaw: return num::nvfp4_gemm_outer_per_row(a.a.amax[i], a.b.amax[j], a.inv_denominator, acc);
  }
  return acc;
}

__global__ void __launch_bounds__(kThreads) nvfp4_gemm_simple_kernel(Nvfp4GemmArgs a) {
  __shared__ __align__(16) float as[kSlice][kPitch];
  __shared__ __align__(16) float bs[kSlice][kPitch];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const float alpha =
      a.outer == Nvfp4OuterScale::kPerTensor ? num::nvfp4_gemm_alpha(a.a.amax[0], a.b.amax[0], a.inv_denominator) : 0.0f;
  for (int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile; row0 < a.m; row0 += static_cast<int64_t>(gridDim.y) * kTile) {
    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < a.k; k0 += kSlice) {
      const int kn = static_cast<int>(a.k - k0 < kSlice ? a.k - k0 : kSlice);
      load_slice(a.a, a.m, a.k, row0, k0, kn, as);
      load_slice(a.b, a.n, a.k, col0, k0, kn, bs);
      __syncthreads();
      for (int kk = 0; kk < kn; ++kk) {
        const float4 av = *reinterpret_cast<const float4*>(&as[kk][ty * 4]);
        const float4 bv = *reinterpret_cast<const float4*>(&bs[kk][tx * 4]);
        const float ar[4] = {av.x, av.y, av.z, av.w}, br[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) acc[i][j] = __fmaf_rn(ar[i], br[j], acc[i][j]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int64_t row = row0 + ty * 4 + i;
      if (row >= a.m) continue;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t col = col0 + tx * 4 + j;
        if (col >= a.n) continue;
        float r = outer_scale(a, alpha, row, col, acc[i][j]);
        if (a.bias != nullptr) {
          const float bias = a.bias_dtype == LOWP_DTYPE_BFLOAT16 ? num::bf16_to_f32(static_cast<const uint16_t*>(a.bias)[col])
                                                                  : static_cast<const float*>(a.bias)[col];
          r = num::gemm_add_bias(r, bias);
        }
        const int64_t at = row * a.n + col;
        if (a.accumulate) r = num::gemm_accumulate(static_cast<const float*>(a.d)[at], r);
        store_as(a.d, a.d_dtype, at, r);
      }
    }
  }
}

}  // namespace

lowp_status nvfp4_gemm_simple(const Nvfp4GemmArgs& a, void* stream) {
  const int64_t col_tiles = (a.n + kTile - 1) / kTile, row_tiles = (a.m + kTile - 1) / kTile;
  if (col_tiles > 0x7FFFFFFF)
    return fail(LOWP_ERROR_UNSUPPORTED, "NVFP4 GEMM: N = %lld needs more than 2^31 - 1 column tiles",
                static_cast<long long>(a.n));
  const dim3 grid(static_cast<unsigned>(col_tiles), static_cast<unsigned>(row_tiles < 65535 ? row_tiles : 65535));
  nvfp4_gemm_simple_kernel<<<grid, kThreads, 0, as_stream(stream)>>>(a);
  return check_launch("NVFP4 GEMM (simple kernel)");
}

}  // namespace lowp::cuda
