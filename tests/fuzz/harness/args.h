// Draws and builders of the argument structs several entry points share: dense tensors, quantized
// tensors, quant configs. A draw holds plain values (regression tests write them by hand); a
// builder puts the struct and its buffers into the call's arena, sized as lowp.h documents.
#pragma once
#include <cstdint>
#include <string>

#include "harness/call.h"
#include "harness/draw.h"
#include "harness/model.h"

namespace lowp_fuzz {

struct TensorDraw {
  bool null = false;  // the lowp_tensor* itself
  int dtype = LOWP_DTYPE_FLOAT32;
  int64_t rows = 1, cols = 1;
  PtrDraw data;
};
// A high-precision tensor of about rows x cols (faults: dtype, shape, data pointer, NULL).
TensorDraw draw_tensor(Draw& d, int64_t rows, int64_t cols);
// Elements of a tensor as its buffer holds them (0 for invalid shapes; saturating).
uint64_t tensor_bytes(int dtype, int64_t rows, int64_t cols);
// The struct in host memory; data: rows * cols elements (In: values from fuzz_values.h's fills).
lowp_tensor* make_tensor(Call& c, Draw& d, const std::string& name, const TensorDraw& t, Role role);

struct PartDraw {
  PtrDraw data, scale_inv, amax;
};
struct QDraw {
  bool null = false;
  size_t struct_size = sizeof(lowp_quantized_tensor);
  int dtype = LOWP_DTYPE_E4M3, scaling = LOWP_SCALING_CURRENT, scale_layout = LOWP_SCALE_LAYOUT_COMPACT;
  int64_t rows = 1, cols = 1;
  float outer_max = 0.0f;  // nvfp4_outer_max (6E; 0 reads as 2688)
  uint32_t reserved0 = 0;  // never read
  PartDraw part[2];        // 0 rowwise, 1 columnwise
  PtrDraw scale, scale_inv, amax;
};
// A quantized tensor of rows x cols, of a recipe like `like` (faults: another dtype or scaling,
// layout, struct_size, pointers). `parts`: bit 0 rowwise, bit 1 columnwise data present.
QDraw draw_quantized(Draw& d, Recipe like, int64_t rows, int64_t cols, int parts);
Recipe draw_recipe(Draw& d);

// Bytes and role of each buffer of a quantized tensor.
struct Slot {
  uint64_t bytes = 16;
  Role role = Role::kIn;
};
struct QPlan {
  Slot data[2], scale_inv[2], amax[2], scale, tensor_scale_inv, tensor_amax;
};
// Every buffer read-only, sized for `r` (its documented sizes; 16 unused bytes where it has none).
QPlan input_plan(Recipe r, int64_t rows, int64_t cols);
// What reading copy `which` (dequantize, a GEMM operand) uses: that part's codes and scale_inv,
// its amax for NVFP4 (FP8 per-token's is not read), and the FP8 per-tensor scale_inv; the rest is
// unused.
QPlan read_plan(Recipe r, int64_t rows, int64_t cols, int which);
// A part whose data is NULL is not produced: its scale_inv and amax are not buffers of the call.
void unused_unless_requested(QPlan& p, const QDraw& q);
lowp_quantized_tensor* make_quantized(Call& c, const std::string& name, const QDraw& q, const QPlan& plan);

struct ConfigDraw {
  bool null = false;
  lowp_quant_config v{};  // struct_size is the caller's
  PtrDraw rng_state;
};
// Knobs for recipe `r` (FP8 or NVFP4), with faults on both families' knobs. grouped: the
// group_row_multiple promise is drawn too.
ConfigDraw draw_config(Draw& d, Recipe r, bool grouped = false);
// cfg->rng_state is a buffer of the call when stochastic_rounding is on and the call reads it.
lowp_quant_config* make_config(Call& c, const ConfigDraw& cfg, bool reads_rng_state = true);

// lowp.h's rules of the knobs of an FP8 recipe, of NVFP4 per-tensor, per-token or row-scaled (the
// config as read, `cfg` the caller's pointer for the rng_state), 4over6 included.
void fp8_config_rules(Expect& e, const lowp_quant_config& k);
void nvfp4_config_rules(Expect& e, Recipe r, const lowp_quant_config& k, int64_t rows);

// The outputs and knobs of the per-token amax pass (lowp_nvfp4_amax_per_token, grouped too):
// row_amax and col_amax, either NULL but not both, 4-byte aligned; cfg read for rht and
// rht_sign_mask only. Returns whether col_amax is made with RHT (it then needs 16-row strips).
bool nvfp4_amax_rules(Expect& e, const float* row, const float* col, const lowp_quant_config& k);
// The `scaling` of the per-row amax calls (lowp_nvfp4_amax_per_row, _grouped_amax_per_row):
// NVFP4_PER_TOKEN or NVFP4_ROW_SCALED; faults: any other int.
int draw_per_row_scaling(Draw& d);
void per_row_scaling_rule(Expect& e, int scaling);

}  // namespace lowp_fuzz
