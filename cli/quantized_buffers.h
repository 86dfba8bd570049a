// The C API calls the report makes to quantize a tensor: every buffer of one quantized tensor in
// the backend's memory, sized by the library, and lowp errors as exceptions.
#pragma once
#include <stdexcept>
#include <string>

#include "device_buffers.h"
#include "host_tensor.h"
#include "lowp/lowp.h"

namespace lowp_cli {

// A failed lowp call; the message carries the call, the status name and lowp_get_last_error()
// (LOWP_ERROR_UNSUPPORTED: the library's message alone).
struct LowpError : std::runtime_error {
  LowpError(lowp_status s, const std::string& msg) : std::runtime_error(msg), status(s) {}
  lowp_status status;
};

// Throws LowpError unless s is LOWP_SUCCESS; `call` names the C entry point.
void check(lowp_status s, const char* call);

// All buffers of one quantized tensor, in the backend's memory; q points at them.
struct QuantizedBuffers {
  Buffer data[2], scale_inv[2], amax[2];
  Buffer scale, tensor_scale_inv, tensor_amax;
  Buffer history;  // delayed scaling only
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
};

// With cfg.stochastic_rounding: a {seed, offset} state in the backend's memory (fixed, so a report
// is reproducible), pointed at by cfg.rng_state; else an empty buffer.
Buffer stochastic_rounding_state(lowp_quant_config& cfg, Backend b);

// Allocates qb for t quantized as dtype / scaling (compact scales). Returns whether the
// columnwise copy is made: asked for and the library has a size for it (NVFP4 has none when
// rows % 16 != 0; the rowwise copy is still valid then).
bool allocate(QuantizedBuffers& qb, lowp_dtype dtype, lowp_scaling scaling, bool columnwise, const HostTensor& t,
              Backend b);

}  // namespace lowp_cli
