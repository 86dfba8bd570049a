// lowp_quantize / lowp_quantize_dact with explicit arguments, for the regression corpus.
#pragma once
#include "harness/args.h"

namespace lowp_fuzz {

void quantize_call(Call& c, Draw& d, const TensorDraw& x, const QDraw& q, const ConfigDraw& cfg, bool dact = false,
                   const PtrDraw& act_input = {}, int act = 0);

}  // namespace lowp_fuzz
