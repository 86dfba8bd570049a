// The recipes `lowp report` runs (recipes.h), each variant beside its base. NVFP4 per-tensor
// entries take the numerics §8 role defaults from lowp_quant_config_nvfp4; per-token and
// row-scaled entries name the per-tensor recipe of the same role they are compared with; 4over6
// entries name the recipe whose block scales they choose between.
#include "recipes.h"

namespace lowp_cli {
namespace {

// The 1D recipes make the rowwise copy alone when rows % 16 != 0 (recipes.cpp says so in a note).
const char* needs_k16(int64_t, int64_t cols) {
  return cols % 16 == 0 ? nullptr : "NVFP4 needs cols % 16 == 0 (blocks of 16 along each row)";
}

// 16x16 block scales tile x, so rows and cols both need multiples of 16.
const char* needs_16x16(int64_t rows, int64_t cols) {
  if (const char* why = needs_k16(rows, cols)) return why;
  return rows % 16 == 0 ? nullptr : "NVFP4 16x16 blocks need rows % 16 == 0";
}

// 4over6 (numerics §5c, MAE, E 448) takes no RHT and no SR: the input and weight roles without them.
void four_over_six(lowp_quant_config& c) { c.four_over_six = 1; }
void four_over_six_weight(lowp_quant_config& c) {
  tune_nvfp4_weight(c);
  c.four_over_six = 1;
}

const Recipe kRecipes[] = {
    {"fp8_e4m3_current", "FP8 E4M3, current (per-tensor) scaling, row+col copies", LOWP_DTYPE_E4M3,
     LOWP_SCALING_CURRENT, true, nullptr, nullptr, nullptr},
    {"fp8_e4m3_delayed", "FP8 E4M3, delayed scaling from the previous step's amax (x*0.9)", LOWP_DTYPE_E4M3,
     LOWP_SCALING_DELAYED, true, nullptr, nullptr, nullptr},
    {"fp8_e4m3_per_token", "FP8 E4M3, one scale per row (rowwise copy)", LOWP_DTYPE_E4M3,
     LOWP_SCALING_PER_TOKEN, false, nullptr, nullptr, nullptr},
    {"fp8_e5m2_current", "FP8 E5M2, current (per-tensor) scaling, row+col copies", LOWP_DTYPE_E5M2,
     LOWP_SCALING_CURRENT, true, nullptr, nullptr, nullptr},
    {"nvfp4_input", "NVFP4 per-tensor, input defaults: 1D blocks, RHT on the columnwise copy", LOWP_DTYPE_E2M1,
     LOWP_SCALING_NVFP4_PER_TENSOR, true, tune_nvfp4_input, needs_k16, nullptr},
    {"nvfp4_4over6", "NVFP4 per-tensor, 1D blocks with 4over6 (map-4 or map-6 per block, MAE), no RHT",
     LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, true, four_over_six, needs_k16, nullptr, "nvfp4_input"},
    {"nvfp4_weight", "NVFP4 per-tensor, weight defaults: 16x16 block scales (columnwise = transpose)",
     LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, true, tune_nvfp4_weight, needs_16x16, nullptr},
    {"nvfp4_4over6_weight", "NVFP4 per-tensor, 16x16 block scales with 4over6 (per tile, MAE)", LOWP_DTYPE_E2M1,
     LOWP_SCALING_NVFP4_PER_TENSOR, true, four_over_six_weight, needs_16x16, nullptr, "nvfp4_weight"},
    {"nvfp4_grad", "NVFP4 per-tensor, gradient defaults: 1D blocks, RHT on the columnwise copy, stochastic rounding",
     LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, true, tune_nvfp4_gradient, needs_k16, nullptr},
    {"nvfp4_token_input", "NVFP4 per-token (one amax per row of each copy), RHT on the columnwise copy",
     LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, true, tune_nvfp4_token_input, needs_k16, "nvfp4_input"},
    {"nvfp4_token_grad", "NVFP4 per-token, RHT on the columnwise copy, stochastic rounding", LOWP_DTYPE_E2M1,
     LOWP_SCALING_NVFP4_PER_TOKEN, true, tune_nvfp4_token_gradient, needs_k16, "nvfp4_grad"},
    {"nvfp4_rowscaled_input",
     "NVFP4 row-scaled (one raw amax per row of each copy, per-tensor math), RHT on the columnwise copy",
     LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_ROW_SCALED, true, tune_nvfp4_token_input, needs_k16, "nvfp4_input"},
    {"nvfp4_rowscaled_grad", "NVFP4 row-scaled, RHT on the columnwise copy, stochastic rounding", LOWP_DTYPE_E2M1,
     LOWP_SCALING_NVFP4_ROW_SCALED, true, tune_nvfp4_token_gradient, needs_k16, "nvfp4_grad"},
    {"nvfp4_rowscaled_4over6", "NVFP4 row-scaled with 4over6 (per block, MAE), no RHT", LOWP_DTYPE_E2M1,
     LOWP_SCALING_NVFP4_ROW_SCALED, true, four_over_six, needs_k16, nullptr, "nvfp4_rowscaled_input"},
};

}  // namespace

void tune_nvfp4_input(lowp_quant_config& c) { lowp_quant_config_nvfp4(LOWP_ROLE_INPUT, &c); }
void tune_nvfp4_weight(lowp_quant_config& c) { lowp_quant_config_nvfp4(LOWP_ROLE_WEIGHT, &c); }
void tune_nvfp4_gradient(lowp_quant_config& c) { lowp_quant_config_nvfp4(LOWP_ROLE_GRADIENT, &c); }
void tune_nvfp4_token_input(lowp_quant_config& c) { c.rht = 1; }
void tune_nvfp4_token_gradient(lowp_quant_config& c) {
  c.rht = 1;
  c.stochastic_rounding = 1;
}

std::span<const Recipe> recipe_table() { return kRecipes; }

const Recipe* find_recipe(const std::string& name) {
  for (const Recipe& r : kRecipes)
    if (name == r.name) return &r;
  return nullptr;
}

}  // namespace lowp_cli
