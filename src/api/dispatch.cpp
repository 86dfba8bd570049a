#include "api/dispatch.h"

#include <string>

#include "core/error.h"

namespace lowp {
namespace {

// Every op of every recipe runs the same way.
template <typename Call, typename Args>
lowp_status run(const RecipeOp<Call, Args>& op, const Call& c, void* stream) {
  LOWP_TRY(op.validate(c));
  Args a;
  MemorySpace space;
  LOWP_TRY(op.make_args(c, &a, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? op.cuda(a, stream) : op.cpu(a));
  return succeed();
}

}  // namespace

lowp_status find_recipe(lowp_dtype dtype, lowp_scaling scaling, const char* name, const Recipe** out) {
  for (const Recipe* r : recipe_table()) {
    if (r->takes(dtype, scaling)) {
      *out = r;
      return LOWP_SUCCESS;
    }
  }
  std::string scalings;  // of the recipes that make dtype, for the message
  for (const Recipe* r : recipe_table())
    if (r->makes(dtype)) scalings += std::string(scalings.empty() ? "" : ", ") + r->scaling_names;
  if (scalings.empty())
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->dtype is %d; expected LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2 or LOWP_DTYPE_E2M1",
                name, static_cast<int>(dtype));
  return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->scaling %d does not fit %s->dtype %d; expected one of %s", name,
              static_cast<int>(scaling), name, static_cast<int>(dtype), scalings.c_str());
}

lowp_status dispatch_quantize(const Recipe& r, const QuantizeCall& c, void* stream) { return run(r.quantize, c, stream); }

lowp_status dispatch_dequantize(const Recipe& r, const DequantizeCall& c, void* stream) {
  return run(r.dequantize, c, stream);
}

}  // namespace lowp
