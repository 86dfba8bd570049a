#include "core/growable.h"

#include "core/error.h"

namespace lowp {
namespace {

// Where the members of each struct's first release (lowp 0.1) end. Frozen: members appended
// later lie past these offsets, and callers built before them pass a struct_size of at least this.
constexpr size_t kConfigFirstRelease = offsetof(lowp_quant_config, group_row_multiple) + sizeof(int);
constexpr size_t kQuantizedTensorFirstRelease = offsetof(lowp_quantized_tensor, amax) + sizeof(float*);
constexpr size_t kGroupedQuantizedTensorFirstRelease =
    offsetof(lowp_grouped_quantized_tensor, amax_stride) + sizeof(int64_t);
constexpr size_t kQuantizedLayoutFirstRelease = offsetof(lowp_quantized_layout, tensor_amax_offset) + sizeof(size_t);

template <typename T>
lowp_status read(const T* caller, size_t first_size, const char* name, const char* type, const char* initialiser,
                 T* out) {
  switch (copy_growable(caller, first_size, out)) {
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

lowp_status read_config(const lowp_quant_config* cfg, lowp_quant_config* out) {
  *out = default_config();
  if (cfg == nullptr) return LOWP_SUCCESS;
  return read(cfg, kConfigFirstRelease, "cfg", "lowp_quant_config",
              "lowp_quant_config_default() or lowp_quant_config_nvfp4()", out);
}

lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, const char* name, lowp_quantized_tensor* out) {
  *out = default_quantized_tensor();
  return read(q, kQuantizedTensorFirstRelease, name, "lowp_quantized_tensor",
              "lowp_quantized_tensor_init() or LOWP_QUANTIZED_TENSOR_INIT", out);
}

lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, lowp_quantized_tensor* out) {
  return read_quantized_tensor(q, "q", out);
}

lowp_status read_grouped_quantized_tensor(const lowp_grouped_quantized_tensor* q, lowp_grouped_quantized_tensor* out) {
  *out = default_grouped_quantized_tensor();
  return read(q, kGroupedQuantizedTensorFirstRelease, "q", "lowp_grouped_quantized_tensor",
              "lowp_grouped_quantized_tensor_init() or LOWP_GROUPED_QUANTIZED_TENSOR_INIT", out);
}

lowp_status read_quantized_layout(const lowp_quantized_layout* layout, const char* name, lowp_quantized_layout* out) {
  *out = default_quantized_layout();
  return read(layout, kQuantizedLayoutFirstRelease, name, "lowp_quantized_layout",
              "lowp_quantized_layout_init() or LOWP_QUANTIZED_LAYOUT_INIT", out);
}

}  // namespace lowp
