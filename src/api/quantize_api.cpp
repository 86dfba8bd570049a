// C entry points of the ops every recipe implements: lowp_quantize, lowp_quantize_dact,
// lowp_dequantize, lowp_quantized_sizes_query. Each checks what is common to every recipe, finds
// q's recipe in the table and dispatches to it (api/dispatch.cpp).
#include "api/dispatch.h"
#include "core/entry.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/growable.h"
#include "core/validate.h"
#include "recipes/nvfp4_rules.h"

namespace lowp {
namespace {

// act >= 0: lowp_quantize_dact (the value quantized is dact(act_input) * x). An NVFP4 recipe
// records its outer maximum in caller_q on success.
lowp_status quantize(const lowp_tensor* x, const void* act_input, int act, lowp_quantized_tensor* caller_q,
                     const lowp_quant_config* caller_cfg, void* stream) {
  LOWP_TRY(check_tensor(x, act_input ? "grad" : "x"));
  LOWP_TRY(check_aligned(act_input, dtype_bytes(x->dtype), "act_input"));
  LOWP_TRY(check_not_null(caller_q, "q"));
  lowp_quantized_tensor q;
  LOWP_TRY(read_quantized_tensor(caller_q, &q));
  const Recipe* r;
  LOWP_TRY(find_recipe(raw(q.dtype), raw(q.scaling), "q->dtype", "q->scaling", &r));
  if (act_input != nullptr && !r->fuses_dact)
    return fail(LOWP_ERROR_UNSUPPORTED, "lowp_quantize_dact: %s is not supported; use FP8 DELAYED or CURRENT scaling",
                r->name);
  lowp_quant_config cfg;
  LOWP_TRY(read_config(caller_cfg, &cfg));
  const bool nvfp4 = q.dtype == LOWP_DTYPE_E2M1;
  if (nvfp4) LOWP_TRY(check_outer_max_recordable(caller_q, cfg));
  LOWP_TRY(dispatch_quantize(*r, {*x, act_input, act, q, cfg}, stream));
  if (nvfp4) record_outer_max(caller_q, cfg);
  return LOWP_SUCCESS;
}

lowp_status dequantize(const lowp_quantized_tensor* caller_q, const lowp_orientation& which, lowp_tensor* out,
                       void* stream) {
  LOWP_TRY(check_not_null(caller_q, "q"));
  lowp_quantized_tensor q;
  LOWP_TRY(read_quantized_tensor(caller_q, &q));
  const Recipe* r;
  LOWP_TRY(find_recipe(raw(q.dtype), raw(q.scaling), "q->dtype", "q->scaling", &r));
  LOWP_TRY(check_shape(q.rows, q.cols, "q"));
  LOWP_TRY(check_orientation(which, "which"));
  LOWP_TRY(check_tensor(out, "out"));
  const bool row = which == LOWP_ROWWISE;
  const lowp_quantized_part& part = row ? q.rowwise : q.columnwise;
  const int64_t rows = row ? q.rows : q.cols, cols = row ? q.cols : q.rows;
  if (out->rows != rows || out->cols != cols)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "out is %lld x %lld; the %s copy is %lld x %lld",
                static_cast<long long>(out->rows), static_cast<long long>(out->cols), row ? "rowwise" : "columnwise",
                static_cast<long long>(rows), static_cast<long long>(cols));
  LOWP_TRY(check_not_null(part.data, row ? "q->rowwise.data" : "q->columnwise.data"));
  return dispatch_dequantize(*r, {q, which, *out, part, rows, cols}, stream);
}

}  // namespace
}  // namespace lowp

using namespace lowp;

extern "C" {

lowp_status lowp_quantize(const lowp_tensor* x, lowp_quantized_tensor* q, const lowp_quant_config* cfg, void* stream) {
  return guarded("lowp_quantize", [&] { return quantize(x, nullptr, -1, q, cfg, stream); });
}

lowp_status lowp_quantize_dact(const lowp_tensor* grad, const void* act_input, lowp_activation act,
                               lowp_quantized_tensor* q, const lowp_quant_config* cfg, void* stream) {
  return guarded("lowp_quantize_dact", [&] {
    LOWP_TRY(check_not_null(act_input, "act_input"));
    LOWP_TRY(check_activation(act, "act"));
    return quantize(grad, act_input, raw(act), q, cfg, stream);
  });
}

lowp_status lowp_dequantize(const lowp_quantized_tensor* q, lowp_orientation which, lowp_tensor* out, void* stream) {
  return guarded("lowp_dequantize", [&] { return dequantize(q, which, out, stream); });
}

lowp_status lowp_quantized_sizes_query(lowp_dtype dtype, lowp_scaling scaling, int64_t rows, int64_t cols,
                                       lowp_quantized_sizes* sizes) {
  return guarded("lowp_quantized_sizes_query", [&] {
    LOWP_TRY(check_not_null(sizes, "sizes"));
    const Recipe* r;
    LOWP_TRY(find_recipe(raw(dtype), raw(scaling), "dtype", "scaling", &r));
    LOWP_TRY(check_shape(rows, cols, "rows x cols"));
    LOWP_TRY(r->sizes(rows, cols, sizes));
    return succeed();
  });
}

}  // extern "C"
