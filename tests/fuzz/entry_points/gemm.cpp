// gemm.h: lowp_gemm_config_default, lowp_gemm and lowp_gemm_workspace_size, every recipe family,
// both copies of each operand, the config's options.
#include "lowp/gemm.h"

#include <cstring>
#include <memory>

#include "harness/args.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

constexpr size_t kGemmConfigFirst = LOWP_GEMM_CONFIG_FIRST_SIZE;

lowp_gemm_config header_default_gemm_config() {
  lowp_gemm_config c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  c.bias_dtype = LOWP_DTYPE_BFLOAT16;
  return c;
}

struct GemmDraw {
  Recipe family = Recipe::kFp8PerTensor;
  int64_t m = 16, n = 16, k = 16;
  int a_copy = 0, b_copy = 0;
  QDraw a, b;
  TensorDraw d;
  bool cfg_null = true;
  lowp_gemm_config cfg{};
  PtrDraw bias;
  PtrDraw workspace;
};

GemmDraw draw_gemm(Draw& d) {
  GemmDraw g;
  g.family = draw_recipe(d);
  g.m = d.dim(1, 40), g.n = d.dim(16, 4), g.k = d.dim(16, 4);
  if (d.percent(15)) g.n = d.dim(1, 40);
  g.a_copy = d.enum_value(2), g.b_copy = d.enum_value(2);
  // The tensors whose chosen copies are A (m x k) and B (n x k).
  const bool ac = g.a_copy == LOWP_COLUMNWISE, bc = g.b_copy == LOWP_COLUMNWISE;
  const Recipe fb = d.bad(5) ? draw_recipe(d) : g.family;
  g.a = draw_quantized(d, g.family, ac ? g.k : g.m, ac ? g.m : g.k, ac ? 2 : 1);
  g.b = draw_quantized(d, fb, bc ? g.k : g.n, bc ? g.n : g.k, bc ? 2 : 1);
  if (g.family == Recipe::kFp8PerTensor || g.family == Recipe::kFp8PerToken)
    if (g.a.dtype == LOWP_DTYPE_E5M2 && g.b.dtype == LOWP_DTYPE_E5M2 && !d.bad(30)) g.b.dtype = LOWP_DTYPE_E4M3;
  g.d = draw_tensor(d, g.m, g.n);
  g.d.dtype = d.enum_among({LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32}, 6);
  g.cfg_null = d.percent(30);
  g.cfg = header_default_gemm_config();
  g.cfg.struct_size = d.struct_size(sizeof(lowp_gemm_config), kGemmConfigFirst);
  g.cfg.reserved0 = d.reserved();
  g.bias = d.optional(30);
  set_int(g.cfg.bias_dtype, d.enum_among({LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32}, 6));
  g.cfg.accumulate = d.flag(20);
  g.cfg.fast_accumulation = d.flag(is_nvfp4(g.family) ? 3 : 30);
  g.cfg.a_columnwise_rht = d.flag(is_nvfp4(g.family) ? 30 : 3);
  g.cfg.b_columnwise_rht = d.flag(is_nvfp4(g.family) ? 30 : 3);
  g.workspace = d.optional(30);
  return g;
}

// The operand's chosen copy: present, with its scales (gemm.h "Requirements").
void operand_rules(Expect& e, const std::string& name, const lowp_quantized_tensor& q, Recipe r, int copy) {
  const bool col = copy == LOWP_COLUMNWISE;
  const lowp_quantized_part& p = col ? q.columnwise : q.rowwise;
  const std::string part = name + (col ? "->columnwise." : "->rowwise.");
  e.require(p.data != nullptr, {part + "data"});
  if (r == Recipe::kFp8PerTensor) float_rule(e, q.scale_inv, name + "->scale_inv");
  if (r == Recipe::kFp8PerToken) float_rule(e, p.scale_inv, part + "scale_inv");
  if (is_nvfp4(r)) {
    e.require(
        as_int(q.scale_layout) == LOWP_SCALE_LAYOUT_COMPACT || as_int(q.scale_layout) == LOWP_SCALE_LAYOUT_SWIZZLED,
        {name + "->scale_layout"});
    e.require(p.scale_inv != nullptr, {part + "scale_inv"});
    float_rule(e, p.amax, part + "amax");
    outer_max_rule(e, name, q.nvfp4_outer_max, r);  // "lowp_dequantize and lowp_gemm read it"
  }
}

// Every rule of lowp_gemm and lowp_gemm_workspace_size but the workspace.
void gemm_rules(Expect& e, const lowp_quantized_tensor* a, int a_copy, const lowp_quantized_tensor* b, int b_copy,
                const lowp_tensor* d, const lowp_gemm_config* cfg, bool device) {
  const bool a_ok = e.require(a != nullptr, {"a"}), b_ok = e.require(b != nullptr, {"b"});
  const bool d_ok = e.require(d != nullptr, {"d"});
  const bool copies_ok = e.require(a_copy == LOWP_ROWWISE || a_copy == LOWP_COLUMNWISE, {"a_copy"}) &
                         e.require(b_copy == LOWP_ROWWISE || b_copy == LOWP_COLUMNWISE, {"b_copy"});
  if (a_ok) struct_size_rules(e, "a", a->struct_size, kQuantizedFirst, sizeof(lowp_quantized_tensor));
  if (b_ok) struct_size_rules(e, "b", b->struct_size, kQuantizedFirst, sizeof(lowp_quantized_tensor));
  const lowp_quantized_tensor A = as_read(a), B = as_read(b);
  // Each operand alone: a recipe, a shape, the chosen copy present with its scales.
  struct Operand {
    bool ok = false;
    Recipe r = Recipe::kNone;
    int64_t rows = 0, k = 0;
  };
  auto operand = [&](const std::string& name, bool given, const lowp_quantized_tensor& q, int copy, bool copy_ok) {
    Operand o;
    if (!given) return o;
    o.r = recipe_of(as_int(q.dtype), as_int(q.scaling));
    const bool r_ok = e.require(o.r != Recipe::kNone, {name + "->dtype", name + "->scaling"});
    const bool shape =
        e.require(q.rows >= 1 && q.cols >= 1 && !too_many(q.rows, q.cols), {name + "->rows", name + "->cols", name});
    if (!r_ok || !shape || !copy_ok) return o;
    o.rows = copy == LOWP_ROWWISE ? q.rows : q.cols;
    o.k = copy == LOWP_ROWWISE ? q.cols : q.rows;
    operand_rules(e, name, q, o.r, copy);
    if (is_nvfp4(o.r)) e.require(o.k % 16 == 0, {"K", name});
    o.ok = true;
    return o;
  };
  const bool a_copy_ok = a_copy == LOWP_ROWWISE || a_copy == LOWP_COLUMNWISE;
  const bool b_copy_ok = b_copy == LOWP_ROWWISE || b_copy == LOWP_COLUMNWISE;
  const Operand oa = operand("a", a_ok, A, a_copy, a_copy_ok), ob = operand("b", b_ok, B, b_copy, b_copy_ok);
  const bool fam = oa.ok && ob.ok && e.require(oa.r == ob.r, {"a", "b"});
  const bool fp8 = fam && !is_nvfp4(oa.r), nvfp4 = fam && is_nvfp4(oa.r);
  const int64_t m = fam ? oa.rows : 0, n = fam ? ob.rows : 0;
  if (fam && e.require(oa.k == ob.k, {"a_copy", "b_copy", "a", "b", "K"}) && fp8)
    e.require(oa.k % 16 == 0 && n % 16 == 0, {"K", "N"});
  if (fp8) {
    e.require(!(as_int(A.dtype) == LOWP_DTYPE_E5M2 && as_int(B.dtype) == LOWP_DTYPE_E5M2), {"a", "b", "E5M2"});
    if (device) {  // "on CUDA the copies' data, d->data and the bias 16-byte aligned"
      e.require(aligned_to(a_copy == LOWP_ROWWISE ? A.rowwise.data : A.columnwise.data, 16), {"a"});
      e.require(aligned_to(b_copy == LOWP_ROWWISE ? B.rowwise.data : B.columnwise.data, 16), {"b"});
    }
  }
  if (d_ok) {
    e.require(as_int(d->dtype) == LOWP_DTYPE_BFLOAT16 || as_int(d->dtype) == LOWP_DTYPE_FLOAT32, {"d->dtype"});
    if (m > 0) e.require(d->rows == m && d->cols == n, {"d->rows", "d->cols", "d"});
    e.require(d->data != nullptr, {"d->data"});
    if (fp8 && device) e.require(aligned_to(d->data, 16), {"d->data"});
    if (as_int(d->dtype) == LOWP_DTYPE_BFLOAT16 || as_int(d->dtype) == LOWP_DTYPE_FLOAT32)
      e.require(aligned_to(d->data, element_bytes(as_int(d->dtype))), {"d->data"});
  }
  if (cfg != nullptr) struct_size_rules(e, "cfg", cfg->struct_size, kGemmConfigFirst, sizeof(lowp_gemm_config));
  lowp_gemm_config c = header_default_gemm_config();
  if (cfg != nullptr && cfg->struct_size >= sizeof(size_t))
    read_growable(&c, cfg, offsetof(lowp_gemm_config, reserved0), {});
  if (flag_rule(e, "cfg->accumulate", c.accumulate) && d_ok)
    e.require(as_int(d->dtype) == LOWP_DTYPE_FLOAT32, {"cfg->accumulate", "d->dtype"});
  const bool bias_dtype_ok = as_int(c.bias_dtype) == LOWP_DTYPE_BFLOAT16 || as_int(c.bias_dtype) == LOWP_DTYPE_FLOAT32;
  if (c.bias != nullptr) {
    e.require(bias_dtype_ok, {"cfg->bias_dtype"});
    if (fp8) e.require(as_int(c.bias_dtype) != LOWP_DTYPE_FLOAT32, {"cfg->bias_dtype"});
    if (bias_dtype_ok) e.require(aligned_to(c.bias, element_bytes(as_int(c.bias_dtype))), {"cfg->bias"});
    if (fp8 && device) e.require(aligned_to(c.bias, 16), {"cfg->bias"});
  }  // without a bias, bias_dtype is not read
  if (flag_rule(e, "cfg->fast_accumulation", c.fast_accumulation) && nvfp4)
    e.require(false, {"cfg->fast_accumulation"});
  const bool ar = flag_rule(e, "cfg->a_columnwise_rht", c.a_columnwise_rht);
  const bool br = flag_rule(e, "cfg->b_columnwise_rht", c.b_columnwise_rht);
  if (fp8) e.require(!ar && !br, {"cfg->a_columnwise_rht", "cfg->b_columnwise_rht"});
  if (nvfp4 && copies_ok)
    e.require((a_copy == LOWP_COLUMNWISE && ar) == (b_copy == LOWP_COLUMNWISE && br),
              {"cfg->a_columnwise_rht", "cfg->b_columnwise_rht"});
}

// "A problem cuBLASLt finds no algorithm for returns LOWP_ERROR_UNSUPPORTED": which problems is the
// device's to say, so an UNSUPPORTED size query makes the call an open case.
void no_algorithm_case(Expect& e, lowp_status size_status) {
  e.open(size_status != LOWP_ERROR_UNSUPPORTED, {"a", "b"}, "cuBLASLt found no algorithm (UNSUPPORTED)");
}

// What a GEMM reads of an operand: its chosen copy's codes and outer scales (FP8 per-token: the
// scale_inv vector, not the amax), NVFP4 block scales; the rest is unused.
QPlan operand_plan(const QDraw& q, int copy) {
  return read_plan(recipe_of(q.dtype, q.scaling), q.rows, q.cols, copy);
}

struct GemmArgsBuilt {
  lowp_quantized_tensor* a;
  lowp_quantized_tensor* b;
  lowp_tensor* d;
  lowp_gemm_config* cfg;
};

GemmArgsBuilt make_gemm(Call& c, Draw& d, const GemmDraw& g, Role d_role) {
  GemmArgsBuilt out;
  out.a = make_quantized(c, "a", g.a, operand_plan(g.a, g.a_copy));
  out.b = make_quantized(c, "b", g.b, operand_plan(g.b, g.b_copy));
  const Role role = d_role == Role::kOut && g.cfg.accumulate && !g.cfg_null ? Role::kInOut : d_role;
  out.d = make_tensor(c, d, "d", g.d, role);
  lowp_gemm_config v = g.cfg;
  const uint64_t bias_each = as_int(v.bias_dtype) == LOWP_DTYPE_FLOAT32 ? 4 : 2;
  v.bias = g.cfg_null ? nullptr : c.buffer("cfg->bias", bytes_of(g.n, bias_each), Role::kIn, g.bias);
  out.cfg = c.object("cfg", v, g.cfg_null, g.cfg.struct_size);
  return out;
}

void gemm(Draw& d, Call& c) {
  const GemmDraw g = draw_gemm(d);
  const GemmArgsBuilt x = make_gemm(c, d, g, Role::kOut);
  const int ac = g.a_copy, bc = g.b_copy;
  const bool device = c.data.device();
  gemm_rules(c.expect, x.a, ac, x.b, bc, x.d, x.cfg, device);
  void* ws = nullptr;
  size_t ws_bytes = 0;
  if (device) {  // "workspace_bytes >= lowp_gemm_workspace_size(...); ... 256-byte aligned (NULL allowed when the size
                 // is 0)"
    size_t need = 0;
    const lowp_status size_status = lowp_gemm_workspace_size(x.a, static_cast<lowp_orientation>(ac), x.b,
                                                             static_cast<lowp_orientation>(bc), x.d, x.cfg, &need);
    const bool sized = size_status == LOWP_SUCCESS;
    no_algorithm_case(c.expect, size_status);
    // A workspace of 0 bytes is no buffer of the call (nothing to overlap).
    ws = c.buffer("workspace", need > 0 ? need : 256, need > 0 ? Role::kOutPartial : Role::kUnused,
                  need > 0 ? d.ptr() : g.workspace);
    ws_bytes = ws == nullptr ? 0 : need > 0 && d.bad(5) ? need - 1 : need;
    if (sized) {
      c.expect.require(ws_bytes >= need, {"workspace_bytes"});
      if (need > 0 && c.expect.require(ws != nullptr, {"workspace"}))
        c.expect.require(aligned_to(ws, 256), {"workspace"});
    }
  } else {  // "The CPU backend ignores the workspace."
    ws = c.buffer("workspace", 256, Role::kUnused, g.workspace);
    ws_bytes = ws ? 256 : d.pick({0, 1 << 20});
  }
  c.invoke = [=] {
    return lowp_gemm(x.a, static_cast<lowp_orientation>(ac), x.b, static_cast<lowp_orientation>(bc), x.d, x.cfg, ws,
                     ws_bytes, nullptr);
  };
}

void gemm_workspace_size(Draw& d, Call& c) {
  const GemmDraw g = draw_gemm(d);
  const GemmArgsBuilt x = make_gemm(c, d, g, Role::kIn);
  c.counts_as_written("d->data");  // "Aliasing: as lowp_gemm": d may overlap no operand buffer
  PtrDraw bp = d.ptr();
  if (bp.mode != PtrMode::kNull) bp = d.normal();
  auto* bytes = static_cast<size_t*>(c.buffer("bytes", sizeof(size_t), Role::kOut, bp, &host_memory()));
  c.expect.require(bytes != nullptr, {"bytes"});
  gemm_rules(c.expect, x.a, g.a_copy, x.b, g.b_copy, x.d, x.cfg, c.data.device());
  const int ac = g.a_copy, bc = g.b_copy;
  const bool host = !c.data.device();
  if (!host) {
    size_t probe = 0;
    no_algorithm_case(c.expect, lowp_gemm_workspace_size(x.a, static_cast<lowp_orientation>(ac), x.b,
                                                         static_cast<lowp_orientation>(bc), x.d, x.cfg, &probe));
  }
  c.invoke = [=] {
    return lowp_gemm_workspace_size(x.a, static_cast<lowp_orientation>(ac), x.b, static_cast<lowp_orientation>(bc), x.d,
                                    x.cfg, bytes);
  };
  c.verify = [=]() -> std::string {
    return host && *bytes != 0 ? "lowp_gemm_workspace_size: not 0 for host pointers" : "";
  };
}

void gemm_config_default(Draw& d, Call& c) {
  c.no_status = true;
  auto* cfg = static_cast<lowp_gemm_config*>(c.buffer("cfg", sizeof(lowp_gemm_config), Role::kOutPartial,
                                                      d.percent(10) ? d.null() : d.normal(), &host_memory()));
  c.invoke = [cfg] {
    lowp_gemm_config_default(cfg);
    return LOWP_SUCCESS;
  };
  c.verify = [cfg]() -> std::string {
    if (cfg == nullptr) return "";
    const lowp_gemm_config w = header_default_gemm_config();
    const bool ok = cfg->struct_size == w.struct_size && cfg->bias == nullptr &&
                    as_int(cfg->bias_dtype) == as_int(w.bias_dtype) && cfg->accumulate == 0 &&
                    cfg->fast_accumulation == 0 && cfg->a_columnwise_rht == 0 && cfg->b_columnwise_rht == 0;
    return ok ? "" : "lowp_gemm_config_default: not gemm.h's defaults";
  };
}

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_gemm_config_default, gemm_config_default);
LOWP_FUZZ_ENTRY_POINT(lowp_gemm, gemm);
LOWP_FUZZ_ENTRY_POINT(lowp_gemm_workspace_size, gemm_workspace_size);

}  // namespace lowp_fuzz
