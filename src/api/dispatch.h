// One dispatch per op over the recipe table (recipes/recipe.h): the row of q's dtype and scaling,
// then its validate, make_args and backend.
#pragma once
#include "recipes/recipe.h"

namespace lowp {

// The row that takes (dtype, scaling); else a failure naming `name`->dtype or ->scaling.
lowp_status find_recipe(lowp_dtype dtype, lowp_scaling scaling, const char* name, const Recipe** out);

lowp_status dispatch_quantize(const Recipe& r, const QuantizeCall& c, void* stream);
lowp_status dispatch_dequantize(const Recipe& r, const DequantizeCall& c, void* stream);

}  // namespace lowp
