// Decodes one NVFP4 copy to e2m1(q) * float(s) in fp16 (exact, numerics §8; the outer scale is
// left to the GEMM epilogue), row-major rows x k: the first stage of the two-stage NVFP4 GEMM.
// A thread takes 32 elements (16 code bytes, two block scales) and writes 64 bytes.
#include <cuda_fp16.h>

#include <algorithm>

#include "core/error.h"
#include "cuda/gemm/nvfp4_decode.cuh"
#include "cuda/gemm/nvfp4_decode_f16.h"
#include "numerics/swizzle.h"

namespace lowp::cuda {
namespace {

// Index = the group (row r, 32-element group q of the row); Index is 32-bit when every group
// index fits (the divisions then stay cheap). Two adjacent block scales are one 16-bit load in
// both layouts (j is even, and j, j + 1 share a 4-byte group in the swizzled one).
template <class Index>
__global__ void decode_f16_kernel(const uint8_t* __restrict__ codes, const uint8_t* __restrict__ scales,
                                  bool swizzled, Index rows, Index groups_per_row, uint4* __restrict__ out) {
  using namespace gemm_sm90;
  const int64_t scale_cols = num::scale_cols_padded(int64_t(groups_per_row) * 2);
  const Index groups = rows * groups_per_row;
  for (Index g = blockIdx.x * Index(blockDim.x) + threadIdx.x; g < groups; g += Index(gridDim.x) * blockDim.x) {
    const Index r = g / groups_per_row, j = (g - r * groups_per_row) * 2;  // first of two 16-blocks
    const uint4 w = *reinterpret_cast<const uint4*>(codes + int64_t(g) * 16);
    const uint32_t pair = *reinterpret_cast<const uint16_t*>(scales + num::scale_offset(r, j, scale_cols, swizzled));
    const uint32_t sc[2] = {scale_times64_f16x2(pair & 0xFFu), scale_times64_f16x2(pair >> 8)};
    const uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      uint32_t v[4];
      decode_e2m1x8_div64(words[q], v);
      const uint32_t s = sc[q / 2];
      out[int64_t(g) * 4 + q] = make_uint4(hmul2(v[0], s), hmul2(v[1], s), hmul2(v[2], s), hmul2(v[3], s));
    }
  }
}

}  // namespace

lowp_status nvfp4_decode_f16(const uint8_t* codes, const uint8_t* scales, lowp_scale_layout layout, int64_t rows,
                             int64_t k, void* out, cudaStream_t stream) {
  const int64_t groups = rows * (k / 32);
  if (groups == 0) return LOWP_SUCCESS;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((groups + threads - 1) / threads, int64_t(1) << 20);
  const bool swizzled = layout == LOWP_SCALE_LAYOUT_SWIZZLED;
  auto* o = static_cast<uint4*>(out);
  if (groups < (int64_t(1) << 31))
    decode_f16_kernel<uint32_t><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
        codes, scales, swizzled, uint32_t(rows), uint32_t(k / 32), o);
  else
    decode_f16_kernel<int64_t><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(codes, scales, swizzled, rows,
                                                                                       k / 32, o);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return fail(LOWP_ERROR_CUDA, "NVFP4 GEMM decode: kernel launch: %s", cudaGetErrorString(e));
  return LOWP_SUCCESS;
}

}  // namespace lowp::cuda
