// nvfp4_gemm.h's entry points: the kernel choice for an NVFP4 GEMM (docs/perf/nvfp4-gemm.md).
#include "cuda/gemm/nvfp4_gemm.h"

#include "cuda/gemm/gemm_workspace.h"
#include "cuda/gemm/nvfp4_gemm_fused.h"
#include "cuda/gemm/nvfp4_gemm_simple.h"
#include "cuda/gemm/nvfp4_gemm_two_stage.h"

namespace lowp::cuda {

size_t nvfp4_gemm_workspace_bytes(const Nvfp4GemmArgs& a) {
  return nvfp4_gemm_two_stage_supported(a) ? nvfp4_gemm_two_stage_workspace_bytes(a) : 0;
}

// The two-stage path when the caller gave its workspace, else the fused kernel (no workspace)
// where it applies, else the exact simple kernel.
lowp_status nvfp4_gemm(const Nvfp4GemmArgs& a, void* workspace, size_t workspace_bytes, void* stream) {
  const size_t need = nvfp4_gemm_workspace_bytes(a);
  if (need > 0 && workspace_bytes >= need) {
    LOWP_TRY(check_gemm_workspace(need, workspace, workspace_bytes));
    return nvfp4_gemm_two_stage(a, workspace, stream);
  }
  if (nvfp4_gemm_fused_supported(a)) return nvfp4_gemm_fused(a, stream);
  return nvfp4_gemm_simple(a, stream);
}

}  // namespace lowp::cuda
