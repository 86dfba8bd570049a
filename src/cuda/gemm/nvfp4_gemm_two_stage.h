// The two-stage NVFP4 GEMM (exact fp16 decode into a workspace, then a CUTLASS fp16 GEMM with the
// outer-scale epilogue): the fast path of nvfp4_gemm() when the caller provides its workspace.
#pragma once
#include <cstddef>

#include "cuda/gemm/nvfp4_gemm.h"

namespace lowp::cuda {

// m * k and n * k fp16 values (and n floats for a bf16 bias), each rounded up to 256 bytes.
size_t nvfp4_gemm_two_stage_workspace_bytes(const Nvfp4GemmArgs& a);

// True for K % 32 == 0, 16-byte-aligned codes and D, N % 8 == 0 (bf16) / N % 4 == 0 (fp32),
// extents below 2^31; either scale layout, either bias type.
bool nvfp4_gemm_two_stage_supported(const Nvfp4GemmArgs& a);

// Requires nvfp4_gemm_two_stage_supported(a) and nvfp4_gemm_two_stage_workspace_bytes(a) bytes of
// 256-byte-aligned device workspace.
lowp_status nvfp4_gemm_two_stage(const Nvfp4GemmArgs& a, void* workspace, void* stream);

}  // namespace lowp::cuda
