#include "harness/model.h"

#include <cstring>

namespace lowp_fuzz {

uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > kHuge / a) return kHuge;
  return a * b;
}

uint64_t add_sat(uint64_t a, uint64_t b) { return a > kHuge - b ? kHuge : a + b; }

uint64_t bytes_of(int64_t count, uint64_t each) { return count < 0 ? 0 : mul_sat(static_cast<uint64_t>(count), each); }

bool too_many(int64_t rows, int64_t cols) {
  return mul_sat(static_cast<uint64_t>(rows), static_cast<uint64_t>(cols)) > static_cast<uint64_t>(kMaxElements);
}

int64_t roundup(int64_t v, int64_t m) { return v <= 0 ? 0 : (v > INT64_MAX - m ? INT64_MAX : (v + m - 1) / m * m); }

bool is_high_precision(int d) { return d == LOWP_DTYPE_FLOAT32 || d == LOWP_DTYPE_FLOAT16 || d == LOWP_DTYPE_BFLOAT16; }
bool is_fp8(int d) { return d == LOWP_DTYPE_E4M3 || d == LOWP_DTYPE_E5M2; }
uint64_t element_bytes(int d) { return d == LOWP_DTYPE_FLOAT32 ? 4 : is_high_precision(d) ? 2 : 1; }

Recipe recipe_of(int dtype, int scaling) {
  if (is_fp8(dtype)) {
    if (scaling == LOWP_SCALING_DELAYED || scaling == LOWP_SCALING_CURRENT) return Recipe::kFp8PerTensor;
    if (scaling == LOWP_SCALING_PER_TOKEN) return Recipe::kFp8PerToken;
  }
  if (dtype == LOWP_DTYPE_E2M1) {
    if (scaling == LOWP_SCALING_NVFP4_PER_TENSOR) return Recipe::kNvfp4PerTensor;
    if (scaling == LOWP_SCALING_NVFP4_PER_TOKEN) return Recipe::kNvfp4PerToken;
    if (scaling == LOWP_SCALING_NVFP4_ROW_SCALED) return Recipe::kNvfp4RowScaled;
  }
  return Recipe::kNone;
}

uint64_t nvfp4_scale_bytes(int64_t rows, int64_t blocks) {
  if (rows < 0 || blocks < 0) return 0;
  return mul_sat(static_cast<uint64_t>(roundup(rows, 128)), static_cast<uint64_t>(roundup(blocks, 4)));
}

QSizes quantized_sizes(Recipe r, int64_t rows, int64_t cols) {
  QSizes s;
  if (r == Recipe::kNone || rows < 1 || cols < 1 || too_many(rows, cols)) return s;
  const uint64_t n = static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols);
  switch (r) {
    case Recipe::kFp8PerTensor:
      s.data[0] = s.data[1] = n;
      s.tensor_scale = 4;
      break;
    case Recipe::kFp8PerToken:
      s.data[0] = s.data[1] = n;
      s.scale_inv[0] = s.amax[0] = 4 * static_cast<uint64_t>(rows);
      s.scale_inv[1] = s.amax[1] = 4 * static_cast<uint64_t>(cols);
      break;
    case Recipe::kNvfp4PerTensor:
    case Recipe::kNvfp4PerToken:
    case Recipe::kNvfp4RowScaled: {
      if (cols % 16 != 0) return s;
      const bool token = is_nvfp4_per_row(r);
      s.data[0] = n / 2;
      s.scale_inv[0] = nvfp4_scale_bytes(rows, cols / 16);
      s.amax[0] = token ? 4 * static_cast<uint64_t>(rows) : 4;
      if (rows % 16 == 0) {
        s.data[1] = n / 2;
        s.scale_inv[1] = nvfp4_scale_bytes(cols, rows / 16);
        s.amax[1] = token ? 4 * static_cast<uint64_t>(cols) : 4;
      }
      break;
    }
    case Recipe::kNone:
      break;
  }
  s.known = true;
  return s;
}

PartSizes part_sizes(Recipe r, int64_t rows, int64_t cols, int o) {
  PartSizes p;
  if (r == Recipe::kNone || rows < 1 || cols < 1 || too_many(rows, cols)) return p;
  const int64_t orows = o == 0 ? rows : cols, k = o == 0 ? cols : rows;
  const uint64_t n = static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols);
  switch (r) {
    case Recipe::kFp8PerTensor:
      p.data = n;
      break;
    case Recipe::kFp8PerToken:
      p.data = n, p.scale_inv = p.amax = 4 * static_cast<uint64_t>(orows);
      break;
    case Recipe::kNvfp4PerTensor:
    case Recipe::kNvfp4PerToken:
    case Recipe::kNvfp4RowScaled:
      if (k % 16 != 0) break;
      p.data = n / 2;
      p.scale_inv = nvfp4_scale_bytes(orows, k / 16);
      p.amax = is_nvfp4_per_row(r) ? 4 * static_cast<uint64_t>(orows) : 4;
      break;
    case Recipe::kNone:
      break;
  }
  return p;
}

void tensor_rules(Expect& e, const std::string& name, const lowp_tensor* t, bool allow_empty_rows) {
  if (!e.require(t != nullptr, {name})) return;
  e.require(is_high_precision(as_int(t->dtype)), {name + "->dtype", name});
  const bool rows_ok = e.require(t->rows >= (allow_empty_rows ? 0 : 1), {name + "->rows", name});
  const bool cols_ok = e.require(t->cols >= 1, {name + "->cols", name});
  if (rows_ok && cols_ok) e.require(!too_many(t->rows, t->cols), {name + "->rows", name + "->cols", name});
  e.require(t->data != nullptr, {name + "->data"});
  if (is_high_precision(as_int(t->dtype)))
    e.require(aligned_to(t->data, element_bytes(as_int(t->dtype))), {name + "->data"});
}

void struct_size_rules(Expect& e, const std::string& name, size_t ss, size_t first, size_t full) {
  const std::string field = name + "->struct_size";
  if (!e.require(ss != 0, {field})) return;
  if (!e.require(ss <= full, {field})) return;
  e.require(ss >= first, {field});
}

void read_growable(void* v, const void* p, size_t first_members_end, std::initializer_list<Appended> appended) {
  size_t ss;
  std::memcpy(&ss, p, sizeof ss);
  auto* to = static_cast<char*>(v);
  const auto* from = static_cast<const char*>(p);
  const size_t first = ss < first_members_end ? ss : first_members_end;
  if (first > sizeof ss) std::memcpy(to + sizeof ss, from + sizeof ss, first - sizeof ss);
  for (const Appended& m : appended)
    if (ss >= m.offset + m.size) std::memcpy(to + m.offset, from + m.offset, m.size);
}

namespace {

template <typename T>
T zeros_with_size(const T* p) {
  T v;
  std::memset(&v, 0, sizeof v);
  if (p != nullptr) v.struct_size = p->struct_size;
  return v;
}

}  // namespace

lowp_quantized_tensor as_read(const lowp_quantized_tensor* p) {
  lowp_quantized_tensor v = zeros_with_size(p);
  if (p != nullptr && p->struct_size >= sizeof(size_t))
    read_growable(&v, p, LOWP_QUANTIZED_TENSOR_FIRST_SIZE,
                  {{offsetof(lowp_quantized_tensor, nvfp4_outer_max), sizeof(float)}});
  return v;
}

lowp_grouped_quantized_tensor as_read(const lowp_grouped_quantized_tensor* p) {
  lowp_grouped_quantized_tensor v = zeros_with_size(p);
  if (p != nullptr && p->struct_size >= sizeof(size_t)) read_growable(&v, p, LOWP_GROUPED_QUANTIZED_TENSOR_FIRST_SIZE, {});
  return v;
}

lowp_quantized_layout as_read(const lowp_quantized_layout* p) {
  lowp_quantized_layout v = zeros_with_size(p);
  if (p != nullptr && p->struct_size >= sizeof(size_t)) read_growable(&v, p, LOWP_QUANTIZED_LAYOUT_FIRST_SIZE, {});
  return v;
}

void float_rule(Expect& e, const void* p, const std::string& name, bool required) {
  if (required && !e.require(p != nullptr, {name})) return;
  if (p != nullptr) e.require(aligned_to(p, 4), {name});
}

bool flag_rule(Expect& e, const std::string& name, int value) {
  e.open(value == 0 || value == 1, {name}, "a flag other than 0 or 1: lowp.h documents 0 and 1 only");
  return value != 0;
}

lowp_quant_config header_default_config() {
  lowp_quant_config c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  c.rht_sign_mask = 0xD7E8u;
  c.amax_estimation_factor = 2.0f;
  c.four_over_six_error = LOWP_FOUR_OVER_SIX_MAE;
  c.four_over_six_scale_max = 448.0f;  // "448 (default)": a member that is not 0 by default
  return c;
}

lowp_quant_config config_as_read(const lowp_quant_config* cfg) {
  lowp_quant_config c = header_default_config();
  if (cfg != nullptr && cfg->struct_size >= sizeof(size_t))
    read_growable(&c, cfg, offsetof(lowp_quant_config, reserved0),
                  {{offsetof(lowp_quant_config, four_over_six), sizeof(int)},
                   {offsetof(lowp_quant_config, four_over_six_error), sizeof(int)},
                   {offsetof(lowp_quant_config, four_over_six_scale_max), sizeof(float)}});
  return c;
}

void outer_max_rule(Expect& e, const std::string& name, float v, Recipe r) {
  e.require(v == 0.0f || v == 2688.0f || (v == 1536.0f && takes_four_over_six(r)), {name + "->nvfp4_outer_max"});
}

float recorded_outer_max(const lowp_quant_config& k) {
  return k.four_over_six != 0 && k.four_over_six_scale_max == 256.0f ? 1536.0f : 2688.0f;
}

void config_rules(Expect& e, const lowp_quant_config* cfg) {
  if (cfg != nullptr) struct_size_rules(e, "cfg", cfg->struct_size, kConfigFirst, sizeof(lowp_quant_config));
}

}  // namespace lowp_fuzz
