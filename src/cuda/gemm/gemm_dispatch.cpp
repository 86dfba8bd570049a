// The CUDA backend of lowp_gemm: FP8 to cuBLASLt, NVFP4 to nvfp4_gemm (fused kernel or the
// exact fallback).
#include "core/gemm_args.h"
#include "cuda/gemm/fp8_gemm_cublaslt.h"
#include "cuda/gemm/nvfp4_gemm.h"

namespace lowp::cuda {
namespace {

Nvfp4GemmOperand nvfp4_operand(const GemmOperand& o) { return {o.codes, o.block_scales, o.scale_layout, o.outer}; }

Nvfp4OuterScale nvfp4_outer(GemmOuter o) {
  switch (o) {
    case GemmOuter::kNvfp4PerTokenFloored: return Nvfp4OuterScale::kPerTokenFloored;
    case GemmOuter::kNvfp4PerRowRaw: return Nvfp4OuterScale::kPerRowRaw;
    default: return Nvfp4OuterScale::kPerTensor;
  }
}

Nvfp4GemmArgs nvfp4_args(const GemmArgs& g) {
  Nvfp4GemmArgs a{};
  a.m = g.m;
  a.n = g.n;
  a.k = g.k;
  a.a = nvfp4_operand(g.a);
  a.b = nvfp4_operand(g.b);
  a.outer = nvfp4_outer(g.outer);
  a.inv_denominator = g.inv_denominator;
  a.d = g.d;
  a.d_dtype = g.d_dtype;
  a.bias = g.bias;
  a.bias_dtype = g.bias_dtype;
  a.accumulate = g.accumulate;
  return a;
}

}  // namespace

lowp_status gemm_workspace_bytes(const GemmArgs& g, size_t* bytes) {
  if (!is_nvfp4(g.outer)) return fp8_gemm_workspace_bytes(g, bytes);
  *bytes = nvfp4_gemm_workspace_bytes(nvfp4_args(g));
  return LOWP_SUCCESS;
}

lowp_status gemm(const GemmArgs& g, void* workspace, size_t workspace_bytes, void* stream) {
  if (!is_nvfp4(g.outer)) return fp8_gemm(g, workspace, workspace_bytes, stream);
  return nvfp4_gemm(nvfp4_args(g), workspace, workspace_bytes, stream);  // a smaller workspace picks a kernel
}

}  // namespace lowp::cuda
