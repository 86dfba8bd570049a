// The fused NVFP4 GEMM: the NVFP4 mainloop (nvfp4_mainloop_sm90.cuh) in CUTLASS's cooperative
// persistent kernel with the outer-scale epilogue (nvfp4_epilogue_sm90.cuh).
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#include "cuda/gemm/nvfp4_epilogue_sm90.cuh"
#include "cuda/gemm/nvfp4_gemm_fused.h"
#include "cuda/gemm/nvfp4_mainloop_sm90.cuh"
#include "cuda/common/launch.h"
#include "cuda/gemm/sm90_launch.cuh"

namespace lowp::cuda {
namespace gemm_sm90 {

using Mainloop = Nvfp4Mainloop<4>;  // with 2 decode buffers, what fits beside the fp32 + C epilogue
using FusedEpilogue = OuterScaleEpilogue<Mainloop::TileShape>;

template <class ElementD, bool kAccumulate>
lowp_status run_fused(const Nvfp4GemmArgs& a, int sms, cudaStream_t stream) {
  using Epilogue = typename FusedEpilogue::template Collective<ElementD, kAccumulate, cute::Shape<cute::_1, cute::_1, cute::_1>>;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue,
                                                      cutlass::gemm::PersistentScheduler>;
  typename Mainloop::Arguments mainloop{a.a.codes, a.b.codes, a.a.scales, a.b.scales};
  cutlass::KernelHardwareInfo hw;
  hw.sm_count = sms;
  const auto epilogue =
      FusedEpilogue::template epilogue_arguments<Kernel, ElementD, kAccumulate>(a, Mainloop::kAccumulatorScale);
  typename Kernel::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                  {int(a.m), int(a.n), int(a.k), 1},
                                  mainloop,
                                  epilogue,
                                  hw};
  return run_sm90_kernel<Kernel>(args, stream, "NVFP4 GEMM (fused)");
}

}  // namespace gemm_sm90

bool nvfp4_gemm_fused_supported(const Nvfp4GemmArgs& a) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const int64_t kMax = int64_t(1) << 31;
  const bool bf16 = a.d_dtype == LOWP_DTYPE_BFLOAT16;
  if (!bf16 && a.d_dtype != LOWP_DTYPE_FLOAT32) return false;
  if (a.accumulate && bf16) return false;
  return a.m < kMax && a.n < kMax && a.k < kMax && a.k % 32 == 0 && a.n % (bf16 ? 8 : 4) == 0 &&
         aligned(a.a.codes) && aligned(a.b.codes) && aligned(a.a.scales) && aligned(a.b.scales) && aligned(a.d) &&
         a.a.scale_layout == LOWP_SCALE_LAYOUT_SWIZZLED && a.b.scale_layout == LOWP_SCALE_LAYOUT_SWIZZLED &&
         (a.bias == nullptr || a.bias_dtype == LOWP_DTYPE_FLOAT32);
}

lowp_status nvfp4_gemm_fused(const Nvfp4GemmArgs& a, void* stream) {
  using namespace gemm_sm90;
  const int sms = sm_count();
  auto s = static_cast<cudaStream_t>(stream);
  if (a.d_dtype == LOWP_DTYPE_BFLOAT16) return run_fused<cutlass::bfloat16_t, false>(a, sms, s);
  if (a.accumulate) return run_fused<float, true>(a, sms, s);
  return run_fused<float, false>(a, sms, s);
}

}  // namespace lowp::cuda
