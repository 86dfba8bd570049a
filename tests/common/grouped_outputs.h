// A grouped FP8 output struct filled by name: lowp_grouped_quantized_tensor is growable (its
// first member is struct_size), so a positional brace list would put the dtype into struct_size.
#pragma once
#include "lowp/lowp.h"

namespace lowp_test {

inline lowp_grouped_quantized_tensor grouped_outputs(lowp_dtype dtype, lowp_scaling scaling, int64_t n, void* row,
                                                     void* col, float* scale, float* scale_inv, float* amax,
                                                     int64_t amax_stride) {
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  q.dtype = dtype;
  q.scaling = scaling;
  q.num_tensors = n;
  q.rowwise_data = row;
  q.columnwise_data = col;
  q.scale = scale;
  q.scale_inv = scale_inv;
  q.amax = amax;
  q.amax_stride = amax_stride;
  return q;
}

}  // namespace lowp_test
