// CUDA NVFP4 scale-layout and dequantize kernels: the standalone compact -> swizzled scale copy
// (SPEC §6) and the dequantize of one orientation of any NVFP4 recipe (numerics §3, §5, §5b).
#include <algorithm>

#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "numerics/nvfp4_scaling.h"
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

// One thread per 16-element block of the orientation, with its row's amax (nvfp4_dequantize_amax).
__global__ void __launch_bounds__(kThreads) dequantize_kernel(Nvfp4DequantizeArgs a) {
  const int64_t blocks = a.cols / 16, n = a.rows * blocks;
  const int64_t padded_cols = num::scale_cols_padded(blocks);
  const bool swizzled = a.scale_layout == LOWP_SCALE_LAYOUT_SWIZZLED;
  const float inv_outer = num::nvfp4_outer_reciprocal(a.outer_max);
  for (int64_t idx = blockIdx.x * int64_t{kThreads} + threadIdx.x; idx < n; idx += int64_t{gridDim.x} * kThreads) {
    const int64_t r = idx / blocks, jb = idx % blocks;
    const uint8_t s = a.scales[num::scale_offset(r, jb, padded_cols, swizzled)];
    const float amax = nvfp4_dequantize_amax(a, r);
    for (int t = 0; t < 16; t += 2) {
      const uint8_t byte = a.codes[r * (a.cols / 2) + jb * 8 + t / 2];
      store_as(a.out, a.out_dtype, r * a.cols + jb * 16 + t,
               num::canonical_nan(num::nvfp4_dequantize(byte & 0xF, s, amax, inv_outer)));
      store_as(a.out, a.out_dtype, r * a.cols + jb * 16 + t + 1,
               num::canonical_nan(num::nvfp4_dequantize(byte >> 4, s, amax, inv_outer)));
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

lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs& a, void* stream) {
  dequantize_kernel<<<grid_for(a.rows * (a.cols / 16)), kThreads, 0, as_stream(stream)>>>(a);
  return check_launch("nvfp4 dequantize kernel");
}

}  // namespace lowp::cuda
