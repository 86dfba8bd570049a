// What the FP8 recipes (per-tensor delayed/current, per-token) share: the cfg rules, q's outputs,
// the backend arguments and the dequantize of one orientation.
#pragma once
#include "recipes/recipe.h"

namespace lowp {

bool is_fp8(lowp_dtype t);
// cfg for an FP8 recipe: amax_epsilon >= 0 and no NVFP4-only knob set.
lowp_status check_fp8_config(const lowp_quant_config& c);
// q is x's shape with at least one copy requested, and cfg follows check_fp8_config.
lowp_status check_fp8_call(const QuantizeCall& c);
// The arguments both FP8 recipes fill alike (x, the dact input, the codes, the knobs).
Fp8QuantizeArgs fp8_args(const QuantizeCall& c);
// Every pointer of a's call in one memory space.
lowp_status fp8_space(const Fp8QuantizeArgs& a, MemorySpace* space);
// The dequantize arguments of c with its scale_inv (per row of the orientation, or one).
lowp_status fp8_dequantize_args(const DequantizeCall& c, const float* scale_inv, bool per_row, DequantizeArgs* a,
                                MemorySpace* space);

// Codes of both copies (one byte per element), and the scales and amaxes: one float per
// orientation row of each copy with per_token, else one each of the tensor's scale, scale_inv, amax.
lowp_status fp8_sizes(int64_t rows, int64_t cols, bool per_token, lowp_quantized_sizes* out);

lowp_status fp8_quantize_cpu(const QuantizeArgs& a);
lowp_status fp8_quantize_cuda(const QuantizeArgs& a, void* stream);
lowp_status fp8_dequantize_cpu(const DequantizeArgs& a);
lowp_status fp8_dequantize_cuda(const DequantizeArgs& a, void* stream);

}  // namespace lowp
