// CUDA entry points of the NVFP4 per-token recipe (single tensor, K1 alone, dequantize, grouped)
// until its kernels land: validation has run, nothing is enqueued or written, the call reports
// LOWP_ERROR_UNSUPPORTED.
#include "api/error.h"
#include "common/backends.h"

namespace lowp::cuda {
namespace {
lowp_status not_built_yet() {
  return fail(LOWP_ERROR_UNSUPPORTED,
              "NVFP4 per-token CUDA kernels are not built yet (use host pointers for the CPU backend)");
}
}  // namespace

lowp_status nvfp4_per_token_quantize(const Nvfp4PerTokenArgs&, void*) { return not_built_yet(); }
lowp_status nvfp4_per_token_amax(const Nvfp4PerTokenAmaxArgs&, void*) { return not_built_yet(); }
lowp_status nvfp4_per_token_dequantize(const Nvfp4DequantizeArgs&, void*) { return not_built_yet(); }
lowp_status nvfp4_grouped_quantize(const Nvfp4GroupedArgs&, void*) { return not_built_yet(); }
lowp_status nvfp4_grouped_amax(const Nvfp4GroupedAmaxArgs&, void*) { return not_built_yet(); }

}  // namespace lowp::cuda
