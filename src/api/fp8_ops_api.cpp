// C entry points of the FP8 helper ops: the amax passes alone and the delayed-scaling update.
#include "core/aliasing.h"
#include "core/backends.h"
#include "core/entry.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/validate.h"

using namespace lowp;

extern "C" {

lowp_status lowp_amax(const lowp_tensor* x, float* amax, void* stream) {
  return guarded("lowp_amax", [&] {
    LOWP_TRY(check_tensor(x, "x"));
    LOWP_TRY(check_floats(amax, "amax", true));
    LOWP_TRY(check_no_overlap({{x->data, dense_bytes(*x), "x->data", false}, {amax, sizeof(float), "amax", true}}));
    MemorySpace space;
    LOWP_TRY(check_same_space({{x->data, "x->data"}, {amax, "amax"}}, &space));
    const DenseView v{x->data, x->dtype, x->rows, x->cols};
    LOWP_TRY(space == MemorySpace::kDevice ? cuda::amax(v, amax, stream) : cpu::amax(v, amax));
    return succeed();
  });
}

lowp_status lowp_amax_per_token(const lowp_tensor* x, float* row_amax, float* col_amax, void* stream) {
  return guarded("lowp_amax_per_token", [&] {
    LOWP_TRY(check_tensor(x, "x"));
    if (row_amax == nullptr && col_amax == nullptr)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "row_amax and col_amax are both NULL; request at least one");
    LOWP_TRY(check_floats(row_amax, "row_amax", false));
    LOWP_TRY(check_floats(col_amax, "col_amax", false));
    LOWP_TRY(check_no_overlap({{x->data, dense_bytes(*x), "x->data", false},
                               {row_amax, float_bytes(x->rows), "row_amax", true},
                               {col_amax, float_bytes(x->cols), "col_amax", true}}));
    MemorySpace space;
    LOWP_TRY(check_same_space({{x->data, "x->data"}, {row_amax, "row_amax"}, {col_amax, "col_amax"}}, &space));
    const DenseView v{x->data, x->dtype, x->rows, x->cols};
    LOWP_TRY(space == MemorySpace::kDevice ? cuda::amax_per_token(v, row_amax, col_amax, stream)
                                           : cpu::amax_per_token(v, row_amax, col_amax));
    return succeed();
  });
}

lowp_status lowp_fp8_delayed_scaling_update(int64_t num_tensors, int64_t history_len, float* amax_history,
                                            float* scale, float* scale_inv, lowp_dtype fp8_dtype, int margin,
                                            lowp_amax_algo algo, void* stream) {
  return guarded("lowp_fp8_delayed_scaling_update", [&] {
    if (num_tensors < 1)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "num_tensors is %lld; must be >= 1", static_cast<long long>(num_tensors));
    if (history_len < 1)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "history_len is %lld; must be >= 1", static_cast<long long>(history_len));
    LOWP_TRY(check_element_count(num_tensors, history_len, "amax_history"));
    LOWP_TRY(check_floats(amax_history, "amax_history", true));
    LOWP_TRY(check_floats(scale, "scale", true));
    LOWP_TRY(check_floats(scale_inv, "scale_inv", true));
    const int dtype = raw(fp8_dtype);
    if (dtype != LOWP_DTYPE_E4M3 && dtype != LOWP_DTYPE_E5M2)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "fp8_dtype is %s; expected LOWP_DTYPE_E4M3 or LOWP_DTYPE_E5M2",
                  enum_text(fp8_dtype).text);
    if (margin <= -100 || margin >= 100)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "margin is %d; must satisfy |margin| < 100", margin);
    if (!known<lowp_amax_algo>(raw(algo)))
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "algo is %s; expected LOWP_AMAX_ALGO_MAX or LOWP_AMAX_ALGO_MOST_RECENT",
                  enum_text(algo).text);
    // The history and the scales are updated in place; the three arrays are distinct.
    LOWP_TRY(check_no_overlap({{amax_history, float_bytes(num_tensors) * static_cast<size_t>(history_len), "amax_history", true},
                               {scale, float_bytes(num_tensors), "scale", true},
                               {scale_inv, float_bytes(num_tensors), "scale_inv", true}}));
    MemorySpace space;
    LOWP_TRY(check_same_space({{amax_history, "amax_history"}, {scale, "scale"}, {scale_inv, "scale_inv"}}, &space));
    const DelayedUpdateArgs a{num_tensors, history_len, amax_history, scale, scale_inv,
                              fp8_max_of(fp8_dtype), margin, algo == LOWP_AMAX_ALGO_MOST_RECENT};
    LOWP_TRY(space == MemorySpace::kDevice ? cuda::fp8_delayed_update(a, stream) : cpu::fp8_delayed_update(a));
    return succeed();
  });
}

}  // extern "C"
