// The FP8 helper ops: lowp_amax, lowp_amax_per_token, lowp_fp8_delayed_scaling_update.
#include <climits>

#include "harness/args.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

void amax(Draw& d, Call& c) {
  const TensorDraw xd = draw_tensor(d, d.dim(), d.dim());
  const PtrDraw ap = d.ptr();
  lowp_tensor* x = make_tensor(c, d, "x", xd, Role::kIn);
  float* am = static_cast<float*>(c.buffer("amax", 4, Role::kOut, ap));
  tensor_rules(c.expect, "x", x);
  float_rule(c.expect, am, "amax");
  c.invoke = [=] { return lowp_amax(x, am, nullptr); };
}

void amax_per_token(Draw& d, Call& c) {
  const TensorDraw xd = draw_tensor(d, d.dim(), d.dim());
  const PtrDraw rp = d.optional(70), cp = d.optional(70);
  lowp_tensor* x = make_tensor(c, d, "x", xd, Role::kIn);
  float* row = static_cast<float*>(c.buffer("row_amax", bytes_of(xd.rows, 4), Role::kOut, rp));
  float* col = static_cast<float*>(c.buffer("col_amax", bytes_of(xd.cols, 4), Role::kOut, cp));
  Expect& e = c.expect;
  tensor_rules(e, "x", x);
  e.require(row != nullptr || col != nullptr, {"row_amax", "col_amax"});
  float_rule(e, row, "row_amax", false);
  float_rule(e, col, "col_amax", false);
  c.invoke = [=] { return lowp_amax_per_token(x, row, col, nullptr); };
}

void delayed_scaling_update(Draw& d, Call& c) {
  const int64_t n = d.bad() ? d.pick({0, -1, INT64_MIN, int64_t{1} << 40, int64_t{1} << 56, INT64_MAX}) : d.dim(1, 6);
  const int64_t len = d.bad() ? d.pick({0, -1, INT64_MIN, int64_t{1} << 40, INT64_MAX}) : d.dim(1, 16);
  const int dtype = d.enum_among({LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2}, 6);
  const int margin =
      d.bad() ? static_cast<int>(d.pick({100, -100, INT_MAX, INT_MIN, 1000})) : static_cast<int>(d.rng.below(21)) - 10;
  const int algo = d.enum_value(2);
  const PtrDraw hp = d.ptr(), sp = d.ptr(), ip = d.ptr();
  const uint64_t nl = n > 0 && len > 0 ? mul_sat(static_cast<uint64_t>(n), static_cast<uint64_t>(len)) : 0;
  float* hist = static_cast<float*>(c.buffer("amax_history", mul_sat(nl, 4), Role::kInOut, hp));
  float* scale = static_cast<float*>(c.buffer("scale", bytes_of(n, 4), Role::kInOut, sp));
  float* scale_inv = static_cast<float*>(c.buffer("scale_inv", bytes_of(n, 4), Role::kInOut, ip));
  Expect& e = c.expect;
  const bool n_ok =
      e.require(n >= 0, {"num_tensors"}) && e.open(n != 0, {"num_tensors"}, "num_tensors 0: lowp.h does not say");
  const bool len_ok =
      e.require(len >= 0, {"history_len"}) && e.open(len != 0, {"history_len"}, "history_len 0: lowp.h does not say");
  if (n_ok && len_ok) e.require(!too_many(n, len), {"num_tensors", "history_len", "amax_history"});
  float_rule(e, hist, "amax_history");
  float_rule(e, scale, "scale");
  float_rule(e, scale_inv, "scale_inv");
  e.require(is_fp8(dtype), {"fp8_dtype"});
  e.require(margin > -100 && margin < 100, {"margin"});
  e.require(algo == LOWP_AMAX_ALGO_MAX || algo == LOWP_AMAX_ALGO_MOST_RECENT, {"algo"});
  c.invoke = [=] {
    return lowp_fp8_delayed_scaling_update(n, len, hist, scale, scale_inv, static_cast<lowp_dtype>(dtype), margin,
                                           static_cast<lowp_amax_algo>(algo), nullptr);
  };
}

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_amax, amax);
LOWP_FUZZ_ENTRY_POINT(lowp_amax_per_token, amax_per_token);
LOWP_FUZZ_ENTRY_POINT(lowp_fp8_delayed_scaling_update, delayed_scaling_update);

}  // namespace lowp_fuzz
