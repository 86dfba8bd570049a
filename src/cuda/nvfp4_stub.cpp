// CUDA entry points of the NVFP4 per-tensor recipe until its kernels land: validation has run,
// nothing is enqueued or written, the call reports LOWP_ERROR_UNSUPPORTED.
#include "api/error.h"
#include "common/backends.h"

namespace lowp::cuda {
namespace {
lowp_status not_built_yet() {
  return fail(LOWP_ERROR_UNSUPPORTED, "NVFP4 CUDA kernels are not built yet (use host pointers for the CPU backend)");
}
}  // namespace

lowp_status nvfp4_quantize(const Nvfp4QuantizeArgs&, void*) { return not_built_yet(); }
lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs&, void*) { return not_built_yet(); }
lowp_status nvfp4_swizzle_scales(const Nvfp4SwizzleArgs&, void*) { return not_built_yet(); }

}  // namespace lowp::cuda
