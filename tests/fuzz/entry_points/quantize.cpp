// lowp_quantize, lowp_quantize_dact, lowp_dequantize and lowp_quantized_sizes_query: every recipe
// (FP8 per-tensor and per-token, NVFP4 per-tensor and per-token), modelled from lowp.h.
#include "entry_points/quantize.h"

#include <memory>

#include "harness/registry.h"

namespace lowp_fuzz {

void act_input_rules(Expect& e, int x_dtype, const void* act_input, int act) {
  e.require(act_input != nullptr, {"act_input"});
  e.require(act >= 0 && act <= 2, {"act"});
  if (is_high_precision(x_dtype))
    e.require(aligned_to(act_input, element_bytes(x_dtype)), {"act_input"});
}

namespace {

// Which buffers a quantize writes (lowp.h on lowp_quantized_tensor's fields and lowp_quantize).
QPlan output_plan(const QDraw& q, const lowp_quant_config& k) {
  const Recipe r = recipe_of(q.dtype, q.scaling);
  QPlan p = input_plan(r, q.rows, q.cols);
  unused_unless_requested(p, q);
  for (int i = 0; i < 2; ++i) {
    if (q.part[i].data.mode == PtrMode::kNull) continue;
    p.data[i].role = Role::kOut;
    if (r != Recipe::kFp8PerTensor) p.scale_inv[i].role = Role::kOut;
    if (r != Recipe::kFp8PerTensor) p.amax[i].role = is_nvfp4(r) && k.amax_given ? Role::kIn : Role::kOut;
  }
  if (r == Recipe::kFp8PerTensor) {
    const bool delayed = q.scaling == LOWP_SCALING_DELAYED;
    p.scale.role = delayed ? Role::kIn : Role::kOut;
    p.tensor_scale_inv.role = Role::kOut;
    p.tensor_amax.role = delayed ? Role::kInOut : Role::kOut;
  }
  return p;
}

const char* part_name(int i, const char* field) {
  static const char* const kNames[2][3] = {{"q->rowwise.data", "q->rowwise.scale_inv", "q->rowwise.amax"},
                                           {"q->columnwise.data", "q->columnwise.scale_inv", "q->columnwise.amax"}};
  const int f = field[0] == 'd' ? 0 : field[0] == 's' ? 1 : 2;
  return kNames[i][f];
}

// lowp_quantize / lowp_quantize_dact (dact: grad, act_input, act).
void quantize_rules(Expect& e, const lowp_tensor* x, const lowp_quantized_tensor* q, const lowp_quant_config* cfg,
                    bool dact, const void* act_input, int act) {
  const std::string xn = dact ? "grad" : "x";
  tensor_rules(e, xn, x);
  if (dact) act_input_rules(e, x != nullptr ? as_int(x->dtype) : -1, act_input, act);
  if (!e.require(q != nullptr, {"q"})) return;
  struct_size_rules(e, "q", q->struct_size, kQuantizedFirst, sizeof(lowp_quantized_tensor));
  const lowp_quantized_tensor Q = as_read(q);
  const Recipe r = recipe_of(as_int(Q.dtype), as_int(Q.scaling));
  e.require(r != Recipe::kNone, {"q->dtype", "q->scaling"});
  if (dact && r != Recipe::kNone)
    e.require(r == Recipe::kFp8PerTensor, {"q->scaling", "q->dtype", "lowp_quantize_dact"},
              {LOWP_ERROR_INVALID_ARGUMENT, LOWP_ERROR_UNSUPPORTED});
  if (x != nullptr) e.require(Q.rows == x->rows && Q.cols == x->cols, {"q->rows", "q->cols", "q", xn});
  config_rules(e, cfg);
  const lowp_quant_config k = config_as_read(cfg);
  e.open(k.group_row_multiple == 0, {"cfg->group_row_multiple"}, "group_row_multiple outside the grouped NVFP4 calls");
  const bool want[2] = {Q.rowwise.data != nullptr, Q.columnwise.data != nullptr};
  e.open(want[0] || want[1], {"q->rowwise.data", "q->columnwise.data"}, "no copy requested: lowp.h does not say");
  const lowp_quantized_part* parts[2] = {&Q.rowwise, &Q.columnwise};
  const int64_t rows = x != nullptr ? x->rows : Q.rows, cols = x != nullptr ? x->cols : Q.cols;
  switch (r) {
    case Recipe::kNone:
      return;
    case Recipe::kFp8PerTensor:
      fp8_config_rules(e, k);
      float_rule(e, Q.scale, "q->scale");
      float_rule(e, Q.scale_inv, "q->scale_inv");
      float_rule(e, Q.amax, "q->amax");
      return;
    case Recipe::kFp8PerToken:
      fp8_config_rules(e, k);
      for (int i = 0; i < 2; ++i)
        if (want[i]) {
          float_rule(e, parts[i]->scale_inv, part_name(i, "scale_inv"));
          float_rule(e, parts[i]->amax, part_name(i, "amax"));
        }
      return;
    case Recipe::kNvfp4PerTensor:
    case Recipe::kNvfp4PerToken:
    case Recipe::kNvfp4RowScaled:
      nvfp4_config_rules(e, r, k, rows);
      // "with E = 256 q->struct_size must cover that member" (q->nvfp4_outer_max = 1536)
      if (k.four_over_six != 0 && takes_four_over_six(r) && k.four_over_six_scale_max == 256.0f)
        e.require(q->struct_size >= kOuterMaxEnd, {"q->struct_size", "q->nvfp4_outer_max"});
      e.require(cols % 16 == 0, {xn + "->cols", "q->cols", xn});
      if (want[1]) e.require(rows % 16 == 0, {xn + "->rows", "q->rows", xn});
      e.require(
          as_int(Q.scale_layout) == LOWP_SCALE_LAYOUT_COMPACT || as_int(Q.scale_layout) == LOWP_SCALE_LAYOUT_SWIZZLED,
          {"q->scale_layout"});
      for (int i = 0; i < 2; ++i)
        if (want[i]) {
          e.require(parts[i]->scale_inv != nullptr, {part_name(i, "scale_inv")});
          float_rule(e, parts[i]->amax, part_name(i, "amax"));
        }
      return;
  }
}

}  // namespace

void expect_outer_max_recorded(Call& c, lowp_quantized_tensor* q, const lowp_quant_config* cfg) {
  if (q == nullptr || q->struct_size < kOuterMaxEnd || q->struct_size > sizeof *q) return;
  if (!is_nvfp4(recipe_of(as_int(q->dtype), as_int(q->scaling)))) return;
  constexpr size_t at = offsetof(lowp_quantized_tensor, nvfp4_outer_max);
  c.member_written(q, at, sizeof(float));
  const float want = recorded_outer_max(config_as_read(cfg));
  c.verify = [q, want]() -> std::string {
    if (q->nvfp4_outer_max == want) return "";
    return "q->nvfp4_outer_max is " + std::to_string(q->nvfp4_outer_max) + " after the quantize; lowp.h: 6E = " +
           std::to_string(want);
  };
}

void quantize_call(Call& c, Draw& d, const TensorDraw& xd, const QDraw& qd, const ConfigDraw& kd, bool dact,
                   const PtrDraw& act_ptr, int act) {
  lowp_tensor* x = make_tensor(c, d, dact ? "grad" : "x", xd, Role::kIn);
  const void* act_input =
      dact ? c.buffer("act_input", tensor_bytes(xd.dtype, xd.rows, xd.cols), Role::kIn, act_ptr) : nullptr;
  const lowp_quant_config k = kd.null ? header_default_config() : kd.v;
  lowp_quantized_tensor* q = make_quantized(c, "q", qd, output_plan(qd, k));
  lowp_quant_config* cfg = make_config(c, kd);
  quantize_rules(c.expect, x, q, cfg, dact, act_input, act);
  expect_outer_max_recorded(c, q, cfg);
  if (dact)
    c.invoke = [=] { return lowp_quantize_dact(x, act_input, static_cast<lowp_activation>(act), q, cfg, nullptr); };
  else
    c.invoke = [=] { return lowp_quantize(x, q, cfg, nullptr); };
}

namespace {

void build_quantize(Draw& d, Call& c, bool dact) {
  const Recipe r = dact && d.percent(85) ? Recipe::kFp8PerTensor : draw_recipe(d);
  const int64_t m = is_nvfp4(r) ? 16 : 1;
  const int64_t rows = d.dim(m), cols = d.dim(m);
  const TensorDraw xd = draw_tensor(d, rows, cols);
  const QDraw qd = draw_quantized(d, r, rows, cols, 1 + static_cast<int>(d.rng.below(3)));
  const ConfigDraw kd = draw_config(d, r);
  const PtrDraw act_ptr = d.ptr();
  const int act = d.enum_value(3);
  quantize_call(c, d, xd, qd, kd, dact, act_ptr, act);
}

void quantize(Draw& d, Call& c) { build_quantize(d, c, false); }
void quantize_dact(Draw& d, Call& c) { build_quantize(d, c, true); }

void dequantize(Draw& d, Call& c) {
  const Recipe r = draw_recipe(d);
  const int64_t m = is_nvfp4(r) ? 16 : 1;
  const int64_t rows = d.dim(m), cols = d.dim(m);
  const int which = d.enum_value(2);
  const bool col = which == LOWP_COLUMNWISE;
  const QDraw qd = draw_quantized(d, r, rows, cols, (col ? 2 : 1) | static_cast<int>(d.rng.below(4)));
  const TensorDraw od = draw_tensor(d, col ? cols : rows, col ? rows : cols);

  lowp_quantized_tensor* q =
      make_quantized(c, "q", qd, read_plan(recipe_of(qd.dtype, qd.scaling), qd.rows, qd.cols, col ? 1 : 0));
  lowp_tensor* out = make_tensor(c, d, "out", od, Role::kOut);

  Expect& e = c.expect;
  if (e.require(q != nullptr, {"q"})) {
    struct_size_rules(e, "q", q->struct_size, kQuantizedFirst, sizeof(lowp_quantized_tensor));
    const lowp_quantized_tensor Q = as_read(q);
    const Recipe qr = recipe_of(as_int(Q.dtype), as_int(Q.scaling));
    e.require(qr != Recipe::kNone, {"q->dtype", "q->scaling"});
    const bool shape_ok = e.require(Q.rows >= 1 && Q.cols >= 1, {"q->rows", "q->cols", "q"}) &&
                          e.require(!too_many(Q.rows, Q.cols), {"q->rows", "q->cols", "q"});
    const bool which_ok = e.require(which == LOWP_ROWWISE || which == LOWP_COLUMNWISE, {"which"});
    tensor_rules(e, "out", out);
    if (out != nullptr && shape_ok && which_ok)
      e.require(out->rows == (col ? Q.cols : Q.rows) && out->cols == (col ? Q.rows : Q.cols),
                {"out->rows", "out->cols", "out"});
    if (which_ok) {
      const lowp_quantized_part& p = col ? Q.columnwise : Q.rowwise;
      const int i = col ? 1 : 0;
      e.require(p.data != nullptr, {part_name(i, "data")});
      if (qr == Recipe::kFp8PerTensor) float_rule(e, Q.scale_inv, "q->scale_inv");
      if (qr == Recipe::kFp8PerToken) float_rule(e, p.scale_inv, part_name(i, "scale_inv"));
      if (is_nvfp4(qr)) {
        e.require(Q.cols % 16 == 0, {"q->cols", "q"});
        if (col) e.require(Q.rows % 16 == 0, {"q->rows", "q"});
        e.require(
            as_int(Q.scale_layout) == LOWP_SCALE_LAYOUT_COMPACT || as_int(Q.scale_layout) == LOWP_SCALE_LAYOUT_SWIZZLED,
            {"q->scale_layout"});
        e.require(p.scale_inv != nullptr, {part_name(i, "scale_inv")});
        float_rule(e, p.amax, part_name(i, "amax"));
        outer_max_rule(e, "q", Q.nvfp4_outer_max, qr);
      }
    }
  }
  c.invoke = [=] { return lowp_dequantize(q, static_cast<lowp_orientation>(which), out, nullptr); };
}

void sizes_query(Draw& d, Call& c) {
  const Recipe like = draw_recipe(d);
  const QDraw qd = draw_quantized(d, like, 0, 0, 1);  // dtype and scaling
  const int64_t m = is_nvfp4(like) ? 16 : 1;
  const int64_t rows = d.percent(5) ? d.pick({int64_t{1} << 40, int64_t{1} << 28, kMaxElements / 16}) : d.dim(m);
  const int64_t cols = d.percent(5) ? d.pick({16, int64_t{1} << 28}) : d.dim(m);
  PtrDraw sp = d.ptr();
  if (sp.mode != PtrMode::kNull) sp = d.normal();  // a struct pointer: NULL or valid
  auto* sizes = static_cast<lowp_quantized_sizes*>(
      c.buffer("sizes", sizeof(lowp_quantized_sizes), Role::kOut, sp, &host_memory()));
  const int dtype = qd.dtype, scaling = qd.scaling;

  Expect& e = c.expect;
  e.require(sizes != nullptr, {"sizes"});
  const Recipe r = recipe_of(dtype, scaling);
  e.require(r != Recipe::kNone, {"dtype", "scaling"});
  e.require(rows >= 1, {"rows"});
  e.require(cols >= 1, {"cols"});
  if (rows >= 1 && cols >= 1) e.require(!too_many(rows, cols), {"rows", "cols"});
  if (is_nvfp4(r)) e.require(cols % 16 == 0, {"cols"});
  c.invoke = [=] {
    return lowp_quantized_sizes_query(static_cast<lowp_dtype>(dtype), static_cast<lowp_scaling>(scaling), rows, cols,
                                      sizes);
  };
  c.verify = [=]() -> std::string {
    const QSizes w = quantized_sizes(r, rows, cols);
    const lowp_quantized_sizes& g = *sizes;
    for (int i = 0; i < 2; ++i)
      if (g.data_bytes[i] != w.data[i] || g.scale_inv_bytes[i] != w.scale_inv[i] || g.amax_bytes[i] != w.amax[i])
        return "lowp_quantized_sizes_query: orientation " + std::to_string(i) + " sizes " +
               std::to_string(g.data_bytes[i]) + "/" + std::to_string(g.scale_inv_bytes[i]) + "/" +
               std::to_string(g.amax_bytes[i]) + ", lowp.h says " + std::to_string(w.data[i]) + "/" +
               std::to_string(w.scale_inv[i]) + "/" + std::to_string(w.amax[i]);
    if (g.tensor_scale_bytes != w.tensor_scale) return "lowp_quantized_sizes_query: tensor_scale_bytes differs";
    return "";
  };
}

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_quantize, quantize);
LOWP_FUZZ_ENTRY_POINT(lowp_quantize_dact, quantize_dact);
LOWP_FUZZ_ENTRY_POINT(lowp_dequantize, dequantize);
LOWP_FUZZ_ENTRY_POINT(lowp_quantized_sizes_query, sizes_query);

}  // namespace lowp_fuzz
