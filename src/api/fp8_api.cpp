// C entry points of the FP8 operations: validate, pick the backend from where the pointers
// live, fill the POD arguments, call.
#include <cstring>

#include "core/backends.h"
#include "core/error.h"
#include "api/nvfp4_api.h"
#include "core/validate.h"

namespace lowp {
namespace {

bool is_fp8(lowp_dtype t) { return t == LOWP_DTYPE_E4M3 || t == LOWP_DTYPE_E5M2; }
bool is_fp8_scaling(lowp_scaling s) {
  return s == LOWP_SCALING_DELAYED || s == LOWP_SCALING_CURRENT || s == LOWP_SCALING_PER_TOKEN;
}

lowp_status check_float_ptr(const float* p, const char* name, bool required) {
  if (required) LOWP_TRY(check_not_null(p, name));
  return check_aligned(p, 4, name);
}

lowp_status check_recipe(lowp_dtype dtype, lowp_scaling scaling, const char* name) {
  if (dtype == LOWP_DTYPE_E2M1 && (scaling == LOWP_SCALING_NVFP4_PER_TENSOR || scaling == LOWP_SCALING_NVFP4_PER_TOKEN))
    return LOWP_SUCCESS;
  if (dtype == LOWP_DTYPE_E2M1)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s->scaling %d does not fit dtype E2M1; expected LOWP_SCALING_NVFP4_PER_TENSOR or "
                "LOWP_SCALING_NVFP4_PER_TOKEN", name, static_cast<int>(scaling));
  if (!is_fp8(dtype))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s->dtype is %d; expected LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2 or LOWP_DTYPE_E2M1",
                name, static_cast<int>(dtype));
  if (!is_fp8_scaling(scaling))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s->scaling %d is not an FP8 scaling (DELAYED, CURRENT or PER_TOKEN)", name,
                static_cast<int>(scaling));
  return LOWP_SUCCESS;
}

// lowp_quantize and lowp_quantize_dact (act >= 0: the value is dact(act_input) * x).
lowp_status quantize(const lowp_tensor* x, const void* act_input, int act, lowp_quantized_tensor* q,
                     const lowp_quant_config* cfg, void* stream) {
  LOWP_TRY(check_tensor(x, act_input ? "grad" : "x"));
  LOWP_TRY(check_aligned(act_input, dtype_bytes(x->dtype), "act_input"));
  LOWP_TRY(check_not_null(q, "q"));
  LOWP_TRY(check_recipe(q->dtype, q->scaling, "q"));
  if (q->dtype == LOWP_DTYPE_E2M1) {
    if (act_input != nullptr)
      return fail(LOWP_ERROR_UNSUPPORTED, "lowp_quantize_dact: NVFP4 (E2M1) is not supported; use FP8");
    return q->scaling == LOWP_SCALING_NVFP4_PER_TOKEN ? nvfp4_per_token_api::quantize(*x, *q, cfg, stream)
                                                      : nvfp4_api::quantize(*x, *q, cfg, stream);
  }
  if (q->rows != x->rows || q->cols != x->cols)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q is %lld x %lld but x is %lld x %lld",
                static_cast<long long>(q->rows), static_cast<long long>(q->cols),
                static_cast<long long>(x->rows), static_cast<long long>(x->cols));
  lowp_quant_config c;
  LOWP_TRY(resolve_fp8_config(cfg, &c));
  const bool want_row = q->rowwise.data != nullptr;
  const bool want_col = q->columnwise.data != nullptr;
  if (!want_row && !want_col)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "q->rowwise.data and q->columnwise.data are both NULL; request at least one");

  Fp8QuantizeArgs a{};
  a.x = {x->data, x->dtype, x->rows, x->cols};
  a.out_dtype = q->dtype;
  a.scaling = q->scaling;
  a.act_input = act_input;
  a.act = act;
  a.amax_epsilon = c.amax_epsilon;
  a.power_of_two_scale = c.power_of_two_scale != 0;
  a.row_codes = static_cast<uint8_t*>(q->rowwise.data);
  a.col_codes = static_cast<uint8_t*>(q->columnwise.data);
  if (q->scaling == LOWP_SCALING_PER_TOKEN) {
    if (want_row) {
      LOWP_TRY(check_float_ptr(static_cast<float*>(q->rowwise.scale_inv), "q->rowwise.scale_inv", true));
      LOWP_TRY(check_float_ptr(q->rowwise.amax, "q->rowwise.amax", true));
      a.row_scale_inv = static_cast<float*>(q->rowwise.scale_inv);
      a.row_amax = q->rowwise.amax;
    }
    if (want_col) {
      LOWP_TRY(check_float_ptr(static_cast<float*>(q->columnwise.scale_inv), "q->columnwise.scale_inv", true));
      LOWP_TRY(check_float_ptr(q->columnwise.amax, "q->columnwise.amax", true));
      a.col_scale_inv = static_cast<float*>(q->columnwise.scale_inv);
      a.col_amax = q->columnwise.amax;
    }
  } else {
    LOWP_TRY(check_float_ptr(q->scale, "q->scale", true));
    LOWP_TRY(check_float_ptr(q->scale_inv, "q->scale_inv", true));
    LOWP_TRY(check_float_ptr(q->amax, "q->amax", true));
    a.scale = q->scale;
    a.scale_inv = q->scale_inv;
    a.amax = q->amax;
  }
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"},
                             {a.row_codes, "q->rowwise.data"},
                             {a.col_codes, "q->columnwise.data"},
                             {a.scale, "q->scale"},
                             {a.scale_inv, "q->scale_inv"},
                             {a.amax, "q->amax"},
                             {a.row_scale_inv, "q->rowwise.scale_inv"},
                             {a.row_amax, "q->rowwise.amax"},
                             {a.col_scale_inv, "q->columnwise.scale_inv"},
                             {a.col_amax, "q->columnwise.amax"},
                            {act_input, "act_input"}},
                            &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::fp8_quantize(a, stream) : cpu::fp8_quantize(a));
  return succeed();
}

}  // namespace
}  // namespace lowp

using namespace lowp;

extern "C" {

const char* lowp_version(void) { return LOWP_VERSION_STRING; }

int lowp_cuda_available(void) { return lowp::cuda::available() ? 1 : 0; }

void lowp_quant_config_default(lowp_quant_config* cfg) {
  if (cfg == nullptr) return;
  std::memset(cfg, 0, sizeof *cfg);
  cfg->rht_sign_mask = 0xD7E8u;
  cfg->amax_estimation_factor = 2.0f;
}

lowp_status lowp_quantized_sizes_query(lowp_dtype dtype, lowp_scaling scaling, int64_t rows,
                                       int64_t cols, lowp_quantized_sizes* sizes) {
  LOWP_TRY(check_not_null(sizes, "sizes"));
  LOWP_TRY(check_recipe(dtype, scaling, "query"));
  LOWP_TRY(check_shape(rows, cols, "shape"));
  if (dtype == LOWP_DTYPE_E2M1)
    return scaling == LOWP_SCALING_NVFP4_PER_TOKEN ? nvfp4_per_token_api::sizes(rows, cols, sizes)
                                                   : nvfp4_api::sizes(rows, cols, sizes);
  lowp_quantized_sizes s{};
  const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  s.data_bytes[0] = s.data_bytes[1] = n;
  if (scaling == LOWP_SCALING_PER_TOKEN) {
    s.scale_inv_bytes[0] = s.amax_bytes[0] = sizeof(float) * static_cast<size_t>(rows);
    s.scale_inv_bytes[1] = s.amax_bytes[1] = sizeof(float) * static_cast<size_t>(cols);
  } else {
    s.tensor_scale_bytes = sizeof(float);
  }
  *sizes = s;
  return succeed();
}

lowp_status lowp_quantize(const lowp_tensor* x, lowp_quantized_tensor* q,
                          const lowp_quant_config* cfg, void* stream) {
  return quantize(x, nullptr, -1, q, cfg, stream);
}

lowp_status lowp_quantize_dact(const lowp_tensor* grad, const void* act_input, lowp_activation act,
                               lowp_quantized_tensor* q, const lowp_quant_config* cfg, void* stream) {
  LOWP_TRY(check_not_null(act_input, "act_input"));
  LOWP_TRY(check_activation(act));
  if (q != nullptr && q->scaling == LOWP_SCALING_PER_TOKEN)
    return fail(LOWP_ERROR_UNSUPPORTED, "lowp_quantize_dact: PER_TOKEN scaling is not supported; use DELAYED or CURRENT");
  return quantize(grad, act_input, act, q, cfg, stream);
}

lowp_status lowp_dequantize(const lowp_quantized_tensor* q, lowp_orientation which,
                            lowp_tensor* out, void* stream) {
  LOWP_TRY(check_not_null(q, "q"));
  LOWP_TRY(check_recipe(q->dtype, q->scaling, "q"));
  LOWP_TRY(check_shape(q->rows, q->cols, "q"));
  if (which != LOWP_ROWWISE && which != LOWP_COLUMNWISE)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "which is %d; expected LOWP_ROWWISE or LOWP_COLUMNWISE",
                static_cast<int>(which));
  LOWP_TRY(check_tensor(out, "out"));
  const lowp_quantized_part& part = which == LOWP_ROWWISE ? q->rowwise : q->columnwise;
  const int64_t rows = which == LOWP_ROWWISE ? q->rows : q->cols;
  const int64_t cols = which == LOWP_ROWWISE ? q->cols : q->rows;
  if (out->rows != rows || out->cols != cols)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "out is %lld x %lld; the %s copy is %lld x %lld",
                static_cast<long long>(out->rows), static_cast<long long>(out->cols),
                which == LOWP_ROWWISE ? "rowwise" : "columnwise", static_cast<long long>(rows),
                static_cast<long long>(cols));
  LOWP_TRY(check_not_null(part.data, which == LOWP_ROWWISE ? "q->rowwise.data" : "q->columnwise.data"));
  if (q->dtype == LOWP_DTYPE_E2M1)
    return q->scaling == LOWP_SCALING_NVFP4_PER_TOKEN ? nvfp4_per_token_api::dequantize(*q, which, *out, stream)
                                                      : nvfp4_api::dequantize(*q, which, *out, stream);
  const bool per_row = q->scaling == LOWP_SCALING_PER_TOKEN;
  const float* scale_inv = per_row ? static_cast<const float*>(part.scale_inv) : q->scale_inv;
  const char* scale_name = !per_row ? "q->scale_inv"
                           : which == LOWP_ROWWISE ? "q->rowwise.scale_inv" : "q->columnwise.scale_inv";
  LOWP_TRY(check_float_ptr(scale_inv, scale_name, true));
  Fp8DequantizeArgs a{static_cast<const uint8_t*>(part.data), q->dtype, rows, cols, scale_inv,
                      per_row, out->data, out->dtype};
  MemorySpace space;
  LOWP_TRY(check_same_space({{a.codes, "codes"}, {a.scale_inv, "scale_inv"}, {a.out, "out->data"}},
                            &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::fp8_dequantize(a, stream) : cpu::fp8_dequantize(a));
  return succeed();
}

lowp_status lowp_amax(const lowp_tensor* x, float* amax, void* stream) {
  LOWP_TRY(check_tensor(x, "x"));
  LOWP_TRY(check_float_ptr(amax, "amax", true));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {amax, "amax"}}, &space));
  const DenseView v{x->data, x->dtype, x->rows, x->cols};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::amax(v, amax, stream) : cpu::amax(v, amax));
  return succeed();
}

lowp_status lowp_amax_per_token(const lowp_tensor* x, float* row_amax, float* col_amax,
                                void* stream) {
  LOWP_TRY(check_tensor(x, "x"));
  if (row_amax == nullptr && col_amax == nullptr)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "row_amax and col_amax are both NULL; request at least one");
  LOWP_TRY(check_float_ptr(row_amax, "row_amax", false));
  LOWP_TRY(check_float_ptr(col_amax, "col_amax", false));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {row_amax, "row_amax"}, {col_amax, "col_amax"}},
                            &space));
  const DenseView v{x->data, x->dtype, x->rows, x->cols};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::amax_per_token(v, row_amax, col_amax, stream)
                                         : cpu::amax_per_token(v, row_amax, col_amax));
  return succeed();
}

lowp_status lowp_fp8_delayed_scaling_update(int64_t num_tensors, int64_t history_len,
                                            float* amax_history, float* scale, float* scale_inv,
                                            lowp_dtype fp8_dtype, int margin, lowp_amax_algo algo,
                                            void* stream) {
  if (num_tensors < 1)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "num_tensors is %lld; must be >= 1",
                static_cast<long long>(num_tensors));
  if (history_len < 1)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "history_len is %lld; must be >= 1",
                static_cast<long long>(history_len));
  LOWP_TRY(check_element_count(num_tensors, history_len, "amax_history"));
  LOWP_TRY(check_float_ptr(amax_history, "amax_history", true));
  LOWP_TRY(check_float_ptr(scale, "scale", true));
  LOWP_TRY(check_float_ptr(scale_inv, "scale_inv", true));
  if (!is_fp8(fp8_dtype))
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "fp8_dtype is %d; expected LOWP_DTYPE_E4M3 or LOWP_DTYPE_E5M2",
                static_cast<int>(fp8_dtype));
  if (margin <= -100 || margin >= 100)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "margin is %d; must satisfy |margin| < 100", margin);
  if (algo != LOWP_AMAX_ALGO_MAX && algo != LOWP_AMAX_ALGO_MOST_RECENT)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "algo is %d; expected LOWP_AMAX_ALGO_MAX or LOWP_AMAX_ALGO_MOST_RECENT",
                static_cast<int>(algo));
  MemorySpace space;
  LOWP_TRY(check_same_space({{amax_history, "amax_history"}, {scale, "scale"}, {scale_inv, "scale_inv"}},
                            &space));
  const DelayedUpdateArgs a{num_tensors, history_len, amax_history, scale, scale_inv,
                            fp8_max_of(fp8_dtype), margin, algo == LOWP_AMAX_ALGO_MOST_RECENT};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::fp8_delayed_update(a, stream)
                                         : cpu::fp8_delayed_update(a));
  return succeed();
}

}  // extern "C"
