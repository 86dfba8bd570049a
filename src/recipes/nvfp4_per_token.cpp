// Recipe: NVFP4 per-token (numerics §3, §5, §6, §7): one outer amax per row of each copy (K1, also
// callable alone), then the encode of both copies (K2); RHT on the columnwise copy in fp32,
// stochastic rounding, compact or swizzled scales. And the rules and ops it shares with row-scaled
// NVFP4 (recipes/nvfp4_row_scaled.cpp): the same buffers and K1 with the per-tensor math.
#include "recipes/nvfp4_per_token.h"

#include "core/backends.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/validate.h"
#include "recipes/nvfp4_rules.h"

namespace lowp {

bool is_nvfp4_per_row(int s) { return s == LOWP_SCALING_NVFP4_PER_TOKEN || s == LOWP_SCALING_NVFP4_ROW_SCALED; }

lowp_status check_nvfp4_per_row_scaling(int scaling, const char* name) {
  if (is_nvfp4_per_row(scaling)) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s is %s; expected LOWP_SCALING_NVFP4_PER_TOKEN or LOWP_SCALING_NVFP4_ROW_SCALED (the NVFP4 "
              "recipes with one amax per row)",
              name, enum_text<lowp_scaling>(scaling).text);
}

lowp_status check_nvfp4_per_row_config(const lowp_quant_config& c, lowp_scaling s) {
  const char* recipe = s == LOWP_SCALING_NVFP4_ROW_SCALED ? "NVFP4 row-scaled" : "NVFP4 per-token";
  if (c.block_2d)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->block_2d: 16x16 block scales belong to the NVFP4 per-tensor recipe (weights), not to %s; set "
                "it to 0",
                recipe);
  if (c.amax_estimation)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->amax_estimation applies to the NVFP4 per-tensor recipe only (%s column amaxes are always "
                "exact); set it to 0",
                recipe);
  LOWP_TRY(check_nvfp4_config(c));
  return check_four_over_six(c, s == LOWP_SCALING_NVFP4_ROW_SCALED, recipe);
}

Nvfp4PerTokenArgs nvfp4_per_row_args(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config& c) {
  Nvfp4PerTokenArgs a{};
  a.x = {x.data, x.dtype, x.rows, x.cols};
  a.scale_layout = q.scale_layout;
  a.row = nvfp4_part(q.rowwise);
  a.col = nvfp4_part(q.columnwise);
  a.rht = c.rht != 0;
  a.rht_sign_mask = c.rht_sign_mask;
  a.stochastic_rounding = c.stochastic_rounding != 0;
  a.rng_state = a.stochastic_rounding ? c.rng_state : nullptr;
  a.amax_given = c.amax_given != 0;
  a.row_scaled = q.scaling == LOWP_SCALING_NVFP4_ROW_SCALED;
  a.four_over_six = nvfp4_four_over_six(c);
  return a;
}

lowp_status check_nvfp4_amax_call(const lowp_tensor& x, int scaling, float* row_amax, float* col_amax,
                                  const lowp_quant_config& c, Nvfp4PerTokenAmaxArgs* a) {
  LOWP_TRY(check_nvfp4_per_row_scaling(scaling, "scaling"));
  if (row_amax == nullptr && col_amax == nullptr)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "row_amax and col_amax are both NULL; request at least one");
  LOWP_TRY(check_aligned(row_amax, 4, "row_amax"));
  LOWP_TRY(check_aligned(col_amax, 4, "col_amax"));
  if (c.rht && c.rht_sign_mask > 0xFFFFu)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "cfg->rht_sign_mask is 0x%x; it is a 16-bit mask", c.rht_sign_mask);
  if (col_amax != nullptr && c.rht && x.rows % 16 != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "x->rows (M) is %lld; col_amax with cfg->rht needs M %% 16 == 0 (the RHT runs on 16-row strips)",
                static_cast<long long>(x.rows));
  *a = {{x.data, x.dtype, x.rows, x.cols}, row_amax, col_amax, c.rht != 0, c.rht_sign_mask,
        scaling == LOWP_SCALING_NVFP4_ROW_SCALED};
  return LOWP_SUCCESS;
}

lowp_status nvfp4_per_row_validate(const QuantizeCall& c) {
  LOWP_TRY(check_nvfp4_outputs(c.x, c.q));
  return check_nvfp4_per_row_config(c.cfg, c.q.scaling);
}

lowp_status nvfp4_per_row_make_args(const QuantizeCall& c, QuantizeArgs* args, MemorySpace* space) {
  Nvfp4PerTokenArgs& a = args->nvfp4_per_token;
  a = nvfp4_per_row_args(c.x, c.q, c.cfg);
  return nvfp4_quantize_space(a.x.data, a.row, a.col, a.rng_state, space);
}

lowp_status nvfp4_per_row_sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out) {
  return nvfp4_sizes(rows, cols, true, out);
}

lowp_status nvfp4_per_row_quantize_cpu(const QuantizeArgs& a) { return cpu::nvfp4_per_token_quantize(a.nvfp4_per_token); }
lowp_status nvfp4_per_row_quantize_cuda(const QuantizeArgs& a, void* stream) {
  return cuda::nvfp4_per_token_quantize(a.nvfp4_per_token, stream);
}

extern const Recipe kNvfp4PerToken = {
    "NVFP4 (E2M1) per-token",
    {LOWP_DTYPE_E2M1, LOWP_DTYPE_E2M1},
    {LOWP_SCALING_NVFP4_PER_TOKEN, LOWP_SCALING_NVFP4_PER_TOKEN},
    "LOWP_SCALING_NVFP4_PER_TOKEN",
    /*fuses_dact=*/false,
    /*dequantize_reads_amax=*/true,
    {nvfp4_per_row_validate, nvfp4_per_row_make_args, nvfp4_per_row_quantize_cpu, nvfp4_per_row_quantize_cuda},
    {check_nvfp4_dequantize, nvfp4_dequantize_args, nvfp4_dequantize_cpu, nvfp4_dequantize_cuda},
    nvfp4_per_row_sizes,
};

}  // namespace lowp
