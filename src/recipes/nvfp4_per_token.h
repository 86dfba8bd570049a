// The NVFP4 per-token recipe's rules, shared by its row of the recipe table (lowp_quantize) and
// the calls built on it: K1 alone (lowp_nvfp4_amax_per_token) and the grouped calls
// (lowp_nvfp4_grouped_*).
#pragma once
#include "recipes/recipe.h"

namespace lowp {

// The per-token recipe's cfg rules: no block_2d, no amax_estimation, then the common NVFP4 ones.
lowp_status check_nvfp4_per_token_config(const lowp_quant_config& c);
// The backend arguments of quantizing x into q (checked) with cfg c.
Nvfp4PerTokenArgs nvfp4_per_token_args(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config& c);
// K1's outputs and knobs (single or grouped): at least one output, 4-byte aligned; cfg->rht and
// rht_sign_mask are the only knobs read; column amaxes with RHT need 16-row strips. Fills *a.
lowp_status check_nvfp4_amax_call(const lowp_tensor& x, float* row_amax, float* col_amax, const lowp_quant_config& c,
                                  Nvfp4PerTokenAmaxArgs* a);

}  // namespace lowp
