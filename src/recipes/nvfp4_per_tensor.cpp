// Recipe: NVFP4 (E2M1 codes, UE4M3 block scales of 16 elements) with one outer amax per copy
// (numerics §3, §4, §5c, §6, §7): 1D or 2D (16x16) blocks, RHT on the columnwise copy, its amax
// exact or estimated, stochastic rounding, 4over6, compact or swizzled scales.
#include <cmath>

#include "core/backends.h"
#include "core/error.h"
#include "recipes/nvfp4_rules.h"

namespace lowp {
namespace {

constexpr int64_t kBlock = 16;

// The per-tensor recipe's own knobs (2D combinations, amax estimation factor).
lowp_status check_config(const lowp_quant_config& c, int64_t rows) {
  if (c.block_2d && c.rht)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->block_2d with cfg->rht: the 2D (weight) recipe has no RHT; turn one of them off");
  if (c.block_2d && c.stochastic_rounding)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->block_2d with cfg->stochastic_rounding: 2D columnwise codes are the transpose "
                "of the rowwise codes, but SR draws differ by orientation; turn one of them off");
  if (c.block_2d && rows % kBlock != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "x->rows (M) is %lld; cfg->block_2d needs M %% 16 == 0 (16x16 tiles)", static_cast<long long>(rows));
  // With amax_given the estimation is ignored (lowp.h), so its factor is not checked either.
  if (c.amax_estimation && !c.amax_given &&
      !(c.amax_estimation_factor > 0.0f && std::isfinite(c.amax_estimation_factor)))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->amax_estimation_factor is %g; with cfg->amax_estimation it must be finite and > 0",
                static_cast<double>(c.amax_estimation_factor));
  return LOWP_SUCCESS;
}

lowp_status validate(const QuantizeCall& c) {
  LOWP_TRY(check_nvfp4_outputs(c.x, c.q));
  LOWP_TRY(check_nvfp4_config(c.cfg));
  LOWP_TRY(check_four_over_six(c.cfg, true, "NVFP4 per-tensor"));
  return check_config(c.cfg, c.x.rows);
}

lowp_status make_args(const QuantizeCall& c, QuantizeArgs* args, MemorySpace* space) {
  Nvfp4QuantizeArgs& a = args->nvfp4;
  a = {};
  a.x = {c.x.data, c.x.dtype, c.x.rows, c.x.cols};
  a.scale_layout = c.q.scale_layout;
  a.row = nvfp4_part(c.q.rowwise);
  a.col = nvfp4_part(c.q.columnwise);
  a.rht = c.cfg.rht != 0;
  a.rht_sign_mask = c.cfg.rht_sign_mask;
  a.block_2d = c.cfg.block_2d != 0;
  a.stochastic_rounding = c.cfg.stochastic_rounding != 0;
  a.rng_state = a.stochastic_rounding ? c.cfg.rng_state : nullptr;
  a.amax_estimation = c.cfg.amax_estimation != 0;
  a.amax_estimation_factor = c.cfg.amax_estimation_factor;
  a.amax_given = c.cfg.amax_given != 0;
  a.four_over_six = nvfp4_four_over_six(c.cfg);
  return nvfp4_quantize_space(a.x.data, a.row, a.col, a.rng_state, space);
}

lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out) { return nvfp4_sizes(rows, cols, false, out); }

}  // namespace

extern const Recipe kNvfp4PerTensor = {
    "NVFP4 (E2M1) per-tensor",
    {LOWP_DTYPE_E2M1, LOWP_DTYPE_E2M1},
    {LOWP_SCALING_NVFP4_PER_TENSOR, LOWP_SCALING_NVFP4_PER_TENSOR},
    "LOWP_SCALING_NVFP4_PER_TENSOR",
    /*fuses_dact=*/false,
    /*dequantize_reads_amax=*/true,
    {validate, make_args, [](const QuantizeArgs& a) { return cpu::nvfp4_quantize(a.nvfp4); },
     [](const QuantizeArgs& a, void* stream) { return cuda::nvfp4_quantize(a.nvfp4, stream); }},
    {check_nvfp4_dequantize, nvfp4_dequantize_args, nvfp4_dequantize_cpu, nvfp4_dequantize_cuda},
    sizes,
};

}  // namespace lowp
