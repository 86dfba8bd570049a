#include "recipes/nvfp4_rules.h"

#include <cstddef>

#include "core/backends.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/validate.h"
#include "numerics/nvfp4_scaling.h"
#include "numerics/swizzle.h"

namespace lowp {
namespace {

constexpr int64_t kBlock = 16;

long long ll(int64_t v) { return static_cast<long long>(v); }

lowp_status check_layout(const lowp_scale_layout& l) {
  if (known<lowp_scale_layout>(raw(l))) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "q->scale_layout is %s; expected LOWP_SCALE_LAYOUT_COMPACT or LOWP_SCALE_LAYOUT_SWIZZLED",
              enum_text(l).text);
}

lowp_status check_k(int64_t cols, const char* name) {
  if (cols % kBlock == 0) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s->cols (K) is %lld; NVFP4 needs K %% 16 == 0 (16-element blocks along K)", name, ll(cols));
}

lowp_status check_m_for_columnwise(int64_t rows, const char* name) {
  if (rows % kBlock == 0) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s->rows (M) is %lld; the NVFP4 columnwise copy needs M %% 16 == 0 (16-element blocks "
              "along M): request the rowwise copy only, or pad M",
              name, ll(rows));
}

lowp_status check_part(const lowp_quantized_part& p, const char* scale_name, const char* amax_name) {
  LOWP_TRY(check_not_null(p.scale_inv, scale_name));
  LOWP_TRY(check_not_null(p.amax, amax_name));
  return check_aligned(p.amax, 4, amax_name);
}

}  // namespace

size_t nvfp4_scale_array_bytes(int64_t rows, int64_t blocks) {
  return static_cast<size_t>(num::scale_rows_padded(rows) * num::scale_cols_padded(blocks));
}

lowp_status check_scale_array(int64_t rows, int64_t blocks, const char* name) {
  constexpr int64_t kMaxBytes = int64_t{1} << 56;
  LOWP_TRY(check_shape(rows, blocks, name));  // rows, blocks <= 2^56: their round-ups cannot overflow
  const int64_t padded_rows = num::scale_rows_padded(rows), padded_blocks = num::scale_cols_padded(blocks);
  if (padded_rows > kMaxBytes / padded_blocks)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s is %lld x %lld: its scale array has roundup(rows,128) x roundup(blocks,4) = %lld x %lld bytes; at "
                "most 2^56 supported",
                name, ll(rows), ll(blocks), ll(padded_rows), ll(padded_blocks));
  return LOWP_SUCCESS;
}

lowp_status check_nvfp4_config(const lowp_quant_config& c) {
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

lowp_status check_nvfp4_outputs(const lowp_tensor& x, const lowp_quantized_tensor& q) {
  if (q.rows != x.rows || q.cols != x.cols)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q is %lld x %lld but x is %lld x %lld", ll(q.rows), ll(q.cols),
                ll(x.rows), ll(x.cols));
  const bool want_row = q.rowwise.data != nullptr, want_col = q.columnwise.data != nullptr;
  if (!want_row && !want_col)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "q->rowwise.data and q->columnwise.data are both NULL; request at least one");
  LOWP_TRY(check_k(x.cols, "x"));
  if (want_col) LOWP_TRY(check_m_for_columnwise(x.rows, "x"));
  LOWP_TRY(check_layout(q.scale_layout));
  if (want_row) LOWP_TRY(check_part(q.rowwise, "q->rowwise.scale_inv", "q->rowwise.amax"));
  if (want_col) LOWP_TRY(check_part(q.columnwise, "q->columnwise.scale_inv", "q->columnwise.amax"));
  return LOWP_SUCCESS;
}

lowp_status check_four_over_six(const lowp_quant_config& c, bool takes_it, const char* recipe) {
  if (!c.four_over_six) return LOWP_SUCCESS;
  if (!takes_it)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->four_over_six: 4over6 applies to the NVFP4 per-tensor and row-scaled recipes, not to %s; set "
                "it to 0",
                recipe);
  if (c.rht)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->four_over_six with cfg->rht: 4over6 is not combined with the RHT (numerics §5c); turn one of "
                "them off");
  if (c.stochastic_rounding)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->four_over_six with cfg->stochastic_rounding: 4over6 compares round-to-nearest candidates "
                "(numerics §5c); turn one of them off");
  if (!known<lowp_four_over_six_error>(raw(c.four_over_six_error)))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->four_over_six_error is %s; expected LOWP_FOUR_OVER_SIX_MAE or LOWP_FOUR_OVER_SIX_MSE",
                enum_text(c.four_over_six_error).text);
  if (c.four_over_six_scale_max != 448.0f && c.four_over_six_scale_max != 256.0f)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "cfg->four_over_six_scale_max is %g; expected 448 or 256",
                static_cast<double>(c.four_over_six_scale_max));
  return LOWP_SUCCESS;
}

Nvfp4FourOverSix nvfp4_four_over_six(const lowp_quant_config& c) {
  if (!c.four_over_six) return {false, false, num::kNvfp4OuterMax};
  return {true, c.four_over_six_error == LOWP_FOUR_OVER_SIX_MSE,
          c.four_over_six_scale_max == 256.0f ? num::kNvfp4OuterMax256 : num::kNvfp4OuterMax};
}

namespace {

constexpr size_t kOuterMaxEnd = offsetof(lowp_quantized_tensor, nvfp4_outer_max) + sizeof(float);

}  // namespace

lowp_status check_outer_max_recordable(const lowp_quantized_tensor* caller_q, const lowp_quant_config& c) {
  if (caller_q->struct_size >= kOuterMaxEnd || nvfp4_four_over_six(c).outer_max == num::kNvfp4OuterMax)
    return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "q->struct_size is %zu: too small to record q->nvfp4_outer_max, which 4over6 with "
              "cfg->four_over_six_scale_max = 256 writes (dequantize and GEMM read it); initialise q with this "
              "lowp.h's lowp_quantized_tensor_init()",
              caller_q->struct_size);
}

void record_outer_max(lowp_quantized_tensor* caller_q, const lowp_quant_config& c) {
  if (caller_q->struct_size >= kOuterMaxEnd) caller_q->nvfp4_outer_max = nvfp4_four_over_six(c).outer_max;
}

lowp_status nvfp4_outer_max_of(const lowp_quantized_tensor& q, const char* name, float* out) {
  const float v = q.nvfp4_outer_max == 0.0f ? num::kNvfp4OuterMax : q.nvfp4_outer_max;
  const bool four_over_six_recipe =
      q.scaling == LOWP_SCALING_NVFP4_PER_TENSOR || q.scaling == LOWP_SCALING_NVFP4_ROW_SCALED;
  if (v == num::kNvfp4OuterMax || (v == num::kNvfp4OuterMax256 && four_over_six_recipe)) {
    *out = v;
    return LOWP_SUCCESS;
  }
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s->nvfp4_outer_max is %g; expected 0 or 2688%s (6E of the encode, as lowp_quantize records it)", name,
              static_cast<double>(q.nvfp4_outer_max),
              four_over_six_recipe ? ", or 1536 (4over6 with E = 256)" : " (4over6 is per-tensor and row-scaled only)");
}

Nvfp4Part nvfp4_part(const lowp_quantized_part& p) {
  if (p.data == nullptr) return {nullptr, nullptr, nullptr};
  return {static_cast<uint8_t*>(p.data), static_cast<uint8_t*>(p.scale_inv), p.amax};
}

lowp_status nvfp4_quantize_space(const void* x, const Nvfp4Part& row, const Nvfp4Part& col, const uint64_t* rng_state,
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

lowp_status check_nvfp4_dequantize(const DequantizeCall& c) {
  const bool row = c.which == LOWP_ROWWISE;
  LOWP_TRY(check_k(c.q.cols, "q"));
  if (!row) LOWP_TRY(check_m_for_columnwise(c.q.rows, "q"));
  LOWP_TRY(check_layout(c.q.scale_layout));
  float outer_max;
  LOWP_TRY(nvfp4_outer_max_of(c.q, "q", &outer_max));
  return check_part(c.part, row ? "q->rowwise.scale_inv" : "q->columnwise.scale_inv",
                    row ? "q->rowwise.amax" : "q->columnwise.amax");
}

lowp_status nvfp4_dequantize_args(const DequantizeCall& c, DequantizeArgs* a, MemorySpace* space) {
  float outer_max = num::kNvfp4OuterMax;
  LOWP_TRY(nvfp4_outer_max_of(c.q, "q", &outer_max));
  const Nvfp4OuterAmax kind = c.q.scaling == LOWP_SCALING_NVFP4_PER_TOKEN    ? Nvfp4OuterAmax::kPerRowFloored
                              : c.q.scaling == LOWP_SCALING_NVFP4_ROW_SCALED ? Nvfp4OuterAmax::kPerRowRaw
                                                                             : Nvfp4OuterAmax::kPerTensor;
  a->nvfp4 = {static_cast<const uint8_t*>(c.part.data),
              static_cast<const uint8_t*>(c.part.scale_inv),
              c.part.amax,
              c.rows,
              c.cols,
              c.q.scale_layout,
              c.out.data,
              c.out.dtype,
              kind,
              outer_max};
  const Nvfp4DequantizeArgs& d = a->nvfp4;
  return check_same_space({{d.codes, "codes"}, {d.scales, "scale_inv"}, {d.amax, "amax"}, {d.out, "out->data"}}, space);
}

lowp_status nvfp4_dequantize_cpu(const DequantizeArgs& a) { return cpu::nvfp4_dequantize(a.nvfp4); }
lowp_status nvfp4_dequantize_cuda(const DequantizeArgs& a, void* stream) { return cuda::nvfp4_dequantize(a.nvfp4, stream); }

lowp_status nvfp4_sizes(int64_t rows, int64_t cols, bool amax_per_row, lowp_quantized_sizes* out) {
  if (cols % kBlock != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cols (K) is %lld; NVFP4 needs K %% 16 == 0 (16-element blocks along K)", ll(cols));
  lowp_quantized_sizes s{};
  const size_t codes = static_cast<size_t>(rows) * static_cast<size_t>(cols) / 2;
  s.data_bytes[0] = codes;
  s.scale_inv_bytes[0] = nvfp4_scale_array_bytes(rows, cols / kBlock);
  s.amax_bytes[0] = sizeof(float) * static_cast<size_t>(amax_per_row ? rows : 1);
  if (rows % kBlock == 0) {  // else no columnwise copy can be made: its sizes stay 0
    s.data_bytes[1] = codes;
    s.scale_inv_bytes[1] = nvfp4_scale_array_bytes(cols, rows / kBlock);
    s.amax_bytes[1] = sizeof(float) * static_cast<size_t>(amax_per_row ? cols : 1);
  }
  *out = s;
  return LOWP_SUCCESS;
}

}  // namespace lowp
