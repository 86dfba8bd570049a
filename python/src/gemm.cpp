// The GEMM (include/lowp/gemm.h) on raw addresses: lowp_gemm, lowp_gemm_workspace_size, and
// GemmConfig, a lowp_gemm_config built by lowp_gemm_config_default with the knobs a caller names
// over it. The Python layer (lowp/_core.py) checks the buffers' sizes, allocates D and the
// workspace in the operands' framework, and passes each operand as a quantized-tensor descriptor
// (descriptors.h) holding the copy the GEMM reads.
#include "gemm.h"

#include <lowp/gemm.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>

#include <optional>

#include "check.h"
#include "descriptors.h"

namespace nb = nanobind;

namespace lowp_py {
namespace {

struct GemmConfig {
  lowp_gemm_config cfg{};
};

GemmConfig make_config(uintptr_t bias, std::optional<int> bias_dtype, std::optional<bool> accumulate,
                       std::optional<bool> fast_accumulation, std::optional<bool> a_columnwise_rht,
                       std::optional<bool> b_columnwise_rht) {
  GemmConfig c;
  lowp_gemm_config_default(&c.cfg);
  c.cfg.bias = ptr(bias);
  if (bias_dtype) c.cfg.bias_dtype = static_cast<lowp_dtype>(*bias_dtype);
  if (accumulate) c.cfg.accumulate = *accumulate;
  if (fast_accumulation) c.cfg.fast_accumulation = *fast_accumulation;
  if (a_columnwise_rht) c.cfg.a_columnwise_rht = *a_columnwise_rht;
  if (b_columnwise_rht) c.cfg.b_columnwise_rht = *b_columnwise_rht;
  return c;
}

// One call's operands and output, as lowp_gemm takes them.
struct Problem {
  lowp_quantized_tensor a, b;
  lowp_orientation a_copy, b_copy;
  lowp_tensor d;
};

Problem problem(const QDesc& a, int a_copy, const QDesc& b, int b_copy, uintptr_t d, int d_dtype, int64_t m,
                int64_t n) {
  return {quantized(a), quantized(b), static_cast<lowp_orientation>(a_copy), static_cast<lowp_orientation>(b_copy),
          dense(d, d_dtype, m, n)};
}

using release = nb::call_guard<nb::gil_scoped_release>;

}  // namespace

void bind_gemm(nb::module_& m) {
  nb::class_<GemmConfig>(m, "GemmConfig",
                         "lowp_gemm_config: lowp's defaults, then every knob given here. bias is a pointer\n"
                         "(0: none).")
      .def(nb::new_(&make_config), nb::arg("bias") = 0, nb::arg("bias_dtype") = nb::none(),
           nb::arg("accumulate") = nb::none(), nb::arg("fast_accumulation") = nb::none(),
           nb::arg("a_columnwise_rht") = nb::none(), nb::arg("b_columnwise_rht") = nb::none())
      .def_prop_ro("bias", [](const GemmConfig& c) { return reinterpret_cast<uintptr_t>(c.cfg.bias); })
      .def_prop_ro("bias_dtype", [](const GemmConfig& c) { return static_cast<int>(c.cfg.bias_dtype); })
      .def_prop_ro("accumulate", [](const GemmConfig& c) { return c.cfg.accumulate != 0; })
      .def_prop_ro("fast_accumulation", [](const GemmConfig& c) { return c.cfg.fast_accumulation != 0; })
      .def_prop_ro("a_columnwise_rht", [](const GemmConfig& c) { return c.cfg.a_columnwise_rht != 0; })
      .def_prop_ro("b_columnwise_rht", [](const GemmConfig& c) { return c.cfg.b_columnwise_rht != 0; });

  m.def("gemm_workspace_size", [](const QDesc& a, int a_copy, const QDesc& b, int b_copy, uintptr_t d, int d_dtype,
                                  int64_t rows, int64_t cols, const GemmConfig& cfg) {
    const Problem p = problem(a, a_copy, b, b_copy, d, d_dtype, rows, cols);
    size_t bytes = 0;
    check(lowp_gemm_workspace_size(&p.a, p.a_copy, &p.b, p.b_copy, &p.d, &cfg.cfg, &bytes), "lowp_gemm_workspace_size");
    return bytes;
  }, release());

  m.def("gemm", [](const QDesc& a, int a_copy, const QDesc& b, int b_copy, uintptr_t d, int d_dtype, int64_t rows,
                   int64_t cols, const GemmConfig& cfg, uintptr_t workspace, size_t workspace_bytes, uintptr_t stream) {
    Problem p = problem(a, a_copy, b, b_copy, d, d_dtype, rows, cols);
    check(lowp_gemm(&p.a, p.a_copy, &p.b, p.b_copy, &p.d, &cfg.cfg, ptr(workspace), workspace_bytes, ptr(stream)),
          "lowp_gemm");
  }, release());
}

}  // namespace lowp_py
