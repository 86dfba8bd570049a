// lowp_quantize / lowp_quantize_dact with explicit arguments, for the regression corpus; what the
// NVFP4 quantizes share.
#pragma once
#include "harness/args.h"

namespace lowp_fuzz {

// An accepted NVFP4 quantize writes 6E into the caller's q->nvfp4_outer_max when q->struct_size
// holds it (lowp_quantize, lowp_nvfp4_grouped_quantize): allowed, and its value checked.
void expect_outer_max_recorded(Call& c, lowp_quantized_tensor* q, const lowp_quant_config* cfg);

// The dact arguments' rules (lowp_quantize_dact, lowp_grouped_quantize_dact): act_input present and
// aligned to the gradient's element size (x_dtype; -1 when there is no gradient), act a known
// activation.
void act_input_rules(Expect& e, int x_dtype, const void* act_input, int act);

void quantize_call(Call& c, Draw& d, const TensorDraw& x, const QDraw& q, const ConfigDraw& cfg, bool dact = false,
                   const PtrDraw& act_input = {}, int act = 0);

}  // namespace lowp_fuzz
