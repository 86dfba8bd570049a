// Build without the CUDA backend: every pointer is host memory, the CUDA entry points are
// unreachable (validation routes everything to the CPU) but still defined.
#include "core/backends.h"
#include "core/error.h"
#include "core/gemm_args.h"
#include "core/memory.h"

namespace lowp {
MemorySpace memory_space_of(const void*) { return MemorySpace::kHost; }
}  // namespace lowp

namespace lowp::cuda {
namespace {
lowp_status not_built() {
  return fail(LOWP_ERROR_UNSUPPORTED, "this lowp was built without the CUDA backend");
}
}  // namespace
bool available() { return false; }
lowp_status fp8_quantize(const Fp8QuantizeArgs&, void*) { return not_built(); }
lowp_status fp8_dequantize(const Fp8DequantizeArgs&, void*) { return not_built(); }
lowp_status amax(const DenseView&, float*, void*) { return not_built(); }
lowp_status amax_per_token(const DenseView&, float*, float*, void*) { return not_built(); }
lowp_status fp8_delayed_update(const DelayedUpdateArgs&, void*) { return not_built(); }
lowp_status grouped_fp8_quantize(const GroupedFp8Args&, void*) { return not_built(); }
lowp_status grouped_amax(const GroupedFp8Args&, void*) { return not_built(); }
lowp_status grouped_fp8_dequantize(const GroupedDequantizeArgs&, void*) { return not_built(); }
lowp_status grouped_layout_error(const void*, int64_t*, void*) { return not_built(); }
lowp_status nvfp4_quantize(const Nvfp4QuantizeArgs&, void*) { return not_built(); }
lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs&, void*) { return not_built(); }
lowp_status nvfp4_swizzle_scales(const Nvfp4SwizzleArgs&, void*) { return not_built(); }
lowp_status nvfp4_per_token_quantize(const Nvfp4PerTokenArgs&, void*) { return not_built(); }
lowp_status nvfp4_per_token_amax(const Nvfp4PerTokenAmaxArgs&, void*) { return not_built(); }
lowp_status nvfp4_grouped_quantize(const Nvfp4GroupedArgs&, void*) { return not_built(); }
lowp_status nvfp4_grouped_amax(const Nvfp4GroupedAmaxArgs&, void*) { return not_built(); }
lowp_status rng_advance(uint64_t*, uint64_t, void*) { return not_built(); }
lowp_status gemm_workspace_bytes(const GemmArgs&, size_t*) { return not_built(); }
lowp_status gemm(const GemmArgs&, void*, size_t, void*) { return not_built(); }
}  // namespace lowp::cuda
