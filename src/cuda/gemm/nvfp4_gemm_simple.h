// The exact fallback NVFP4 GEMM: any shape and alignment nvfp4_gemm.h admits (K % 16 == 0, 1-row
// and 1-column outputs, odd M and N), compact or swizzled scales, the epilogue of nvfp4_gemm.h.
#pragma once
#include "cuda/gemm/nvfp4_gemm.h"

namespace lowp::cuda {

lowp_status nvfp4_gemm_simple(const Nvfp4GemmArgs& a, void* stream);

}  // namespace lowp::cuda
