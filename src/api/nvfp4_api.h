// NVFP4 per-tensor validation and dispatch, called from the shared entry points in fp8_api.cpp
// (lowp_quantize, lowp_dequantize, lowp_quantized_sizes_query) once the checks common to every
// recipe passed (x or out checked, q not NULL, dtype + scaling = E2M1 + NVFP4_PER_TENSOR).
#pragma once
#include "lowp/lowp.h"

namespace lowp::nvfp4_api {

lowp_status quantize(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config* cfg,
                     void* stream);
// part.data of the orientation was checked non-NULL; out's shape matches the orientation.
lowp_status dequantize(const lowp_quantized_tensor& q, lowp_orientation which, const lowp_tensor& out,
                       void* stream);
// rows, cols checked >= 1 and in range.
lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out);

}  // namespace lowp::nvfp4_api
