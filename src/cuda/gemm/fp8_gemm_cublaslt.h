// FP8 GEMMs on cuBLASLt (numerics §8): per-tensor scale pointers or per-token OUTER_VEC_32F
// vectors, bf16 bias through the epilogue, accumulate as beta = 1 with C = D.
#pragma once
#include <cstddef>

#include "core/gemm_args.h"

namespace lowp::cuda {

// Workspace of the algorithm cuBLASLt picks for this problem (at most 32 MiB); a problem it has
// no algorithm for fails with LOWP_ERROR_UNSUPPORTED.
lowp_status fp8_gemm_workspace_bytes(const GemmArgs& a, size_t* bytes);

// Checks the workspace against the algorithm's need, then enqueues the GEMM on `stream`.
lowp_status fp8_gemm(const GemmArgs& a, void* workspace, size_t workspace_bytes, void* stream);

}  // namespace lowp::cuda
