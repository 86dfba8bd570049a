// One dispatch per op over the recipe table (recipes/recipe.h): the row of q's dtype and scaling,
// then its validate, the call's aliasing rule, make_args and the backend.
#pragma once
#include "recipes/recipe.h"

namespace lowp {

// The row that takes (dtype, scaling), both as the caller stored them (core/enums.h: any int);
// else a failure naming the argument (`dtype_arg`, e.g. "q->dtype", or `scaling_arg`).
lowp_status find_recipe(int dtype, int scaling, const char* dtype_arg, const char* scaling_arg, const Recipe** out);

lowp_status dispatch_quantize(const Recipe& r, const QuantizeCall& c, void* stream);
lowp_status dispatch_dequantize(const Recipe& r, const DequantizeCall& c, void* stream);

}  // namespace lowp
