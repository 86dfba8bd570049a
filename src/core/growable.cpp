#include "core/growable.h"

#include "core/error.h"

namespace lowp {
namespace {

static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "lowp.h's first-release sizes are those of LP64");

#define LOWP_MEMBER(T, m) Member{offsetof(T, m), sizeof(T::m)}
// Where each struct's first release ends, and the members appended since (lowp.h's
// LOWP_*_FIRST_SIZE). A new member goes at the end of its list; a struct ends on a member (the
// static_asserts), so a later member never lies in an earlier release's tail padding.
constexpr Member kConfigAppended[] = {LOWP_MEMBER(lowp_quant_config, four_over_six),
                                      LOWP_MEMBER(lowp_quant_config, four_over_six_error),
                                      LOWP_MEMBER(lowp_quant_config, four_over_six_scale_max)};
constexpr GrowableLayout kConfig = {LOWP_QUANT_CONFIG_FIRST_SIZE, offsetof(lowp_quant_config, reserved0),
                                    kConfigAppended};
static_assert(offsetof(lowp_quant_config, reserved0) + sizeof(uint32_t) == LOWP_QUANT_CONFIG_FIRST_SIZE);
static_assert(offsetof(lowp_quant_config, reserved1) + sizeof(uint32_t) == sizeof(lowp_quant_config));

constexpr Member kQuantizedTensorAppended[] = {LOWP_MEMBER(lowp_quantized_tensor, nvfp4_outer_max)};
constexpr GrowableLayout kQuantizedTensor = {LOWP_QUANTIZED_TENSOR_FIRST_SIZE, LOWP_QUANTIZED_TENSOR_FIRST_SIZE,
                                             kQuantizedTensorAppended};
static_assert(offsetof(lowp_quantized_tensor, nvfp4_outer_max) == LOWP_QUANTIZED_TENSOR_FIRST_SIZE);
static_assert(offsetof(lowp_quantized_tensor, reserved0) + sizeof(uint32_t) == sizeof(lowp_quantized_tensor));

constexpr GrowableLayout kGroupedQuantizedTensor = {LOWP_GROUPED_QUANTIZED_TENSOR_FIRST_SIZE,
                                                    LOWP_GROUPED_QUANTIZED_TENSOR_FIRST_SIZE, {}};
static_assert(sizeof(lowp_grouped_quantized_tensor) == LOWP_GROUPED_QUANTIZED_TENSOR_FIRST_SIZE);

constexpr GrowableLayout kQuantizedLayout = {LOWP_QUANTIZED_LAYOUT_FIRST_SIZE, LOWP_QUANTIZED_LAYOUT_FIRST_SIZE, {}};
static_assert(sizeof(lowp_quantized_layout) == LOWP_QUANTIZED_LAYOUT_FIRST_SIZE);

constexpr GrowableLayout kGemmConfig = {LOWP_GEMM_CONFIG_FIRST_SIZE, offsetof(lowp_gemm_config, reserved0), {}};
static_assert(offsetof(lowp_gemm_config, reserved0) + sizeof(uint32_t) == LOWP_GEMM_CONFIG_FIRST_SIZE);
static_assert(sizeof(lowp_gemm_config) == LOWP_GEMM_CONFIG_FIRST_SIZE);
#undef LOWP_MEMBER

template <typename T>
lowp_status read(const T* caller, const char* name, const char* type, const char* initialiser, T* out) {
  const size_t first_size = growable_layout<T>().first_size;
  switch (copy_growable(caller, out)) {
    case GrowableSize::kOk: return LOWP_SUCCESS;
    case GrowableSize::kZero:
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->struct_size is 0; initialise %s with %s", name, name, initialiser);
    case GrowableSize::kBelowFirstRelease:
      return fail(LOWP_ERROR_INVALID_ARGUMENT,
                  "%s->struct_size is %zu; a %s has at least %zu bytes (its first release): initialise %s with %s",
                  name, caller->struct_size, type, first_size, name, initialiser);
    case GrowableSize::kAboveThisLibrary:
      return fail(LOWP_ERROR_INVALID_ARGUMENT,
                  "%s->struct_size is %zu but this lowp's %s has %zu bytes: the caller was built against a newer "
                  "lowp.h than the library it runs with",
                  name, caller->struct_size, type, sizeof(T));
  }
  return fail(LOWP_ERROR_INTERNAL, "%s: unknown struct_size check", name);
}

}  // namespace

template <>
const GrowableLayout& growable_layout<lowp_quant_config>() {
  return kConfig;
}
template <>
const GrowableLayout& growable_layout<lowp_quantized_tensor>() {
  return kQuantizedTensor;
}
template <>
const GrowableLayout& growable_layout<lowp_grouped_quantized_tensor>() {
  return kGroupedQuantizedTensor;
}
template <>
const GrowableLayout& growable_layout<lowp_quantized_layout>() {
  return kQuantizedLayout;
}
template <>
const GrowableLayout& growable_layout<lowp_gemm_config>() {
  return kGemmConfig;
}

lowp_quant_config default_config() {
  lowp_quant_config c{};
  c.struct_size = sizeof c;
  c.rht_sign_mask = 0xD7E8u;
  c.amax_estimation_factor = 2.0f;
  c.four_over_six_error = LOWP_FOUR_OVER_SIX_MAE;
  c.four_over_six_scale_max = 448.0f;
  return c;
}

lowp_quantized_tensor default_quantized_tensor() { return LOWP_QUANTIZED_TENSOR_INIT; }

lowp_grouped_quantized_tensor default_grouped_quantized_tensor() { return LOWP_GROUPED_QUANTIZED_TENSOR_INIT; }

lowp_quantized_layout default_quantized_layout() { return LOWP_QUANTIZED_LAYOUT_INIT; }

lowp_gemm_config default_gemm_config() {
  lowp_gemm_config c{};
  c.struct_size = sizeof c;
  c.bias_dtype = LOWP_DTYPE_BFLOAT16;
  return c;
}

lowp_status read_config(const lowp_quant_config* cfg, lowp_quant_config* out) {
  *out = default_config();
  if (cfg == nullptr) return LOWP_SUCCESS;
  return read(cfg, "cfg", "lowp_quant_config",
              "lowp_quant_config_default() or lowp_quant_config_nvfp4()", out);
}

lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, const char* name, lowp_quantized_tensor* out) {
  *out = default_quantized_tensor();
  return read(q, name, "lowp_quantized_tensor",
              "lowp_quantized_tensor_init() or LOWP_QUANTIZED_TENSOR_INIT", out);
}

lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, lowp_quantized_tensor* out) {
  return read_quantized_tensor(q, "q", out);
}

lowp_status read_grouped_quantized_tensor(const lowp_grouped_quantized_tensor* q, lowp_grouped_quantized_tensor* out) {
  *out = default_grouped_quantized_tensor();
  return read(q, "q", "lowp_grouped_quantized_tensor",
              "lowp_grouped_quantized_tensor_init() or LOWP_GROUPED_QUANTIZED_TENSOR_INIT", out);
}

lowp_status read_quantized_layout(const lowp_quantized_layout* layout, const char* name, lowp_quantized_layout* out) {
  *out = default_quantized_layout();
  return read(layout, name, "lowp_quantized_layout",
              "lowp_quantized_layout_init() or LOWP_QUANTIZED_LAYOUT_INIT", out);
}

lowp_status read_gemm_config(const lowp_gemm_config* cfg, lowp_gemm_config* out) {
  *out = default_gemm_config();
  if (cfg == nullptr) return LOWP_SUCCESS;
  return read(cfg, "cfg", "lowp_gemm_config", "lowp_gemm_config_default()", out);
}

}  // namespace lowp
