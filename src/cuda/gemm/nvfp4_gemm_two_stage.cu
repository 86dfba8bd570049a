// The two-stage NVFP4 GEMM: both copies decoded once to exact fp16 in the caller's workspace
// (nvfp4_decode_f16.cu), then CUTLASS's fp16 TMA warp-specialized GEMM with the outer-scale
// epilogue. Decoding each element once costs a memory pass; the fused mainloop instead decodes
// each code tile in every CTA that reads it (M/128 + N/256 times), which dominates at large shapes.
#include <cuda_bf16.h>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#include <algorithm>

#include "cuda/gemm/nvfp4_decode_f16.h"
#include "cuda/gemm/nvfp4_epilogue_sm90.cuh"
#include "cuda/gemm/nvfp4_gemm_two_stage.h"
#include "cuda/common/launch.h"
#include "cuda/gemm/sm90_launch.cuh"

namespace lowp::cuda {
namespace gemm_sm90 {

using TwoStageTile = cute::Shape<cute::_128, cute::_256, cute::_64>;
using TwoStageCluster = cute::Shape<cute::_2, cute::_1, cute::_1>;
using TwoStageEpilogue = OuterScaleEpilogue<TwoStageTile>;

template <class ElementD, bool kAccumulate>
lowp_status run_two_stage(const Nvfp4GemmArgs& a, const cutlass::half_t* da, const cutlass::half_t* db, int sms,
                          cudaStream_t stream) {
  using Epilogue = typename TwoStageEpilogue::template Collective<ElementD, kAccumulate, TwoStageCluster>;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::half_t, cutlass::layout::RowMajor, 8,
      cutlass::half_t, cutlass::layout::ColumnMajor, 8, float, TwoStageTile, TwoStageCluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue,
                                                      cutlass::gemm::PersistentScheduler>;
  const int64_t m = a.m, n = a.n, k = a.k;
  cutlass::KernelHardwareInfo hw;
  hw.sm_count = sms;
  typename Kernel::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                  {int(m), int(n), int(k), 1},
                                  {da, {k, cute::_1{}, m * k}, db, {k, cute::_1{}, n * k}},
                                  TwoStageEpilogue::template epilogue_arguments<Kernel, ElementD, kAccumulate>(a),
                                  hw};
  return run_sm90_kernel<Kernel>(args, stream, "NVFP4 GEMM (two-stage)", /*early=*/true);
}

size_t round_up_256(size_t v) { return (v + 255) / 256 * 256; }

// The epilogue reads an fp32 bias; a bf16 one is widened (exactly) into the workspace.
__global__ void widen_bias_kernel(const __nv_bfloat16* in, float* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = __bfloat162float(in[i]);
}

struct WorkspaceLayout {
  size_t a, b, bias, total;  // byte offsets of the decoded A, decoded B, widened bias; total size
};

WorkspaceLayout workspace_layout(const Nvfp4GemmArgs& a) {
  WorkspaceLayout w{};
  w.b = round_up_256(size_t(a.m) * size_t(a.k) * 2);
  w.bias = w.b + round_up_256(size_t(a.n) * size_t(a.k) * 2);
  const bool widen = a.bias != nullptr && a.bias_dtype == LOWP_DTYPE_BFLOAT16;
  w.total = w.bias + (widen ? round_up_256(size_t(a.n) * 4) : 0);
  return w;
}

}  // namespace gemm_sm90

size_t nvfp4_gemm_two_stage_workspace_bytes(const Nvfp4GemmArgs& a) { return gemm_sm90::workspace_layout(a).total; }

bool nvfp4_gemm_two_stage_supported(const Nvfp4GemmArgs& a) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const int64_t kMax = int64_t(1) << 31;
  const bool bf16 = a.d_dtype == LOWP_DTYPE_BFLOAT16;
  if (!bf16 && a.d_dtype != LOWP_DTYPE_FLOAT32) return false;
  if (a.accumulate && bf16) return false;
  return a.m < kMax && a.n < kMax && a.k < kMax && a.m * a.k < kMax * 4 && a.k % 32 == 0 &&
         a.n % (bf16 ? 8 : 4) == 0 && aligned(a.a.codes) && aligned(a.b.codes) && aligned(a.d);
}

lowp_status nvfp4_gemm_two_stage(const Nvfp4GemmArgs& a, void* workspace, void* stream) {
  using namespace gemm_sm90;
  auto s = static_cast<cudaStream_t>(stream);
  const WorkspaceLayout w = workspace_layout(a);
  auto* base = static_cast<uint8_t*>(workspace);
  auto* da = reinterpret_cast<cutlass::half_t*>(base + w.a);
  auto* db = reinterpret_cast<cutlass::half_t*>(base + w.b);
  Nvfp4GemmArgs args = a;
  if (w.total > w.bias) {
    auto* widened = reinterpret_cast<float*>(base + w.bias);
    widen_bias_kernel<<<static_cast<unsigned>(std::min<int64_t>((a.n + 255) / 256, 1024)), 256, 0, s>>>(
        static_cast<const __nv_bfloat16*>(a.bias), widened, a.n);
    args.bias = widened;
    args.bias_dtype = LOWP_DTYPE_FLOAT32;
  }
  if (lowp_status st = nvfp4_decode_f16({a.a.codes, a.a.scales, a.a.scale_layout, a.m, a.k, da},
                                         {a.b.codes, a.b.scales, a.b.scale_layout, a.n, a.k, db}, s);
      st != LOWP_SUCCESS)
    return st;
  const int sms = sm_count();
  if (args.d_dtype == LOWP_DTYPE_BFLOAT16) return run_two_stage<cutlass::bfloat16_t, false>(args, da, db, sms, s);
  if (args.accumulate) return run_two_stage<float, true>(args, da, db, sms, s);
  return run_two_stage<float, false>(args, da, db, sms, s);
}

}  // namespace lowp::cuda
