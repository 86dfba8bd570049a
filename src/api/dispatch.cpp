#include "api/dispatch.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/aliasing.h"
#include "core/enums.h"
#include "core/error.h"

namespace lowp {
namespace {

// lowp_quantize's aliasing rule (lowp.h): x, act_input and the rng state are read; q's buffers
// are written, except the delayed scale and given NVFP4 amaxes, which are read. Each buffer's
// size is the recipe's (lowp_quantized_sizes_query); a part not requested has none.
lowp_status check_aliasing(const Recipe& r, const QuantizeCall& c) {
  lowp_quantized_sizes s;
  LOWP_TRY(r.sizes(c.q.rows, c.q.cols, &s));
  const bool dact = c.act_input != nullptr;
  const size_t x_bytes = dense_bytes(c.x);
  const bool row = c.q.rowwise.data != nullptr, col = c.q.columnwise.data != nullptr;
  const bool tensor_scale_written = c.q.scaling == LOWP_SCALING_CURRENT;
  const bool part_amax_written = c.cfg.amax_given == 0;
  return check_no_overlap({
      {c.x.data, x_bytes, dact ? "grad->data" : "x->data", false},
      {c.act_input, x_bytes, "act_input", false},
      {c.cfg.stochastic_rounding ? c.cfg.rng_state : nullptr, 2 * sizeof(uint64_t), "cfg->rng_state", false},
      {c.q.rowwise.data, s.data_bytes[0], "q->rowwise.data", true},
      {c.q.rowwise.scale_inv, row ? s.scale_inv_bytes[0] : 0, "q->rowwise.scale_inv", true},
      {c.q.rowwise.amax, row ? s.amax_bytes[0] : 0, "q->rowwise.amax", part_amax_written},
      {c.q.columnwise.data, s.data_bytes[1], "q->columnwise.data", true},
      {c.q.columnwise.scale_inv, col ? s.scale_inv_bytes[1] : 0, "q->columnwise.scale_inv", true},
      {c.q.columnwise.amax, col ? s.amax_bytes[1] : 0, "q->columnwise.amax", part_amax_written},
      {c.q.scale, s.tensor_scale_bytes, "q->scale", tensor_scale_written},
      {c.q.scale_inv, s.tensor_scale_bytes, "q->scale_inv", true},
      {c.q.amax, s.tensor_scale_bytes, "q->amax", true},
  });
}

// lowp_dequantize's (lowp.h): the chosen part's codes and scale_inv, its amax when the recipe
// reads it (NVFP4; FP8 per-token's amax is not read) and the FP8 per-tensor scale_inv are read,
// out->data is written.
lowp_status check_aliasing(const Recipe& r, const DequantizeCall& c) {
  lowp_quantized_sizes s;
  LOWP_TRY(r.sizes(c.q.rows, c.q.cols, &s));
  const int i = c.which == LOWP_ROWWISE ? 0 : 1;
  const char* names[2][3] = {{"q->rowwise.data", "q->rowwise.scale_inv", "q->rowwise.amax"},
                             {"q->columnwise.data", "q->columnwise.scale_inv", "q->columnwise.amax"}};
  return check_no_overlap({
      {c.part.data, s.data_bytes[i], names[i][0], false},
      {c.part.scale_inv, s.scale_inv_bytes[i], names[i][1], false},
      {r.dequantize_reads_amax ? c.part.amax : nullptr, s.amax_bytes[i], names[i][2], false},
      {c.q.scale_inv, s.tensor_scale_bytes, "q->scale_inv", false},
      {c.out.data, dense_bytes(c.out), "out->data", true},
  });
}

// Every op of every recipe runs the same way.
template <typename Call, typename Args>
lowp_status run(const Recipe& r, const RecipeOp<Call, Args>& op, const Call& c, void* stream) {
  LOWP_TRY(op.validate(c));
  LOWP_TRY(check_aliasing(r, c));
  Args a;
  MemorySpace space;
  LOWP_TRY(op.make_args(c, &a, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? op.cuda(a, stream) : op.cpu(a));
  return succeed();
}

// The dtypes some recipe makes, for messages: "LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2 or LOWP_DTYPE_E2M1".
std::string quantized_dtype_names() {
  std::vector<const char*> names;
  for (const Recipe* r : recipe_table())
    for (lowp_dtype d : r->dtypes)
      if (std::find(names.begin(), names.end(), enum_name<lowp_dtype>(d)) == names.end())
        names.push_back(enum_name<lowp_dtype>(d));
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i)
    joined += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return joined;
}

}  // namespace

lowp_status find_recipe(int dtype, int scaling, const char* dtype_arg, const char* scaling_arg, const Recipe** out) {
  const bool dtype_known = known<lowp_dtype>(dtype), scaling_known = known<lowp_scaling>(scaling);
  if (dtype_known && scaling_known) {
    for (const Recipe* r : recipe_table()) {
      if (r->takes(static_cast<lowp_dtype>(dtype), static_cast<lowp_scaling>(scaling))) {
        *out = r;
        return LOWP_SUCCESS;
      }
    }
  }
  std::string scalings;  // of the recipes that make dtype, for the message
  for (const Recipe* r : recipe_table())
    if (dtype_known && r->makes(static_cast<lowp_dtype>(dtype)))
      scalings += std::string(scalings.empty() ? "" : ", ") + r->scaling_names;
  const EnumText d = enum_text<lowp_dtype>(dtype), s = enum_text<lowp_scaling>(scaling);
  if (scalings.empty())
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is %s; expected %s", dtype_arg, d.text, quantized_dtype_names().c_str());
  if (!scaling_known)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is %s; %s %s takes %s", scaling_arg, s.text, dtype_arg, d.text,
                scalings.c_str());
  return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s %s does not fit %s %s; expected one of %s", scaling_arg, s.text,
              dtype_arg, d.text, scalings.c_str());
}

lowp_status dispatch_quantize(const Recipe& r, const QuantizeCall& c, void* stream) {
  return run(r, r.quantize, c, stream);
}

lowp_status dispatch_dequantize(const Recipe& r, const DequantizeCall& c, void* stream) {
  return run(r, r.dequantize, c, stream);
}

}  // namespace lowp
