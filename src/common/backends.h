// The two backends' entry points. Each takes validated POD arguments; the CUDA ones enqueue on
// `stream` and return LOWP_ERROR_CUDA (with the message set) if a launch fails.
#pragma once
#include "fp8_args.h"

namespace lowp::cpu {
lowp_status fp8_quantize(const Fp8QuantizeArgs& a);
lowp_status fp8_dequantize(const Fp8DequantizeArgs& a);
lowp_status amax(const DenseView& x, float* amax);
lowp_status amax_per_token(const DenseView& x, float* row_amax, float* col_amax);
lowp_status fp8_delayed_update(const DelayedUpdateArgs& a);
}  // namespace lowp::cpu

namespace lowp::cuda {
bool available();
lowp_status fp8_quantize(const Fp8QuantizeArgs& a, void* stream);
lowp_status fp8_dequantize(const Fp8DequantizeArgs& a, void* stream);
lowp_status amax(const DenseView& x, float* amax, void* stream);
lowp_status amax_per_token(const DenseView& x, float* row_amax, float* col_amax, void* stream);
lowp_status fp8_delayed_update(const DelayedUpdateArgs& a, void* stream);
}  // namespace lowp::cuda
