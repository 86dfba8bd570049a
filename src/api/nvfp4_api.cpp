// C entry points of the NVFP4 per-tensor recipe: validation (SPEC §9: every rule checked before
// any memory is touched), backend choice by memory space, POD arguments, call; the checks it
// shares with the per-token recipe (nvfp4_per_token_api.cpp). Also the recipe defaults per
// tensor role, the standalone scale swizzle and the RNG-state advance.
#include "api/nvfp4_api.h"

#include <cmath>

#include "core/backends.h"
#include "core/error.h"
#include "numerics/swizzle.h"
#include "core/validate.h"

namespace lowp::nvfp4_api {
namespace {

constexpr int64_t kBlock = 16;

long long ll(int64_t v) { return static_cast<long long>(v); }

lowp_status check_layout(lowp_scale_layout l) {
  if (l == LOWP_SCALE_LAYOUT_COMPACT || l == LOWP_SCALE_LAYOUT_SWIZZLED) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "q->scale_layout is %d; expected LOWP_SCALE_LAYOUT_COMPACT or LOWP_SCALE_LAYOUT_SWIZZLED",
              static_cast<int>(l));
}

lowp_status check_k(int64_t cols, const char* name) {
  if (cols % kBlock == 0) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s->cols (K) is %lld; NVFP4 needs K %% 16 == 0 (16-element blocks along K)", name, ll(cols));
}

// The per-tensor recipe's own knobs (2D combinations, amax estimation factor).
lowp_status check_per_tensor_config(const lowp_quant_config& c, int64_t rows) {
  if (c.block_2d && c.rht)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->block_2d with cfg->rht: the 2D (weight) recipe has no RHT; turn one of them off");
  if (c.block_2d && c.stochastic_rounding)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->block_2d with cfg->stochastic_rounding: 2D columnwise codes are the transpose "
                "of the rowwise codes, but SR draws differ by orientation; turn one of them off");
  if (c.block_2d && rows % kBlock != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "x->rows (M) is %lld; cfg->block_2d needs M %% 16 == 0 (16x16 tiles)", ll(rows));
  if (c.amax_estimation && !(c.amax_estimation_factor > 0.0f && std::isfinite(c.amax_estimation_factor)))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->amax_estimation_factor is %g; with cfg->amax_estimation it must be finite and > 0",
                static_cast<double>(c.amax_estimation_factor));
  return LOWP_SUCCESS;
}

lowp_status check_part(const lowp_quantized_part& p, const char* scale_name, const char* amax_name) {
  LOWP_TRY(check_not_null(p.scale_inv, scale_name));
  LOWP_TRY(check_not_null(p.amax, amax_name));
  return check_aligned(p.amax, 4, amax_name);
}

}  // namespace

size_t scale_array_bytes(int64_t rows, int64_t blocks) {
  return static_cast<size_t>(num::scale_rows_padded(rows) * num::scale_cols_padded(blocks));
}

lowp_status check_m_for_columnwise(int64_t rows, const char* name) {
  if (rows % kBlock == 0) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s->rows (M) is %lld; the NVFP4 columnwise copy needs M %% 16 == 0 (16-element blocks "
              "along M): request the rowwise copy only, or pad M",
              name, ll(rows));
}

lowp_status check_common_config(const lowp_quant_config& c) {
  if (c.amax_epsilon != 0.0f)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->amax_epsilon is %g; it applies to FP8 recipes only, set it to 0 for NVFP4",
                static_cast<double>(c.amax_epsilon));
  if (c.power_of_two_scale)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->power_of_two_scale applies to FP8 recipes only; set it to 0 for NVFP4");
  if (c.rht && c.rht_sign_mask > 0xFFFFu)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "cfg->rht_sign_mask is 0x%x; it is a 16-bit mask",
                c.rht_sign_mask);
  if (c.stochastic_rounding) {
    if (c.rng_state == nullptr)
      return fail(LOWP_ERROR_INVALID_ARGUMENT,
                  "cfg->rng_state is NULL; cfg->stochastic_rounding needs {seed, offset} (two uint64)");
    LOWP_TRY(check_aligned(c.rng_state, 8, "cfg->rng_state"));
  }
  return LOWP_SUCCESS;
}

lowp_quant_config resolve_config(const lowp_quant_config* cfg) {
  lowp_quant_config c;
  lowp_quant_config_default(&c);
  if (cfg != nullptr) c = *cfg;
  return c;
}

lowp_status check_outputs(const lowp_tensor& x, const lowp_quantized_tensor& q, bool* want_row, bool* want_col) {
  if (q.rows != x.rows || q.cols != x.cols)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q is %lld x %lld but x is %lld x %lld", ll(q.rows), ll(q.cols),
                ll(x.rows), ll(x.cols));
  *want_row = q.rowwise.data != nullptr;
  *want_col = q.columnwise.data != nullptr;
  if (!*want_row && !*want_col)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "q->rowwise.data and q->columnwise.data are both NULL; request at least one");
  LOWP_TRY(check_k(x.cols, "x"));
  if (*want_col) LOWP_TRY(check_m_for_columnwise(x.rows, "x"));
  LOWP_TRY(check_layout(q.scale_layout));
  if (*want_row) LOWP_TRY(check_part(q.rowwise, "q->rowwise.scale_inv", "q->rowwise.amax"));
  if (*want_col) LOWP_TRY(check_part(q.columnwise, "q->columnwise.scale_inv", "q->columnwise.amax"));
  return LOWP_SUCCESS;
}

Nvfp4Part part_args(const lowp_quantized_part& p, bool wanted) {
  if (!wanted) return {nullptr, nullptr, nullptr};
  return {static_cast<uint8_t*>(p.data), static_cast<uint8_t*>(p.scale_inv), p.amax};
}

lowp_status quantize_space(const void* x, const Nvfp4Part& row, const Nvfp4Part& col, const uint64_t* rng_state,
                           MemorySpace* space) {
  return check_same_space({{x, "x->data"},
                           {row.codes, "q->rowwise.data"},
                           {row.scales, "q->rowwise.scale_inv"},
                           {row.amax, "q->rowwise.amax"},
                           {col.codes, "q->columnwise.data"},
                           {col.scales, "q->columnwise.scale_inv"},
                           {col.amax, "q->columnwise.amax"},
                           {rng_state, "cfg->rng_state"}},
                          space);
}

lowp_status quantize(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config* cfg,
                     void* stream) {
  bool want_row, want_col;
  LOWP_TRY(check_outputs(x, q, &want_row, &want_col));
  const lowp_quant_config c = resolve_config(cfg);
  LOWP_TRY(check_common_config(c));
  LOWP_TRY(check_per_tensor_config(c, x.rows));

  Nvfp4QuantizeArgs a{};
  a.x = {x.data, x.dtype, x.rows, x.cols};
  a.scale_layout = q.scale_layout;
  a.row = part_args(q.rowwise, want_row);
  a.col = part_args(q.columnwise, want_col);
  a.rht = c.rht != 0;
  a.rht_sign_mask = c.rht_sign_mask;
  a.block_2d = c.block_2d != 0;
  a.stochastic_rounding = c.stochastic_rounding != 0;
  a.rng_state = a.stochastic_rounding ? c.rng_state : nullptr;
  a.amax_estimation = c.amax_estimation != 0;
  a.amax_estimation_factor = c.amax_estimation_factor;
  a.amax_given = c.amax_given != 0;
  MemorySpace space;
  LOWP_TRY(quantize_space(x.data, a.row, a.col, a.rng_state, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_quantize(a, stream) : cpu::nvfp4_quantize(a));
  return succeed();
}

lowp_status dequantize_args(const lowp_quantized_tensor& q, lowp_orientation which, const lowp_tensor& out,
                            Nvfp4DequantizeArgs* a, MemorySpace* space) {
  const bool row = which == LOWP_ROWWISE;
  const lowp_quantized_part& part = row ? q.rowwise : q.columnwise;
  LOWP_TRY(check_k(q.cols, "q"));
  if (!row) LOWP_TRY(check_m_for_columnwise(q.rows, "q"));
  LOWP_TRY(check_layout(q.scale_layout));
  LOWP_TRY(check_part(part, row ? "q->rowwise.scale_inv" : "q->columnwise.scale_inv",
                      row ? "q->rowwise.amax" : "q->columnwise.amax"));
  *a = {static_cast<const uint8_t*>(part.data),
        static_cast<const uint8_t*>(part.scale_inv),
        part.amax,
        out.rows,
        out.cols,
        q.scale_layout,
        out.data,
        out.dtype};
  return check_same_space(
      {{a->codes, "codes"}, {a->scales, "scale_inv"}, {a->amax, "amax"}, {a->out, "out->data"}}, space);
}

lowp_status dequantize(const lowp_quantized_tensor& q, lowp_orientation which, const lowp_tensor& out,
                       void* stream) {
  Nvfp4DequantizeArgs a;
  MemorySpace space;
  LOWP_TRY(dequantize_args(q, which, out, &a, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_dequantize(a, stream) : cpu::nvfp4_dequantize(a));
  return succeed();
}

lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out) {
  if (cols % kBlock != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cols (K) is %lld; NVFP4 needs K %% 16 == 0 (16-element blocks along K)", ll(cols));
  lowp_quantized_sizes s{};
  const size_t codes = static_cast<size_t>(rows) * static_cast<size_t>(cols) / 2;
  s.data_bytes[0] = codes;
  s.scale_inv_bytes[0] = scale_array_bytes(rows, cols / kBlock);
  s.amax_bytes[0] = sizeof(float);
  if (rows % kBlock == 0) {  // else no columnwise copy can be made: its sizes stay 0
    s.data_bytes[1] = codes;
    s.scale_inv_bytes[1] = scale_array_bytes(cols, rows / kBlock);
    s.amax_bytes[1] = sizeof(float);
  }
  *out = s;
  return succeed();
}

}  // namespace lowp::nvfp4_api

using namespace lowp;

extern "C" {

void lowp_quant_config_nvfp4(lowp_tensor_role role, lowp_quant_config* cfg) {
  if (cfg == nullptr) return;
  lowp_quant_config_default(cfg);
  switch (role) {
    case LOWP_ROLE_INPUT:
      cfg->rht = 1;
      cfg->amax_estimation_factor = 2.0f;
      break;
    case LOWP_ROLE_WEIGHT:
      cfg->block_2d = 1;
      break;
    case LOWP_ROLE_GRADIENT:
      cfg->rht = 1;
      cfg->stochastic_rounding = 1;
      cfg->amax_estimation_factor = 1.0f;
      break;
  }
}

lowp_status lowp_nvfp4_swizzle_scales(const void* compact, void* swizzled, int64_t rows, int64_t blocks,
                                      void* stream) {
  LOWP_TRY(check_not_null(compact, "compact"));
  LOWP_TRY(check_not_null(swizzled, "swizzled"));
  LOWP_TRY(check_shape(rows, blocks, "scales (rows x blocks)"));
  const size_t n = nvfp4_api::scale_array_bytes(rows, blocks);
  const auto c = reinterpret_cast<uintptr_t>(compact), s = reinterpret_cast<uintptr_t>(swizzled);
  if (c < s + n && s < c + n)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "compact and swizzled overlap (%zu bytes each); the swizzle cannot run in place", n);
  MemorySpace space;
  LOWP_TRY(check_same_space({{compact, "compact"}, {swizzled, "swizzled"}}, &space));
  const Nvfp4SwizzleArgs a{static_cast<const uint8_t*>(compact), static_cast<uint8_t*>(swizzled), rows, blocks};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_swizzle_scales(a, stream) : cpu::nvfp4_swizzle_scales(a));
  return succeed();
}

lowp_status lowp_rng_advance(uint64_t* rng_state, uint64_t increment, void* stream) {
  LOWP_TRY(check_not_null(rng_state, "rng_state"));
  LOWP_TRY(check_aligned(rng_state, 8, "rng_state"));
  MemorySpace space;
  LOWP_TRY(check_same_space({{rng_state, "rng_state"}}, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::rng_advance(rng_state, increment, stream)
                                         : cpu::rng_advance(rng_state, increment));
  return succeed();
}

}  // extern "C"
