// lowp_quantize / lowp_quantize_dact with explicit arguments, for the regression corpus; what the
// NVFP4 quantizes share.
#pragma once
#include "harness/args.h"

namespace lowp_fuzz {

// An accepted NVFP4 quantize writes 6E into the caller's q->nvfp4_outer_max when q->struct_size
// holds it (lowp_quantize, lowp_nvfp4_grouped_quantize): allowed, and its value checked.
void expect_outer_max_recorded(Call& c, lowp_quantized_tensor* q, const lowp_quant_config* cfg);

void quantize_call(Call& c, Draw& d, const TensorDraw& x, const QDraw& q, const ConfigDraw& cfg, bool dact = false,
                   const PtrDraw& act_input = {}, int act = 0);

}  // namespace lowp_fuzz
