// CUDA NVFP4 scale layout: the standalone compact -> swizzled scale copy (numerics §6). The
// dequantize is dequantize.cu.
#include <algorithm>

#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "numerics/swizzle.h"

namespace lowp::cuda {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{sm_count()} * 16)));
}

// Walks the swizzled array in output order, one 4-byte word (compact entries (i, j..j+3)) per
// step, so the writes are contiguous; padding words are zero.
__global__ void __launch_bounds__(kThreads)
    swizzle_kernel(const uint8_t* compact, uint8_t* swizzled, int64_t rows, int64_t blocks, int64_t padded_rows, bool words) {
  const int64_t padded_cols = num::scale_cols_padded(blocks), quads = padded_cols / 4;
  const int64_t n = padded_rows * quads;
  for (int64_t w = blockIdx.x * int64_t{kThreads} + threadIdx.x; w < n; w += int64_t{gridDim.x} * kThreads) {
    const int64_t atom = w / 128, in_atom = w % 128;  // 512-byte atoms of 128 rows x 4 columns
    const int64_t i = (atom / quads) * 128 + (in_atom % 4) * 32 + in_atom / 4, j = (atom % quads) * 4;
    uint32_t v = 0;
    if (i < rows)
      for (int k = 0; k < 4; ++k)
        if (j + k < blocks) v |= static_cast<uint32_t>(compact[i * padded_cols + j + k]) << (8 * k);
    uint8_t* dst = swizzled + w * 4;  // == swizzled_offset(i, j, padded_cols)
    if (words) {
      *reinterpret_cast<uint32_t*>(dst) = v;
    } else {
      for (int k = 0; k < 4; ++k) dst[k] = static_cast<uint8_t>(v >> (8 * k));
    }
  }
}

}  // namespace

lowp_status nvfp4_swizzle_scales(const Nvfp4SwizzleArgs& a, void* stream) {
  const int64_t padded_rows = num::scale_rows_padded(a.rows);
  const int64_t n = padded_rows * num::scale_cols_padded(a.blocks) / 4;
  const bool words = reinterpret_cast<uintptr_t>(a.swizzled) % 4 == 0;
  swizzle_kernel<<<grid_for(n), kThreads, 0, as_stream(stream)>>>(a.compact, a.swizzled, a.rows, a.blocks, padded_rows, words);
  return check_launch("nvfp4 swizzle kernel");
}

}  // namespace lowp::cuda
