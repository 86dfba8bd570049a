// Grouped NVFP4 per-row recipes (per-token, row-scaled): lowp_nvfp4_grouped_quantize,
// lowp_nvfp4_grouped_amax and _amax_per_row (host member_rows) and lowp_nvfp4_grouped_sizes (its
// formula, checked exactly).
#include <climits>
#include <vector>

#include "entry_points/quantize.h"
#include "harness/args.h"
#include "harness/group_args.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

struct Members {
  int64_t n = 1;
  std::vector<int64_t> rows;  // max(n, 0) entries
  int64_t total = 0;          // x->rows
  PtrDraw ptr;
};

Members draw_members(Draw& d, bool sixteen) {
  Members m;
  m.n = 1 + d.rng.below(5);
  for (int64_t t = 0; t < m.n; ++t) {
    int64_t r = d.percent(20) ? 0 : (sixteen || d.percent(60) ? 16 : 1) * (1 + d.rng.below(sixteen ? 9 : 40));
    if (d.bad(5)) r = d.pick({-1, -16, INT64_MIN, r + 1, int64_t{1} << 40});
    m.rows.push_back(r);
    m.total = r >= 0 && r < (int64_t{1} << 32) ? m.total + r : m.total;
  }
  if (d.bad(5)) m.total = d.pick({m.total + 16, m.total - 1, m.total + 1});
  if (d.bad(4)) {
    m.n = d.pick({0, -1, INT64_MIN});
    m.rows.clear();
  }
  m.ptr = d.ptr();
  return m;
}

const int64_t* make_members(Call& c, const Members& m) {
  return static_cast<const int64_t*>(
      c.buffer_with("member_rows", m.rows.data(), 8 * m.rows.size(), Role::kIn, m.ptr, &host_memory()));
}

// lowp.h's member rules (host member_rows): n in range, M_t >= 0, every M_t a multiple of
// `multiple`, and the members cover x->rows exactly.
void member_rules(Expect& e, int64_t n, const int64_t* rows, int64_t total, int64_t multiple, const char* why,
                  int64_t cols) {
  if (!e.require(n >= 1, {"num_tensors"})) return;
  e.open(n <= (int64_t{1} << 40), {"num_tensors"}, "num_tensors above 2^40: lowp.h gives no bound");
  e.require(!too_many(n, cols), {"num_tensors", "cols"});
  if (!e.require(rows != nullptr, {"member_rows"}) || !e.require(aligned_to(rows, 8), {"member_rows"})) return;
  __int128 sum = 0;
  for (int64_t t = 0; t < n; ++t) {
    if (!e.require(rows[t] >= 0, {"member_rows"})) return;
    if (!e.require(rows[t] % multiple == 0, {"member_rows", why})) return;
    sum += rows[t];
  }
  e.require(sum == total, {"member_rows", "x->rows"});
}

// cfg->group_row_multiple: 0, 16, 32, 64 or 128; the multiple every member's rows must have.
int64_t row_multiple(Expect& e, const lowp_quant_config& k, bool sixteen) {
  const int g = k.group_row_multiple;
  const bool ok = e.require(g == 0 || g == 16 || g == 32 || g == 64 || g == 128, {"cfg->group_row_multiple"});
  const int64_t need = sixteen ? 16 : 1;
  return ok && g > need ? g : need;
}

uint64_t scale_sum(const Members& m, int64_t k, bool columnwise) {
  uint64_t s = 0;
  for (const int64_t r : m.rows)
    if (r > 0) s = add_sat(s, columnwise ? nvfp4_scale_bytes(k, r / 16) : nvfp4_scale_bytes(r, k / 16));
  return s;
}

void grouped_quantize(Draw& d, Call& c) {
  const int parts = 1 + static_cast<int>(d.rng.below(3));
  const Members m = draw_members(d, parts & 2);
  const int64_t k = d.dim(16, 6);
  const TensorDraw xd = draw_tensor(d, m.total, k);
  const Recipe like = d.percent(50) ? Recipe::kNvfp4PerToken : Recipe::kNvfp4RowScaled;
  QDraw qd = draw_quantized(d, like, m.total, k, parts);
  const ConfigDraw kd = draw_config(d, like, true);
  const PtrDraw wsp = d.optional(d.percent(50) ? 30 : 90);
  const int64_t n = m.n;

  lowp_tensor* x = make_tensor(c, d, "x", xd, Role::kIn);
  const int64_t* rows = make_members(c, m);
  const bool given = !kd.null && kd.v.amax_given;
  QPlan p;  // sized for x's shape (the call's), member by member
  const int64_t kx = xd.cols;
  for (int i = 0; i < 2; ++i) {
    const bool want = qd.part[i].data.mode != PtrMode::kNull;
    const Role out = want ? Role::kOut : Role::kUnused;
    p.data[i] = {mul_sat(bytes_of(xd.rows, 1), bytes_of(kx, 1)) / 2, out};
    p.scale_inv[i] = {scale_sum(m, kx, i == 1), out};
    p.amax[i] = {i == 0 ? bytes_of(xd.rows, 4) : mul_sat(bytes_of(n, 4), bytes_of(kx, 1)),
                 want && given ? Role::kIn : out};
  }
  p.scale = p.tensor_scale_inv = p.tensor_amax = {16, Role::kUnused};
  lowp_quantized_tensor* q = make_quantized(c, "q", qd, p);
  lowp_quant_config* cfg = make_config(c, kd);
  const Workspace w = make_group_workspace(c, d, n, wsp);

  Expect& e = c.expect;
  tensor_rules(e, "x", x, /*allow_empty_rows=*/true);
  bool want_col = false;
  Recipe r = Recipe::kNone;
  if (e.require(q != nullptr, {"q"})) {
    struct_size_rules(e, "q", q->struct_size, kQuantizedFirst, sizeof(lowp_quantized_tensor));
    const lowp_quantized_tensor Q = as_read(q);
    r = recipe_of(as_int(Q.dtype), as_int(Q.scaling));
    e.require(is_nvfp4_per_row(r), {"q->dtype", "q->scaling"});
    if (x != nullptr) e.require(Q.rows == x->rows && Q.cols == x->cols, {"q->rows", "q->cols", "q", "x"});
    const lowp_quantized_part* ps[2] = {&Q.rowwise, &Q.columnwise};
    e.open(ps[0]->data || ps[1]->data, {"q->rowwise.data", "q->columnwise.data"}, "no copy requested");
    e.require(
        as_int(Q.scale_layout) == LOWP_SCALE_LAYOUT_COMPACT || as_int(Q.scale_layout) == LOWP_SCALE_LAYOUT_SWIZZLED,
        {"q->scale_layout"});
    for (int i = 0; i < 2; ++i)
      if (ps[i]->data != nullptr) {
        e.require(ps[i]->scale_inv != nullptr, {i ? "q->columnwise.scale_inv" : "q->rowwise.scale_inv"});
        float_rule(e, ps[i]->amax, i ? "q->columnwise.amax" : "q->rowwise.amax");
      }
    want_col = ps[1]->data != nullptr;
  }
  if (x != nullptr) e.require(x->cols % 16 == 0, {"x->cols", "x"});
  if (x != nullptr && want_col) e.require(x->rows % 16 == 0, {"x->rows", "member_rows"});
  config_rules(e, cfg);
  const lowp_quant_config kc = config_as_read(cfg);
  if (is_nvfp4_per_row(r)) {  // "the knobs ... are lowp_quantize's of that recipe"
    nvfp4_config_rules(e, r, kc, 0);
    if (kc.four_over_six != 0 && takes_four_over_six(r) && kc.four_over_six_scale_max == 256.0f)
      e.require(q->struct_size >= kOuterMaxEnd, {"q->struct_size", "q->nvfp4_outer_max"});
  }
  expect_outer_max_recorded(c, q, cfg);
  const int64_t mult = row_multiple(e, kc, want_col);
  member_rules(e, n, rows, x != nullptr ? x->rows : m.total, mult,
               want_col ? "the columnwise copy" : "cfg->group_row_multiple", x != nullptr ? x->cols : k);
  group_workspace_rules(e, c, w);
  c.invoke = [=] { return lowp_nvfp4_grouped_quantize(x, n, rows, q, cfg, w.ptr, w.bytes, nullptr); };
}

// lowp_nvfp4_grouped_amax, or with `per_row` lowp_nvfp4_grouped_amax_per_row (its `scaling`).
void grouped_amax_of(Draw& d, Call& c, bool per_row) {
  const Members m = draw_members(d, d.percent(50));
  const int64_t k = d.dim(d.percent(70) ? 16 : 1, 6);
  const TensorDraw xd = draw_tensor(d, m.total, k);
  const ConfigDraw kd = draw_config(d, Recipe::kNvfp4PerToken, true);
  const PtrDraw rp = d.optional(70), cp = d.optional(70), wsp = d.optional(60);
  const int scaling = per_row ? draw_per_row_scaling(d) : LOWP_SCALING_NVFP4_PER_TOKEN;
  const int64_t n = m.n;
  lowp_tensor* x = make_tensor(c, d, "x", xd, Role::kIn);
  const int64_t* rows = make_members(c, m);
  float* row = static_cast<float*>(c.buffer("row_amax", bytes_of(xd.rows, 4), Role::kOut, rp));
  float* col = static_cast<float*>(c.buffer("col_amax", mul_sat(bytes_of(n, 4), bytes_of(xd.cols, 1)), Role::kOut, cp));
  lowp_quant_config* cfg = make_config(c, kd, /*reads_rng_state=*/false);
  const Workspace w = make_group_workspace(c, d, n, wsp);

  Expect& e = c.expect;
  tensor_rules(e, "x", x, /*allow_empty_rows=*/true);
  if (per_row) per_row_scaling_rule(e, scaling);
  config_rules(e, cfg);
  const lowp_quant_config kc = config_as_read(cfg);
  const bool sixteen = nvfp4_amax_rules(e, row, col, kc);
  if (x != nullptr && sixteen) e.require(x->rows % 16 == 0, {"x->rows", "member_rows"});
  const int64_t mult = row_multiple(e, kc, sixteen);
  member_rules(e, n, rows, x != nullptr ? x->rows : m.total, mult,
               sixteen ? "col_amax with cfg->rht" : "cfg->group_row_multiple", x != nullptr ? x->cols : k);
  group_workspace_rules(e, c, w);
  if (per_row)
    c.invoke = [=] {
      return lowp_nvfp4_grouped_amax_per_row(x, static_cast<lowp_scaling>(scaling), n, rows, row, col, cfg, w.ptr,
                                             w.bytes, nullptr);
    };
  else
    c.invoke = [=] { return lowp_nvfp4_grouped_amax(x, n, rows, row, col, cfg, w.ptr, w.bytes, nullptr); };
}

void grouped_amax(Draw& d, Call& c) { grouped_amax_of(d, c, false); }
void grouped_amax_per_row(Draw& d, Call& c) { grouped_amax_of(d, c, true); }

void grouped_sizes(Draw& d, Call& c) {
  const int64_t n = d.bad() ? d.pick({0, -1, INT64_MIN, (int64_t{1} << 40) + 1}) : d.dim(1, 40);
  const int64_t r = d.bad() ? d.pick({-1, INT64_MIN, int64_t{1} << 40, INT64_MAX}) : d.count0(2000);
  const int64_t k = d.bad() ? d.pick({0, -16, 8, int64_t{1} << 40, INT64_MAX}) : d.dim(16, 40);
  PtrDraw sp = d.ptr();
  if (sp.mode != PtrMode::kNull) sp = d.normal();
  auto* sizes = static_cast<lowp_quantized_sizes*>(
      c.buffer("sizes", sizeof(lowp_quantized_sizes), Role::kOut, sp, &host_memory()));
  Expect& e = c.expect;
  e.require(sizes != nullptr, {"sizes"});
  if (e.require(n >= 1, {"num_tensors"}))
    e.open(n <= (int64_t{1} << 40), {"num_tensors"}, "num_tensors above 2^40: lowp.h gives no bound");
  e.require(r >= 0, {"total_rows"});
  if (e.require(k >= 0 && k % 16 == 0, {"cols"})) e.open(k >= 1, {"cols"}, "cols 0: lowp.h requires only K % 16 == 0");
  if (r >= 0 && k >= 1) e.require(!too_many(r, k), {"total_rows", "cols"});
  if (n >= 1 && k >= 1) e.require(!too_many(n, k), {"num_tensors", "cols"});
  c.invoke = [=] { return lowp_nvfp4_grouped_sizes(n, r, k, sizes); };
  c.verify = [=]() -> std::string {
    // lowp.h's formula, with C = roundup(K/16, 4).
    const uint64_t C = static_cast<uint64_t>(roundup(k / 16, 4));
    const uint64_t R = static_cast<uint64_t>(r), K = static_cast<uint64_t>(k), N = static_cast<uint64_t>(n);
    const uint64_t n0 = N < R ? N : R, n1 = N < R / 16 ? N : R / 16;
    const uint64_t want_data = R * K / 2;
    const uint64_t want_s0 = 128 * ((R - n0) / 128 + n0) * C;
    const uint64_t want_s1 = static_cast<uint64_t>(roundup(k, 128)) * 4 * ((R / 16 - n1) / 4 + n1);
    const bool col = R % 16 == 0;
    const lowp_quantized_sizes& g = *sizes;
    const bool ok = g.data_bytes[0] == want_data && g.scale_inv_bytes[0] == want_s0 && g.amax_bytes[0] == 4 * R &&
                    g.data_bytes[1] == (col ? want_data : 0) && g.scale_inv_bytes[1] == (col ? want_s1 : 0) &&
                    g.amax_bytes[1] == (col ? 4 * N * K : 0) && g.tensor_scale_bytes == 0;
    return ok ? "" : "lowp_nvfp4_grouped_sizes: not lowp.h's formula";
  };
}

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_nvfp4_grouped_quantize, grouped_quantize);
LOWP_FUZZ_ENTRY_POINT(lowp_nvfp4_grouped_amax, grouped_amax);
LOWP_FUZZ_ENTRY_POINT(lowp_nvfp4_grouped_amax_per_row, grouped_amax_per_row);
LOWP_FUZZ_ENTRY_POINT(lowp_nvfp4_grouped_sizes, grouped_sizes);

}  // namespace lowp_fuzz
