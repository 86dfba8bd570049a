// Grouped FP8 calls with explicit arguments, for the regression corpus (fuzz_regression_test).
#pragma once
#include "harness/args.h"
#include "harness/group_args.h"

namespace lowp_fuzz {

struct GroupedQDraw {
  bool null = false;
  size_t struct_size = sizeof(lowp_grouped_quantized_tensor);
  int dtype = LOWP_DTYPE_E4M3, scaling = LOWP_SCALING_CURRENT;
  int64_t num_tensors = 1, amax_stride = 0;
  PtrDraw rowwise, columnwise, scale, scale_inv, amax;
};

void grouped_amax_call(Call& c, Draw& d, const GroupDraw& x, const PtrDraw& amax, int64_t amax_stride,
                       const PtrDraw& workspace);
void grouped_quantize_call(Call& c, Draw& d, const GroupDraw& x, const GroupedQDraw& q, const ConfigDraw& k,
                           const PtrDraw& workspace, bool dact = false, const PtrDraw& act_input = {}, int act = 0);
void grouped_dequantize_call(Call& c, Draw& d, const GroupedQDraw& q, int which, const GroupDraw& out,
                             const PtrDraw& workspace);

}  // namespace lowp_fuzz
