#include "recipes/fp8_rules.h"

#include <utility>

#include "core/backends.h"
#include "core/error.h"
#include "core/validate.h"

namespace lowp {

bool is_fp8(lowp_dtype t) { return t == LOWP_DTYPE_E4M3 || t == LOWP_DTYPE_E5M2; }

lowp_status check_fp8_config(const lowp_quant_config& c) {
  if (!(c.amax_epsilon >= 0.0f))
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "cfg->amax_epsilon must be >= 0 (got %g)", static_cast<double>(c.amax_epsilon));
  const std::pair<int, const char*> nvfp4_knobs[] = {{c.rht, "cfg->rht"},
                                                     {c.stochastic_rounding, "cfg->stochastic_rounding"},
                                                     {c.block_2d, "cfg->block_2d"},
                                                     {c.amax_estimation, "cfg->amax_estimation"},
                                                     {c.amax_given, "cfg->amax_given"},
                                                     {c.four_over_six, "cfg->four_over_six"}};
  for (const auto& [value, name] : nvfp4_knobs)
    if (value != 0)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is %d; it applies to NVFP4 recipes only, set it to 0 for FP8", name,
                  value);
  return LOWP_SUCCESS;
}

lowp_status check_fp8_call(const QuantizeCall& c) {
  const lowp_quantized_tensor& q = c.q;
  if (q.rows != c.x.rows || q.cols != c.x.cols)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q is %lld x %lld but x is %lld x %lld", static_cast<long long>(q.rows),
                static_cast<long long>(q.cols), static_cast<long long>(c.x.rows), static_cast<long long>(c.x.cols));
  LOWP_TRY(check_fp8_config(c.cfg));
  if (q.rowwise.data == nullptr && q.columnwise.data == nullptr)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->rowwise.data and q->columnwise.data are both NULL; request at least one");
  return LOWP_SUCCESS;
}

Fp8QuantizeArgs fp8_args(const QuantizeCall& c) {
  Fp8QuantizeArgs a{};
  a.x = {c.x.data, c.x.dtype, c.x.rows, c.x.cols};
  a.out_dtype = c.q.dtype;
  a.scaling = c.q.scaling;
  a.act_input = c.act_input;
  a.act = c.act;
  a.amax_epsilon = c.cfg.amax_epsilon;
  a.power_of_two_scale = c.cfg.power_of_two_scale != 0;
  a.row_codes = static_cast<uint8_t*>(c.q.rowwise.data);
  a.col_codes = static_cast<uint8_t*>(c.q.columnwise.data);
  return a;
}

lowp_status fp8_space(const Fp8QuantizeArgs& a, MemorySpace* space) {
  return check_same_space({{a.x.data, "x->data"},
                           {a.row_codes, "q->rowwise.data"},
                           {a.col_codes, "q->columnwise.data"},
                           {a.scale, "q->scale"},
                           {a.scale_inv, "q->scale_inv"},
                           {a.amax, "q->amax"},
                           {a.row_scale_inv, "q->rowwise.scale_inv"},
                           {a.row_amax, "q->rowwise.amax"},
                           {a.col_scale_inv, "q->columnwise.scale_inv"},
                           {a.col_amax, "q->columnwise.amax"},
                           {a.act_input, "act_input"}},
                          space);
}

lowp_status fp8_dequantize_args(const DequantizeCall& c, const float* scale_inv, bool per_row, DequantizeArgs* a,
                                MemorySpace* space) {
  a->fp8 = {static_cast<const uint8_t*>(c.part.data), c.q.dtype, c.rows, c.cols, scale_inv, per_row, c.out.data, c.out.dtype};
  return check_same_space({{a->fp8.codes, "codes"}, {a->fp8.scale_inv, "scale_inv"}, {a->fp8.out, "out->data"}}, space);
}

lowp_status fp8_sizes(int64_t rows, int64_t cols, bool per_token, lowp_quantized_sizes* out) {
  lowp_quantized_sizes s{};
  s.data_bytes[0] = s.data_bytes[1] = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  if (per_token) {
    s.scale_inv_bytes[0] = s.amax_bytes[0] = sizeof(float) * static_cast<size_t>(rows);
    s.scale_inv_bytes[1] = s.amax_bytes[1] = sizeof(float) * static_cast<size_t>(cols);
  } else {
    s.tensor_scale_bytes = sizeof(float);
  }
  *out = s;
  return LOWP_SUCCESS;
}

lowp_status fp8_quantize_cpu(const QuantizeArgs& a) { return cpu::fp8_quantize(a.fp8); }
lowp_status fp8_quantize_cuda(const QuantizeArgs& a, void* stream) { return cuda::fp8_quantize(a.fp8, stream); }
lowp_status fp8_dequantize_cpu(const DequantizeArgs& a) { return cpu::fp8_dequantize(a.fp8); }
lowp_status fp8_dequantize_cuda(const DequantizeArgs& a, void* stream) { return cuda::fp8_dequantize(a.fp8, stream); }

}  // namespace lowp
