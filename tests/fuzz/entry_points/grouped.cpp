// Grouped FP8: lowp_grouped_workspace_size, lowp_grouped_quantize, lowp_grouped_quantize_dact,
// lowp_grouped_amax, lowp_grouped_dequantize, lowp_grouped_layout_error (host layout arrays).
#include "entry_points/grouped.h"

#include <climits>

#include "entry_points/quantize.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

int64_t draw_stride(Draw& d) {
  if (d.bad(8)) return d.pick({-1, INT64_MIN, INT64_MAX, int64_t{1} << 61, int64_t{1} << 56, int64_t{1} << 40});
  return d.percent(60) ? d.pick({0, 1}) : 1 + d.rng.below(8);
}

// Floats an amax array holds for n members at `stride` (0 and 1: contiguous).
uint64_t amax_floats(int64_t n, int64_t stride) {
  if (n < 1 || stride < 0) return 1;
  return add_sat(mul_sat(static_cast<uint64_t>(n - 1), static_cast<uint64_t>(stride == 0 ? 1 : stride)), 1);
}

void stride_rules(Expect& e, const std::string& name, int64_t n, int64_t stride) {
  if (e.require(stride >= 0, {name}) && n >= 1)
    e.require(amax_floats(n, stride) <= static_cast<uint64_t>(kMaxElements), {name});
}

GroupedQDraw draw_grouped_q(Draw& d, int64_t n) {
  GroupedQDraw q;
  q.null = d.bad(3);
  q.struct_size = d.struct_size(sizeof(lowp_grouped_quantized_tensor), kGroupedQuantizedFirst);
  q.dtype = d.enum_among({LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2}, 6);
  q.scaling = d.enum_among({LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT}, 5);
  q.num_tensors = d.bad(5) && n >= 1 ? d.pick({n + 1, n - 1, 0, -1}) : n;
  q.amax_stride = draw_stride(d);
  const uint32_t parts = 1 + d.rng.below(3);
  q.rowwise = parts & 1 ? d.ptr() : d.null();
  q.columnwise = parts & 2 ? d.ptr() : d.null();
  q.scale = d.ptr(), q.scale_inv = d.ptr(), q.amax = d.ptr();
  return q;
}

// `read_which`: -1 for the grouped quantizes (outputs); the orientation a dequantize reads (the
// other copy's codes, scale and amax are then no buffers of the call).
lowp_grouped_quantized_tensor* make_grouped_q(Call& c, const GroupedQDraw& q, uint64_t code_bytes, int read_which) {
  const bool output = read_which < 0, delayed = q.scaling == LOWP_SCALING_DELAYED;
  const uint64_t n = q.num_tensors > 0 ? static_cast<uint64_t>(q.num_tensors) : 1;
  const Role codes = output ? Role::kOutPartial : Role::kIn;
  const Role unread = output ? Role::kIn : Role::kUnused;
  lowp_grouped_quantized_tensor v = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  v.struct_size = q.struct_size;
  set_int(v.dtype, q.dtype);
  set_int(v.scaling, q.scaling);
  v.num_tensors = q.num_tensors;
  v.amax_stride = q.amax_stride;
  v.rowwise_data =
      c.buffer("q->rowwise_data", code_bytes, read_which == LOWP_COLUMNWISE ? Role::kUnused : codes, q.rowwise);
  v.columnwise_data =
      c.buffer("q->columnwise_data", code_bytes, read_which == LOWP_ROWWISE ? Role::kUnused : codes, q.columnwise);
  v.scale = static_cast<float*>(c.buffer("q->scale", 4 * n, output && !delayed ? Role::kOut : unread, q.scale));
  v.scale_inv = static_cast<float*>(c.buffer("q->scale_inv", 4 * n, output ? Role::kOut : Role::kIn, q.scale_inv));
  const uint64_t floats = amax_floats(q.num_tensors, q.amax_stride);
  const Role amax_role = !output ? unread : delayed ? Role::kInOut : floats == n ? Role::kOut : Role::kOutPartial;
  v.amax = static_cast<float*>(c.buffer("q->amax", mul_sat(floats, 4), amax_role, q.amax));
  return c.object("q", v, q.null, q.struct_size);
}

}  // namespace

void grouped_amax_call(Call& c, Draw& d, const GroupDraw& xd, const PtrDraw& amax_how, int64_t stride,
                       const PtrDraw& ws_how) {
  lowp_grouped_tensor* x = make_group(c, d, "x", xd, Role::kIn);
  const uint64_t floats = amax_floats(xd.num_tensors, stride);
  const Role role = floats == static_cast<uint64_t>(xd.num_tensors) ? Role::kOut : Role::kOutPartial;
  float* amax = static_cast<float*>(c.buffer("amax", mul_sat(floats, 4), role, amax_how));
  const Workspace w = make_group_workspace(c, d, xd.num_tensors, ws_how);
  void* ws = w.ptr;
  const size_t ws_bytes = w.bytes;
  Expect& e = c.expect;
  group_rules(e, "x", x);
  float_rule(e, amax, "amax");
  stride_rules(e, "amax_stride", xd.num_tensors, stride);
  group_workspace_rules(e, c, w);
  c.invoke = [=] { return lowp_grouped_amax(x, amax, stride, ws, ws_bytes, nullptr); };
}

void grouped_quantize_call(Call& c, Draw& d, const GroupDraw& xd, const GroupedQDraw& qd, const ConfigDraw& kd,
                           const PtrDraw& ws_how, bool dact, const PtrDraw& act_how, int act) {
  const std::string xn = dact ? "grad" : "x";
  lowp_grouped_tensor* x = make_group(c, d, xn, xd, Role::kIn);
  const void* act_input =
      dact ? c.buffer("act_input", group_data_bytes(xd, element_bytes(xd.dtype)), Role::kIn, act_how) : nullptr;
  lowp_grouped_quantized_tensor* q = make_grouped_q(c, qd, group_data_bytes(xd, 1), -1);
  lowp_quant_config* cfg = make_config(c, kd);
  const Workspace w = make_group_workspace(c, d, xd.num_tensors, ws_how);
  void* ws = w.ptr;
  const size_t ws_bytes = w.bytes;

  Expect& e = c.expect;
  group_rules(e, xn, x);
  if (dact) act_input_rules(e, x != nullptr ? as_int(x->dtype) : -1, act_input, act);
  if (e.require(q != nullptr, {"q"})) {
    struct_size_rules(e, "q", q->struct_size, kGroupedQuantizedFirst, sizeof(lowp_grouped_quantized_tensor));
    const lowp_grouped_quantized_tensor Q = as_read(q);
    e.require(is_fp8(as_int(Q.dtype)), {"q->dtype"});
    if (as_int(Q.scaling) == LOWP_SCALING_PER_TOKEN)
      e.require(false, {"q->scaling"}, {LOWP_ERROR_INVALID_ARGUMENT, LOWP_ERROR_UNSUPPORTED});
    else
      e.require(as_int(Q.scaling) == LOWP_SCALING_DELAYED || as_int(Q.scaling) == LOWP_SCALING_CURRENT, {"q->scaling"});
    if (x != nullptr) e.require(Q.num_tensors == x->num_tensors, {"q->num_tensors"});
    stride_rules(e, "q->amax_stride", Q.num_tensors, Q.amax_stride);
    e.open(Q.rowwise_data != nullptr || Q.columnwise_data != nullptr, {"q->rowwise_data", "q->columnwise_data"},
           "no copy requested: lowp.h does not say");
    float_rule(e, Q.scale, "q->scale");
    float_rule(e, Q.scale_inv, "q->scale_inv");
    float_rule(e, Q.amax, "q->amax");
  }
  config_rules(e, cfg);
  const lowp_quant_config k = config_as_read(cfg);
  fp8_config_rules(e, k);
  e.open(k.group_row_multiple == 0, {"cfg->group_row_multiple"}, "group_row_multiple outside the grouped NVFP4 calls");
  group_workspace_rules(e, c, w);
  if (dact)
    c.invoke = [=] {
      return lowp_grouped_quantize_dact(x, act_input, static_cast<lowp_activation>(act), q, cfg, ws, ws_bytes, nullptr);
    };
  else
    c.invoke = [=] { return lowp_grouped_quantize(x, q, cfg, ws, ws_bytes, nullptr); };
}

void grouped_dequantize_call(Call& c, Draw& d, const GroupedQDraw& qd, int which, const GroupDraw& od,
                             const PtrDraw& ws_how) {
  lowp_grouped_quantized_tensor* q = make_grouped_q(c, qd, group_data_bytes(od, 1), which);
  lowp_grouped_tensor* out = make_group(c, d, "out", od, Role::kOutPartial);
  const Workspace w = make_group_workspace(c, d, od.num_tensors, ws_how);
  void* ws = w.ptr;
  const size_t ws_bytes = w.bytes;
  Expect& e = c.expect;
  if (e.require(q != nullptr, {"q"})) {
    struct_size_rules(e, "q", q->struct_size, kGroupedQuantizedFirst, sizeof(lowp_grouped_quantized_tensor));
    const lowp_grouped_quantized_tensor Q = as_read(q);
    e.require(is_fp8(as_int(Q.dtype)), {"q->dtype"});
    e.open(as_int(Q.scaling) == LOWP_SCALING_DELAYED || as_int(Q.scaling) == LOWP_SCALING_CURRENT, {"q->scaling"},
           "grouped dequantize with another q->scaling: lowp.h does not say");
    const bool which_ok = e.require(which == LOWP_ROWWISE || which == LOWP_COLUMNWISE, {"which"});
    if (out != nullptr) e.require(Q.num_tensors == out->num_tensors, {"q->num_tensors", "out->num_tensors"});
    if (which_ok)
      e.require((which == LOWP_ROWWISE ? Q.rowwise_data : Q.columnwise_data) != nullptr,
                {which == LOWP_ROWWISE ? "q->rowwise_data" : "q->columnwise_data"});
    float_rule(e, Q.scale_inv, "q->scale_inv");
  }
  group_rules(e, "out", out);
  group_workspace_rules(e, c, w);
  c.invoke = [=] {
    return lowp_grouped_dequantize(q, static_cast<lowp_orientation>(which), out, ws, ws_bytes, nullptr);
  };
}

namespace {

void workspace_size(Draw& d, Call& c) {
  const int64_t n = d.bad() ? d.pick({0, -1, INT64_MIN, (int64_t{1} << 40) + 1, INT64_MAX}) : d.dim(1, 64);
  PtrDraw bp = d.ptr();
  if (bp.mode != PtrMode::kNull) bp = d.normal();
  auto* bytes = static_cast<size_t*>(c.buffer("bytes", sizeof(size_t), Role::kOut, bp, &host_memory()));
  Expect& e = c.expect;
  e.require(bytes != nullptr, {"bytes"});
  if (e.require(n >= 1, {"num_tensors"}))
    e.open(n <= (int64_t{1} << 40), {"num_tensors"}, "lowp_grouped_workspace_size: no upper bound in lowp.h");
  c.invoke = [=] { return lowp_grouped_workspace_size(n, bytes); };
}

void amax(Draw& d, Call& c) {
  const GroupDraw x = draw_group(d);
  grouped_amax_call(c, d, x, d.ptr(), draw_stride(d), d.optional(70));
}

void build_quantize(Draw& d, Call& c, bool dact) {
  const GroupDraw x = draw_group(d);
  const GroupedQDraw q = draw_grouped_q(d, x.num_tensors);
  const ConfigDraw k = draw_config(d, Recipe::kFp8PerTensor);
  const PtrDraw ws = d.optional(70), act_input = d.ptr();
  grouped_quantize_call(c, d, x, q, k, ws, dact, act_input, d.enum_value(3));
}
void quantize(Draw& d, Call& c) { build_quantize(d, c, false); }
void quantize_dact(Draw& d, Call& c) { build_quantize(d, c, true); }

void dequantize(Draw& d, Call& c) {
  const GroupDraw out = draw_group(d);
  const GroupedQDraw q = draw_grouped_q(d, out.num_tensors);
  const int which = d.enum_value(2);
  grouped_dequantize_call(c, d, q, which, out, d.optional(70));
}

void layout_error(Draw& d, Call& c) {
  const PtrDraw wp = d.ptr(), bp = d.ptr();
  // "Aliasing: none (reads the workspace ...)": a device workspace; a host one is not read.
  void* ws = c.buffer("workspace", 256, c.data.device() ? Role::kIn : Role::kUnused, wp);
  auto* bad = static_cast<int64_t*>(c.buffer("bad_member_plus_one", 8, Role::kOut, bp, &host_memory()));
  Expect& e = c.expect;
  e.require(ws != nullptr, {"workspace"});
  e.require(bad != nullptr, {"bad_member_plus_one"});
  if (bad != nullptr) e.require(aligned_to(bad, 8), {"bad_member_plus_one"});  // "8-byte aligned"
  e.open(aligned_to(ws, 8), {"workspace"}, "lowp_grouped_layout_error: the workspace's alignment not stated");
  if (!c.data.device())
    e.open(false, {"workspace"}, "lowp_grouped_layout_error on a host workspace: lowp.h does not say");
  c.invoke = [=] { return lowp_grouped_layout_error(ws, bad, nullptr); };
}

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_grouped_workspace_size, workspace_size);
LOWP_FUZZ_ENTRY_POINT(lowp_grouped_quantize, quantize);
LOWP_FUZZ_ENTRY_POINT(lowp_grouped_quantize_dact, quantize_dact);
LOWP_FUZZ_ENTRY_POINT(lowp_grouped_amax, amax);
LOWP_FUZZ_ENTRY_POINT(lowp_grouped_dequantize, dequantize);
LOWP_FUZZ_ENTRY_POINT(lowp_grouped_layout_error, layout_error);

}  // namespace lowp_fuzz
