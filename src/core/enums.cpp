#include "core/enums.h"

#include <cstdio>
#include <iterator>

namespace lowp {
namespace {

// Each enum of lowp.h: its type name and the names of its values 0, 1, ... in order (every enum
// of lowp.h counts up from 0; lowp_parts from 1, its entry 0 is NULL). A value appended to an
// enum in lowp.h gets its name appended here.
struct Names {
  const char* type;
  const char* const* names;
  int count;
};

template <int N>
constexpr Names names_of(const char* type, const char* const (&names)[N]) {
  return {type, names, N};
}

constexpr const char* kStatus[] = {"LOWP_SUCCESS",    "LOWP_ERROR_INVALID_ARGUMENT", "LOWP_ERROR_UNSUPPORTED",
                                   "LOWP_ERROR_CUDA", "LOWP_ERROR_INTERNAL",         "LOWP_ERROR_OUT_OF_MEMORY"};
constexpr const char* kDtype[] = {"LOWP_DTYPE_FLOAT32", "LOWP_DTYPE_FLOAT16", "LOWP_DTYPE_BFLOAT16",
                                  "LOWP_DTYPE_E4M3",    "LOWP_DTYPE_E5M2",    "LOWP_DTYPE_E2M1"};
constexpr const char* kScaling[] = {"LOWP_SCALING_DELAYED", "LOWP_SCALING_CURRENT", "LOWP_SCALING_PER_TOKEN",
                                    "LOWP_SCALING_NVFP4_PER_TENSOR", "LOWP_SCALING_NVFP4_PER_TOKEN",
                                    "LOWP_SCALING_NVFP4_ROW_SCALED"};
constexpr const char* kFourOverSixError[] = {"LOWP_FOUR_OVER_SIX_MAE", "LOWP_FOUR_OVER_SIX_MSE"};
constexpr const char* kScaleLayout[] = {"LOWP_SCALE_LAYOUT_COMPACT", "LOWP_SCALE_LAYOUT_SWIZZLED"};
constexpr const char* kOrientation[] = {"LOWP_ROWWISE", "LOWP_COLUMNWISE"};
constexpr const char* kAmaxAlgo[] = {"LOWP_AMAX_ALGO_MAX", "LOWP_AMAX_ALGO_MOST_RECENT"};
constexpr const char* kActivation[] = {"LOWP_ACTIVATION_GELU_TANH", "LOWP_ACTIVATION_SILU", "LOWP_ACTIVATION_RELU"};
constexpr const char* kRole[] = {"LOWP_ROLE_INPUT", "LOWP_ROLE_WEIGHT", "LOWP_ROLE_GRADIENT"};
constexpr const char* kParts[] = {nullptr, "LOWP_PARTS_ROWWISE", "LOWP_PARTS_COLUMNWISE", "LOWP_PARTS_BOTH"};

template <typename E>
constexpr Names kNames = {};

static_assert(std::size(kStatus) == LOWP_ERROR_OUT_OF_MEMORY + 1, "a name per lowp_status");
static_assert(std::size(kDtype) == LOWP_DTYPE_E2M1 + 1, "a name per lowp_dtype");
static_assert(std::size(kScaling) == LOWP_SCALING_NVFP4_ROW_SCALED + 1, "a name per lowp_scaling");
static_assert(std::size(kFourOverSixError) == LOWP_FOUR_OVER_SIX_MSE + 1, "a name per lowp_four_over_six_error");

}  // namespace

template <typename E>
const char* enum_name(int v) {
  const Names& n = kNames<E>;
  return v >= 0 && v < n.count ? n.names[v] : nullptr;
}

template <typename E>
const char* enum_type_name() {
  return kNames<E>.type;
}

template <typename E>
EnumText enum_text(int v) {
  EnumText t;
  if (const char* name = enum_name<E>(v))
    std::snprintf(t.text, sizeof t.text, "%s", name);
  else
    std::snprintf(t.text, sizeof t.text, "%d (not a %s)", v, kNames<E>.type);
  return t;
}

// Each enum: its names, then the functions of enums.h for it.
#define LOWP_ENUM(E, names)                                          \
  namespace {                                                        \
  template <>                                                        \
  constexpr Names kNames<E> = names_of(#E, names);                   \
  }                                                                  \
  template const char* enum_name<E>(int);                            \
  template const char* enum_type_name<E>();                          \
  template EnumText enum_text<E>(int);
LOWP_ENUM(lowp_status, kStatus)
LOWP_ENUM(lowp_dtype, kDtype)
LOWP_ENUM(lowp_scaling, kScaling)
LOWP_ENUM(lowp_four_over_six_error, kFourOverSixError)
LOWP_ENUM(lowp_scale_layout, kScaleLayout)
LOWP_ENUM(lowp_orientation, kOrientation)
LOWP_ENUM(lowp_amax_algo, kAmaxAlgo)
LOWP_ENUM(lowp_activation, kActivation)
LOWP_ENUM(lowp_tensor_role, kRole)
LOWP_ENUM(lowp_parts, kParts)
#undef LOWP_ENUM

}  // namespace lowp
