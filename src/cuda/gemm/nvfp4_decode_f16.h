// First stage of the two-stage NVFP4 GEMM: the NVFP4 copies of both operands decoded to exact
// fp16 in a workspace, in one launch.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "lowp/lowp.h"

namespace lowp::cuda {

// One copy to decode: out (rows x k fp16, 16-byte aligned) = e2m1(q) * float(s), no outer scale.
struct Nvfp4DecodeF16Job {
  const uint8_t* codes;  // 4-byte aligned
  const uint8_t* scales;
  lowp_scale_layout layout;
  int64_t rows, k;  // k % 32 == 0
  void* out;
};

lowp_status nvfp4_decode_f16(const Nvfp4DecodeF16Job& a, const Nvfp4DecodeF16Job& b, cudaStream_t stream);

}  // namespace lowp::cuda
