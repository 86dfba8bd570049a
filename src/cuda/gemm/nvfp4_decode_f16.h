// First stage of the two-stage NVFP4 GEMM: one NVFP4 copy decoded to exact fp16 in a workspace.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "lowp/lowp.h"

namespace lowp::cuda {

// out: rows x k fp16 (16-byte aligned) = e2m1(q) * float(s), no outer scale. Requires k % 32 == 0
// and 16-byte-aligned codes.
lowp_status nvfp4_decode_f16(const uint8_t* codes, const uint8_t* scales, lowp_scale_layout layout, int64_t rows,
                             int64_t k, void* out, cudaStream_t stream);

}  // namespace lowp::cuda
