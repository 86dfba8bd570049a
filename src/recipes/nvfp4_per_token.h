// The rules of the per-row NVFP4 recipes, per-token (numerics §5) and row-scaled (§5b): one outer
// amax per row of each copy, the same K1, buffers and knobs, differing in the encode's math. Shared
// by their rows of the recipe table (lowp_quantize) and the calls built on them: K1 alone
// (lowp_nvfp4_amax_per_row) and the grouped calls (lowp_nvfp4_grouped_*).
#pragma once
#include "recipes/recipe.h"

namespace lowp {

// LOWP_SCALING_NVFP4_PER_TOKEN or LOWP_SCALING_NVFP4_ROW_SCALED.
bool is_nvfp4_per_row(int s);
// `scaling` names a per-row recipe (`name`: the argument in the message).
lowp_status check_nvfp4_per_row_scaling(int scaling, const char* name);
// The cfg rules of per-row recipe `s`: no block_2d, no amax_estimation, 4over6 for row-scaled
// only, then the common NVFP4 ones.
lowp_status check_nvfp4_per_row_config(const lowp_quant_config& c, lowp_scaling s);
// The backend arguments of quantizing x into q (checked; q->scaling a per-row recipe) with cfg c.
Nvfp4PerTokenArgs nvfp4_per_row_args(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config& c);
// K1's outputs and knobs (single or grouped) for per-row recipe `scaling` (checked): at least one
// output, 4-byte aligned; cfg->rht and rht_sign_mask are the only knobs read; column amaxes with
// RHT need 16-row strips. Fills *a.
lowp_status check_nvfp4_amax_call(const lowp_tensor& x, int scaling, float* row_amax, float* col_amax,
                                  const lowp_quant_config& c, Nvfp4PerTokenAmaxArgs* a);

// The ops of both recipes' rows (the backends read Nvfp4PerTokenArgs::row_scaled).
lowp_status nvfp4_per_row_validate(const QuantizeCall& c);
lowp_status nvfp4_per_row_make_args(const QuantizeCall& c, QuantizeArgs* args, MemorySpace* space);
lowp_status nvfp4_per_row_sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out);
lowp_status nvfp4_per_row_quantize_cpu(const QuantizeArgs& a);
lowp_status nvfp4_per_row_quantize_cuda(const QuantizeArgs& a, void* stream);

}  // namespace lowp
