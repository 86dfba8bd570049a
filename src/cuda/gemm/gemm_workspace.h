// The caller's GEMM workspace against what the chosen kernel needs (lowp/gemm.h's rule), checked
// by each CUDA GEMM path before it enqueues anything.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/error.h"

namespace lowp::cuda {

inline lowp_status check_gemm_workspace(size_t need, const void* workspace, size_t workspace_bytes) {
  if (workspace_bytes < need)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "workspace_bytes is %zu; this GEMM needs %zu bytes of device workspace (lowp_gemm_workspace_size)",
                workspace_bytes, need);
  if (need > 0 && workspace == nullptr)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "workspace is NULL; this GEMM needs %zu bytes of device workspace", need);
  if (need > 0 && reinterpret_cast<uintptr_t>(workspace) % 256 != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "workspace is not aligned to 256 bytes");
  return LOWP_SUCCESS;
}

}  // namespace lowp::cuda
