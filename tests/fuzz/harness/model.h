// The fuzzer's own reading of lowp.h, written from the header and not from src/: the rules every
// entry point shares (tensors, growable structs, the recipes of a quantized tensor) and the
// documented size of every buffer. Sizes of invalid arguments saturate instead of overflowing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "harness/expect.h"
#include "lowp/lowp.h"

namespace lowp_fuzz {

constexpr int64_t kMaxElements = int64_t{1} << 56;  // lowp.h: every count is bounded by 2^56
constexpr uint64_t kHuge = ~uint64_t{0};            // a size that cannot be allocated

// An enum member read as the int it holds: a C caller may store any int there, and loading an
// out-of-range value through the enum type is undefined behaviour in C++ (UBSan's -fsanitize=enum).
template <typename E>
int as_int(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}
template <typename E>
void set_int(E& e, int v) {
  static_assert(sizeof(E) == sizeof(int));
  std::memcpy(&e, &v, sizeof v);
}

inline bool aligned_to(const void* p, uint64_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }
uint64_t mul_sat(uint64_t a, uint64_t b);
uint64_t add_sat(uint64_t a, uint64_t b);
// count * each bytes; 0 for a negative count.
uint64_t bytes_of(int64_t count, uint64_t each);
// rows * cols elements exceed 2^56 (both >= 0).
bool too_many(int64_t rows, int64_t cols);
int64_t roundup(int64_t v, int64_t m);

bool is_high_precision(int dtype);
bool is_fp8(int dtype);
uint64_t element_bytes(int dtype);  // 4, 2 or 2 for the high-precision dtypes, else 1

// The recipe a quantized tensor's dtype and scaling select (lowp.h: lowp_scaling, lowp_quantize).
enum class Recipe { kNone, kFp8PerTensor, kFp8PerToken, kNvfp4PerTensor, kNvfp4PerToken, kNvfp4RowScaled };
Recipe recipe_of(int dtype, int scaling);
inline bool is_nvfp4(Recipe r) {
  return r == Recipe::kNvfp4PerTensor || r == Recipe::kNvfp4PerToken || r == Recipe::kNvfp4RowScaled;
}
// NVFP4 with one outer amax per orientation row (per-token, row-scaled).
inline bool is_nvfp4_per_row(Recipe r) { return r == Recipe::kNvfp4PerToken || r == Recipe::kNvfp4RowScaled; }
// The recipes that take 4over6 (cfg->four_over_six) and may record 6E = 1536.
inline bool takes_four_over_six(Recipe r) { return r == Recipe::kNvfp4PerTensor || r == Recipe::kNvfp4RowScaled; }

// q->nvfp4_outer_max (6E) as lowp.h documents it: 0 (reads as 2688), 2688, or 1536 for a recipe
// that takes 4over6. `as_read`: the member as the library reads it (0 past q's struct_size).
void outer_max_rule(Expect& e, const std::string& name, float as_read, Recipe r);
// The 6E lowp_quantize records for the config as read: 6 * four_over_six_scale_max with 4over6, else 2688.
float recorded_outer_max(const lowp_quant_config& k);
// Where q->nvfp4_outer_max ends: a q->struct_size below it does not hold the member.
constexpr size_t kOuterMaxEnd = offsetof(lowp_quantized_tensor, nvfp4_outer_max) + sizeof(float);

// UE4M3 block scales of R orientation rows of B blocks: [roundup(R,128)][roundup(B,4)] bytes.
uint64_t nvfp4_scale_bytes(int64_t rows, int64_t blocks);

// Documented bytes of every buffer of a quantized tensor of this recipe and shape (index 0
// rowwise, 1 columnwise); what lowp_quantized_sizes_query must return. Known only for a valid
// recipe and shape; columnwise sizes are 0 where no columnwise copy can be made.
struct QSizes {
  bool known = false;
  uint64_t data[2] = {}, scale_inv[2] = {}, amax[2] = {}, tensor_scale = 0;
};
QSizes quantized_sizes(Recipe r, int64_t rows, int64_t cols);

// One copy (0 rowwise: rows x cols; 1 columnwise: cols x rows) alone, as the fields of
// lowp_quantized_part document it: what a GEMM reads of that copy. NVFP4: its K % 16 == 0 only
// (lowp_gemm takes the columnwise copy of a tensor whose cols are any). Unknown: all 0.
struct PartSizes {
  uint64_t data = 0, scale_inv = 0, amax = 0;
};
PartSizes part_sizes(Recipe r, int64_t rows, int64_t cols, int orientation);

// A dense tensor (lowp_tensor) `name`: not NULL, a high-precision dtype, rows >= 1 (>= 0 when
// empty rows are allowed) and cols >= 1, at most 2^56 elements, data not NULL and aligned to its
// element size.
void tensor_rules(Expect& e, const std::string& name, const lowp_tensor* t, bool allow_empty_rows = false);

// struct_size of a growable struct: 0, below the first release (`first`: its
// LOWP_<STRUCT>_FIRST_SIZE, tail padding included) or above this library's sizeof are rejected.
void struct_size_rules(Expect& e, const std::string& name, size_t struct_size, size_t first, size_t full);

// A float array `name` (float* in lowp.h): not NULL when required, 4-byte aligned when given.
void float_rule(Expect& e, const void* p, const std::string& name, bool required = true);

// A flag the header documents as 0 or 1: other values are an open case. Returns flag != 0.
bool flag_rule(Expect& e, const std::string& name, int value);

// lowp_quant_config's defaults as lowp.h documents them, struct_size = sizeof.
lowp_quant_config header_default_config();
// The config as the library must read it (read_growable below over the defaults).
lowp_quant_config config_as_read(const lowp_quant_config* cfg);
// cfg NULL, or its struct_size checked (the caller's struct is `cfg` itself).
void config_rules(Expect& e, const lowp_quant_config* cfg);

// A member appended to a growable struct after its first release: its offset and size.
struct Appended {
  size_t offset, size;
};
// lowp.h's reading of a growable struct `p` (at least 8 bytes) into `v` (the defaults): the first
// release's members (bytes [8, first_members_end)), then each appended member whose bytes the
// caller's struct_size covers. Reserved members (an older release's padding) keep v's value.
void read_growable(void* v, const void* p, size_t first_members_end, std::initializer_list<Appended> appended);

// The growable structs as the library must read them, over zeros (never reading past what the
// caller's struct_size says is there, nor its reserved members).
lowp_quantized_tensor as_read(const lowp_quantized_tensor* p);
lowp_grouped_quantized_tensor as_read(const lowp_grouped_quantized_tensor* p);
lowp_quantized_layout as_read(const lowp_quantized_layout* p);

// First releases, as lowp.h states them.
constexpr size_t kConfigFirst = LOWP_QUANT_CONFIG_FIRST_SIZE;
constexpr size_t kQuantizedFirst = LOWP_QUANTIZED_TENSOR_FIRST_SIZE;
constexpr size_t kGroupedQuantizedFirst = LOWP_GROUPED_QUANTIZED_TENSOR_FIRST_SIZE;
constexpr size_t kLayoutFirst = LOWP_QUANTIZED_LAYOUT_FIRST_SIZE;

}  // namespace lowp_fuzz
