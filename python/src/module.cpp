// lowp._lowp: the nanobind extension. Thin: one function per C entry point (ops.cpp, gemm.cpp),
// the config structs (config.cpp, gemm.cpp) and the C enums' values; arrays are handled in
// Python (lowp/_core.py).
#include <nanobind/nanobind.h>

#include <utility>

#include "config.h"
#include "gemm.h"
#include "ops.h"

namespace nb = nanobind;

namespace {

void bind_constants(nb::module_& m) {
  const std::pair<const char*, int> constants[] = {
      {"DTYPE_FLOAT32", LOWP_DTYPE_FLOAT32}, {"DTYPE_FLOAT16", LOWP_DTYPE_FLOAT16},
      {"DTYPE_BFLOAT16", LOWP_DTYPE_BFLOAT16}, {"DTYPE_E4M3", LOWP_DTYPE_E4M3},
      {"DTYPE_E5M2", LOWP_DTYPE_E5M2}, {"DTYPE_E2M1", LOWP_DTYPE_E2M1},
      {"SCALING_DELAYED", LOWP_SCALING_DELAYED}, {"SCALING_CURRENT", LOWP_SCALING_CURRENT},
      {"SCALING_PER_TOKEN", LOWP_SCALING_PER_TOKEN},
      {"SCALING_NVFP4_PER_TENSOR", LOWP_SCALING_NVFP4_PER_TENSOR},
      {"SCALING_NVFP4_PER_TOKEN", LOWP_SCALING_NVFP4_PER_TOKEN},
      {"SCALING_NVFP4_ROW_SCALED", LOWP_SCALING_NVFP4_ROW_SCALED},
      {"FOUR_OVER_SIX_MAE", LOWP_FOUR_OVER_SIX_MAE}, {"FOUR_OVER_SIX_MSE", LOWP_FOUR_OVER_SIX_MSE},
      {"SCALE_LAYOUT_COMPACT", LOWP_SCALE_LAYOUT_COMPACT}, {"SCALE_LAYOUT_SWIZZLED", LOWP_SCALE_LAYOUT_SWIZZLED},
      {"ROWWISE", LOWP_ROWWISE}, {"COLUMNWISE", LOWP_COLUMNWISE},
      {"AMAX_ALGO_MAX", LOWP_AMAX_ALGO_MAX}, {"AMAX_ALGO_MOST_RECENT", LOWP_AMAX_ALGO_MOST_RECENT},
      {"ACTIVATION_GELU_TANH", LOWP_ACTIVATION_GELU_TANH}, {"ACTIVATION_SILU", LOWP_ACTIVATION_SILU},
      {"ACTIVATION_RELU", LOWP_ACTIVATION_RELU},
      {"ROLE_INPUT", LOWP_ROLE_INPUT}, {"ROLE_WEIGHT", LOWP_ROLE_WEIGHT}, {"ROLE_GRADIENT", LOWP_ROLE_GRADIENT},
      {"PARTS_ROWWISE", LOWP_PARTS_ROWWISE}, {"PARTS_COLUMNWISE", LOWP_PARTS_COLUMNWISE},
      {"PARTS_BOTH", LOWP_PARTS_BOTH}, {"LAYOUT_ALIGNMENT", LOWP_LAYOUT_ALIGNMENT},
  };
  for (const auto& [name, value] : constants) m.attr(name) = value;
}

}  // namespace

NB_MODULE(_lowp, m) {
  m.doc() = "lowp's C ABI on raw addresses; use the `lowp` package, not this module.";
  bind_constants(m);
  m.def("version", [] { return lowp_version(); });
  m.def("cuda_available", [] { return lowp_cuda_available() != 0; });
  lowp_py::bind_config(m);
  lowp_py::bind_ops(m);
  lowp_py::bind_gemm(m);
}
