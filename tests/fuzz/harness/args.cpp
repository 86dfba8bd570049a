#include "harness/args.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/fuzz_values.h"

namespace lowp_fuzz {
namespace {

int64_t clamp64(__int128 v) { return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : static_cast<int64_t>(v); }

int64_t fault_dim(Draw& d, int64_t v) {
  const __int128 w = v;
  return d.pick(
      {0, -1, clamp64(w + 1), clamp64(w - 1), clamp64(w * 2), int64_t{1} << 40, INT64_MAX, INT64_MIN, clamp64(w + 16)});
}

// A buffer of the recipe (read), or 16 unused bytes where the recipe has none.
Slot slot(uint64_t bytes) { return {bytes == 0 ? 16 : bytes, bytes == 0 ? Role::kUnused : Role::kIn}; }

}  // namespace

TensorDraw draw_tensor(Draw& d, int64_t rows, int64_t cols) {
  TensorDraw t;
  t.null = d.bad(3);
  t.dtype = d.enum_among({LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16}, 6);
  t.rows = d.bad(5) ? fault_dim(d, rows) : rows;
  t.cols = d.bad(5) ? fault_dim(d, cols) : cols;
  t.data = d.ptr();
  return t;
}

uint64_t tensor_bytes(int dtype, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0) return 0;
  return mul_sat(mul_sat(static_cast<uint64_t>(rows), static_cast<uint64_t>(cols)), element_bytes(dtype));
}

lowp_tensor* make_tensor(Call& c, Draw& d, const std::string& name, const TensorDraw& t, Role role) {
  const uint64_t bytes = tensor_bytes(t.dtype, t.rows, t.cols);
  void* data = c.buffer(name + "->data", bytes, role, t.data);
  if (role == Role::kIn && data != nullptr && is_high_precision(t.dtype) && t.rows > 0 && t.cols > 0 &&
      bytes <= (uint64_t{1} << 20)) {
    const Buffer& b = *c.arena.buffers().back();
    if (b.data() == data && !b.stub) {  // values from every fill of fuzz_values.h, not only random bits
      const auto fill = lowp_test::kAllFills[d.rng.below(7)];
      const auto v = lowp_test::fuzz_tensor(static_cast<lowp_dtype>(t.dtype), t.rows, t.cols, fill, d.seed());
      c.arena.fill(*c.arena.buffers().back(), v.data(), v.size());
    }
  }
  lowp_tensor v{data, LOWP_DTYPE_FLOAT32, t.rows, t.cols};
  set_int(v.dtype, t.dtype);
  return c.object(name, v, t.null);
}

Recipe draw_recipe(Draw& d) {
  static const Recipe kAll[] = {Recipe::kFp8PerTensor, Recipe::kFp8PerToken, Recipe::kNvfp4PerTensor,
                                Recipe::kNvfp4PerToken, Recipe::kNvfp4RowScaled};
  return kAll[d.rng.below(5)];
}

QDraw draw_quantized(Draw& d, Recipe like, int64_t rows, int64_t cols, int parts) {
  QDraw q;
  q.null = d.bad(3);
  q.struct_size = d.struct_size(sizeof(lowp_quantized_tensor), kQuantizedFirst);
  q.reserved0 = d.reserved();
  switch (like) {
    case Recipe::kFp8PerTensor:
      q.dtype = d.percent(50) ? LOWP_DTYPE_E4M3 : LOWP_DTYPE_E5M2;
      q.scaling = d.percent(50) ? LOWP_SCALING_DELAYED : LOWP_SCALING_CURRENT;
      break;
    case Recipe::kFp8PerToken:
      q.dtype = d.percent(50) ? LOWP_DTYPE_E4M3 : LOWP_DTYPE_E5M2;
      q.scaling = LOWP_SCALING_PER_TOKEN;
      break;
    default:
      q.dtype = LOWP_DTYPE_E2M1;
      q.scaling = like == Recipe::kNvfp4PerTensor  ? LOWP_SCALING_NVFP4_PER_TENSOR
                  : like == Recipe::kNvfp4PerToken ? LOWP_SCALING_NVFP4_PER_TOKEN
                                                   : LOWP_SCALING_NVFP4_ROW_SCALED;
  }
  if (d.bad(6)) q.dtype = d.percent(50) ? static_cast<int>(d.rng.below(6)) : d.enum_value(6);
  if (d.bad(6)) q.scaling = d.percent(50) ? static_cast<int>(d.rng.below(6)) : d.enum_value(6);
  // 6E as lowp_quantize recorded it (0: the initialisers'); faults: 1536 where 4over6 is not
  // offered, values no encode records.
  q.outer_max = d.percent(50) ? 0.0f : takes_four_over_six(like) && d.percent(50) ? 1536.0f : 2688.0f;
  if (d.bad(5)) q.outer_max = static_cast<float>(d.pick({1536, 448, -2688, 1, 2689})) * (d.percent(10) ? NAN : 1.0f);
  q.scale_layout = d.enum_value(2);
  q.rows = d.bad(4) ? fault_dim(d, rows) : rows;
  q.cols = d.bad(4) ? fault_dim(d, cols) : cols;
  const Recipe r = recipe_of(q.dtype, q.scaling);
  const bool per_tensor_fp8 = r == Recipe::kFp8PerTensor, part_scales = r != Recipe::kFp8PerTensor;
  for (int i = 0; i < 2; ++i) {
    PartDraw& p = q.part[i];
    const bool want = (parts >> i) & 1;
    p.data = want ? d.ptr() : (d.bad(5) ? d.normal() : d.null());
    p.scale_inv = part_scales ? d.ptr() : d.optional(15);
    p.amax = r != Recipe::kFp8PerTensor ? d.ptr() : d.optional(15);
  }
  q.scale = per_tensor_fp8 ? d.ptr() : d.optional(15);
  q.scale_inv = per_tensor_fp8 ? d.ptr() : d.optional(15);
  q.amax = per_tensor_fp8 ? d.ptr() : d.optional(15);
  return q;
}

QPlan input_plan(Recipe r, int64_t rows, int64_t cols) {
  QPlan p;
  for (int i = 0; i < 2; ++i) {
    const PartSizes s = part_sizes(r, rows, cols, i);
    p.data[i] = slot(s.data);
    p.scale_inv[i] = slot(s.scale_inv);
    p.amax[i] = slot(s.amax);
  }
  const uint64_t tensor_scale = r == Recipe::kFp8PerTensor ? 4 : 0;
  p.scale = p.tensor_scale_inv = p.tensor_amax = slot(tensor_scale);
  return p;
}

QPlan read_plan(Recipe r, int64_t rows, int64_t cols, int which) {
  QPlan p = input_plan(r, rows, cols);
  for (int i = 0; i < 2; ++i)
    if (i != which) p.data[i].role = p.scale_inv[i].role = p.amax[i].role = Role::kUnused;
  p.scale.role = p.tensor_amax.role = Role::kUnused;
  if (r == Recipe::kFp8PerToken)  // only the quantize writes it
    for (Slot& a : p.amax) a.role = Role::kUnused;
  return p;
}

void unused_unless_requested(QPlan& p, const QDraw& q) {
  for (int i = 0; i < 2; ++i)
    if (q.part[i].data.mode == PtrMode::kNull) p.scale_inv[i].role = p.amax[i].role = Role::kUnused;
}

lowp_quantized_tensor* make_quantized(Call& c, const std::string& name, const QDraw& q, const QPlan& plan) {
  lowp_quantized_tensor v = LOWP_QUANTIZED_TENSOR_INIT;
  v.struct_size = q.struct_size;
  set_int(v.dtype, q.dtype);
  set_int(v.scaling, q.scaling);
  set_int(v.scale_layout, q.scale_layout);
  v.rows = q.rows;
  v.cols = q.cols;
  v.nvfp4_outer_max = q.outer_max;
  v.reserved0 = q.reserved0;
  lowp_quantized_part* parts[2] = {&v.rowwise, &v.columnwise};
  for (int i = 0; i < 2; ++i) {
    const std::string p = name + (i == 0 ? "->rowwise." : "->columnwise.");
    parts[i]->data = c.buffer(p + "data", plan.data[i].bytes, plan.data[i].role, q.part[i].data);
    parts[i]->scale_inv =
        c.buffer(p + "scale_inv", plan.scale_inv[i].bytes, plan.scale_inv[i].role, q.part[i].scale_inv);
    parts[i]->amax = static_cast<float*>(c.buffer(p + "amax", plan.amax[i].bytes, plan.amax[i].role, q.part[i].amax));
  }
  v.scale = static_cast<float*>(c.buffer(name + "->scale", plan.scale.bytes, plan.scale.role, q.scale));
  v.scale_inv = static_cast<float*>(
      c.buffer(name + "->scale_inv", plan.tensor_scale_inv.bytes, plan.tensor_scale_inv.role, q.scale_inv));
  v.amax = static_cast<float*>(c.buffer(name + "->amax", plan.tensor_amax.bytes, plan.tensor_amax.role, q.amax));
  return c.object(name, v, q.null, q.struct_size);
}

ConfigDraw draw_config(Draw& d, Recipe r, bool grouped) {
  ConfigDraw k;
  k.null = d.percent(15);
  k.v = header_default_config();
  k.v.struct_size = d.struct_size(sizeof(lowp_quant_config), kConfigFirst);
  k.v.reserved0 = d.reserved();  // never read: an older caller's padding
  k.v.reserved1 = d.reserved();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  if (is_nvfp4(r)) {
    k.v.rht = d.flag(35);
    if (d.percent(20)) k.v.rht_sign_mask = d.rng.below(0x10000);
    if (d.bad(4)) k.v.rht_sign_mask = 0x10000u | static_cast<uint32_t>(d.rng.next());
    k.v.stochastic_rounding = d.flag(25);
    k.v.block_2d = r == Recipe::kNvfp4PerTensor ? d.flag(15) : (d.bad(4) ? 1 : 0);
    k.v.amax_estimation = r == Recipe::kNvfp4PerTensor ? d.flag(20) : (d.bad(4) ? 1 : 0);
    k.v.amax_estimation_factor = d.percent(40)   ? 2.0f
                                 : d.percent(50) ? 1.0f
                                                 : 0.25f + 4.0f * static_cast<float>(d.rng.uniform());
    if (d.bad(5)) k.v.amax_estimation_factor = static_cast<float>(d.pick({0, -1, 1, 2})) * (d.percent(50) ? nan : inf);
    if (d.bad(5)) k.v.amax_estimation_factor = d.percent(50) ? 0.0f : -1.0f;
    k.v.amax_given = d.flag(15);
    // 4over6: offered by per-tensor and row-scaled, not with rht or SR (drawn rarely with them).
    k.v.four_over_six = takes_four_over_six(r) ? d.flag(30) : (d.bad(4) ? 1 : 0);
    if (k.v.four_over_six == 1 && !d.bad(20)) k.v.rht = k.v.stochastic_rounding = 0;
    set_int(k.v.four_over_six_error, d.enum_value(2));
    if (d.percent(40)) k.v.four_over_six_scale_max = 256.0f;
    if (d.bad(5)) k.v.four_over_six_scale_max = d.percent(20) ? nan : static_cast<float>(d.pick({0, 1, 255, 512, -448}));
    if (d.bad(3)) k.v.amax_epsilon = 1e-3f;
    if (d.bad(3)) k.v.power_of_two_scale = 1;
  } else {
    if (d.percent(20)) k.v.amax_epsilon = d.percent(50) ? 1e-6f : 1.0f;
    if (d.bad(4)) k.v.amax_epsilon = d.percent(50) ? -1.0f : nan;
    k.v.power_of_two_scale = d.flag(25);
    if (d.bad(3)) k.v.rht = 1;
    if (d.bad(3)) k.v.stochastic_rounding = 1;
    if (d.bad(3)) k.v.block_2d = 1;
    if (d.bad(3)) k.v.amax_estimation = 1;
    if (d.bad(3)) k.v.amax_given = 1;
    if (d.bad(3)) k.v.four_over_six = 1;
  }
  if (grouped && d.percent(30)) k.v.group_row_multiple = static_cast<int>(d.pick({16, 32, 64, 128}));
  if (d.bad(3)) k.v.group_row_multiple = static_cast<int>(d.pick({1, 8, 48, 256, -16}));
  k.rng_state = k.v.stochastic_rounding ? d.ptr() : d.optional(10);
  return k;
}

lowp_quant_config* make_config(Call& c, const ConfigDraw& k, bool reads_rng_state) {
  lowp_quant_config v = k.v;
  const bool read = reads_rng_state && config_as_read(&v).stochastic_rounding != 0;
  v.rng_state = static_cast<const uint64_t*>(c.buffer("cfg->rng_state", 16, read ? Role::kIn : Role::kUnused,
                                                      k.null ? PtrDraw{PtrMode::kNull, 0, 0} : k.rng_state));
  return c.object("cfg", v, k.null, k.v.struct_size);
}

void fp8_config_rules(Expect& e, const lowp_quant_config& k) {
  e.require(k.amax_epsilon >= 0.0f, {"cfg->amax_epsilon"});
  flag_rule(e, "cfg->power_of_two_scale", k.power_of_two_scale);
  // lowp.h: FP8 rejects these NVFP4 knobs when not 0 (and reads no other NVFP4 member).
  e.require(k.rht == 0, {"cfg->rht"});
  e.require(k.stochastic_rounding == 0, {"cfg->stochastic_rounding"});
  e.require(k.block_2d == 0, {"cfg->block_2d"});
  e.require(k.amax_estimation == 0, {"cfg->amax_estimation"});
  e.require(k.amax_given == 0, {"cfg->amax_given"});
  e.require(k.four_over_six == 0, {"cfg->four_over_six"});
}

void nvfp4_config_rules(Expect& e, Recipe r, const lowp_quant_config& k, int64_t rows) {
  e.require(k.amax_epsilon == 0.0f, {"cfg->amax_epsilon"});
  e.require(k.power_of_two_scale == 0, {"cfg->power_of_two_scale"});
  const bool rht = flag_rule(e, "cfg->rht", k.rht);
  if (rht)
    e.require(k.rht_sign_mask <= 0xFFFFu, {"cfg->rht_sign_mask"});
  else
    e.open(k.rht_sign_mask <= 0xFFFFu, {"cfg->rht_sign_mask"}, "a sign mask above 16 bits without rht");
  const bool sr = flag_rule(e, "cfg->stochastic_rounding", k.stochastic_rounding);
  if (sr && e.require(k.rng_state != nullptr, {"cfg->rng_state"}))
    e.require(aligned_to(k.rng_state, 8), {"cfg->rng_state"});
  const bool b2d = flag_rule(e, "cfg->block_2d", k.block_2d);
  const bool est = flag_rule(e, "cfg->amax_estimation", k.amax_estimation);
  const bool given = flag_rule(e, "cfg->amax_given", k.amax_given);
  // 4over6 (lowp.h, numerics §5c): per-tensor (1D and 2D) and row-scaled, not with rht or SR; its
  // error measure and E are read only with it.
  const bool fos = flag_rule(e, "cfg->four_over_six", k.four_over_six);
  if (fos && e.require(takes_four_over_six(r), {"cfg->four_over_six"})) {
    e.require(!rht, {"cfg->four_over_six", "cfg->rht"});
    e.require(!sr, {"cfg->four_over_six", "cfg->stochastic_rounding"});
    const int err = as_int(k.four_over_six_error);
    e.require(err == LOWP_FOUR_OVER_SIX_MAE || err == LOWP_FOUR_OVER_SIX_MSE, {"cfg->four_over_six_error"});
    e.require(k.four_over_six_scale_max == 448.0f || k.four_over_six_scale_max == 256.0f,
              {"cfg->four_over_six_scale_max"});
  }
  if (r == Recipe::kNvfp4PerTensor) {
    if (b2d) {
      e.require(!rht, {"cfg->block_2d", "cfg->rht"});
      e.require(!sr, {"cfg->block_2d", "cfg->stochastic_rounding"});
      e.require(rows % 16 == 0, {"x->rows", "cfg->block_2d", "x"});
    }
    // "amax_estimation is then ignored" with amax_given: its factor is checked only without.
    if (est && !given)
      e.require(std::isfinite(k.amax_estimation_factor) && k.amax_estimation_factor > 0.0f,
                {"cfg->amax_estimation_factor"});
  } else {
    e.require(!b2d, {"cfg->block_2d"});
    e.require(!est, {"cfg->amax_estimation"});
  }
}

bool nvfp4_amax_rules(Expect& e, const float* row, const float* col, const lowp_quant_config& k) {
  e.require(row != nullptr || col != nullptr, {"row_amax", "col_amax"});
  float_rule(e, row, "row_amax", false);
  float_rule(e, col, "col_amax", false);
  const bool rht = flag_rule(e, "cfg->rht", k.rht);
  if (rht) e.require(k.rht_sign_mask <= 0xFFFFu, {"cfg->rht_sign_mask"});
  return rht && col != nullptr;
}

int draw_per_row_scaling(Draw& d) {
  return d.enum_among({LOWP_SCALING_NVFP4_PER_TOKEN, LOWP_SCALING_NVFP4_ROW_SCALED}, 6);
}

void per_row_scaling_rule(Expect& e, int scaling) {
  e.require(scaling == LOWP_SCALING_NVFP4_PER_TOKEN || scaling == LOWP_SCALING_NVFP4_ROW_SCALED, {"scaling"});
}

}  // namespace lowp_fuzz
