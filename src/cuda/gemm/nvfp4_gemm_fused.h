// The fused NVFP4 tensor-core GEMM (nvfp4_mainloop_sm90.cuh + an EVT epilogue): the fast path of
// nvfp4_gemm() for the shapes and alignments it takes.
#pragma once
#include "cuda/gemm/nvfp4_gemm.h"

namespace lowp::cuda {

// True when the fused kernel takes these arguments as they are: K % 32 == 0, codes and scales
// 16-byte aligned, scales swizzled, D 16-byte aligned with N % 8 == 0 (bf16) / N % 4 == 0 (fp32),
// bias fp32 or absent, every extent below 2^31.
bool nvfp4_gemm_fused_supported(const Nvfp4GemmArgs& a);

// Enqueues the fused kernel; requires nvfp4_gemm_fused_supported(a).
lowp_status nvfp4_gemm_fused(const Nvfp4GemmArgs& a, void* stream);

}  // namespace lowp::cuda
