// One Python function per C entry point, on raw addresses (ints): the Python layer (lowp/_core.py)
// extracts them from the arrays, allocates the outputs and checks the buffers' sizes, which the C
// API cannot see. Structs are zero-initialised and filled field by field.
#include "ops.h"

#include <nanobind/stl/tuple.h>

#include "check.h"
#include "config.h"
#include "descriptors.h"

namespace nb = nanobind;
using std::int64_t;

namespace lowp_py {
namespace {

// (data, dtype, num_tensors, total_elements, first_dims, last_dims, offsets)
using GroupDesc = std::tuple<uintptr_t, int, int64_t, int64_t, uintptr_t, uintptr_t, uintptr_t>;

lowp_grouped_tensor grouped(const GroupDesc& d) {
  lowp_grouped_tensor g{};
  g.data = ptr(std::get<0>(d));
  g.dtype = static_cast<lowp_dtype>(std::get<1>(d));
  g.num_tensors = std::get<2>(d);
  g.total_elements = std::get<3>(d);
  g.first_dims = ptr<const int64_t>(std::get<4>(d));
  g.last_dims = ptr<const int64_t>(std::get<5>(d));
  g.offsets = ptr<const int64_t>(std::get<6>(d));
  return g;
}

// (dtype, scaling, num_tensors, rowwise_data, columnwise_data, scale, scale_inv, amax, amax_stride)
using GroupQDesc = std::tuple<int, int, int64_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, int64_t>;

lowp_grouped_quantized_tensor grouped_quantized(const GroupQDesc& d) {
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  q.dtype = static_cast<lowp_dtype>(std::get<0>(d));
  q.scaling = static_cast<lowp_scaling>(std::get<1>(d));
  q.num_tensors = std::get<2>(d);
  q.rowwise_data = ptr(std::get<3>(d));
  q.columnwise_data = ptr(std::get<4>(d));
  q.scale = ptr<float>(std::get<5>(d));
  q.scale_inv = ptr<float>(std::get<6>(d));
  q.amax = ptr<float>(std::get<7>(d));
  q.amax_stride = std::get<8>(d);
  return q;
}

using Sizes = std::tuple<std::tuple<size_t, size_t>, std::tuple<size_t, size_t>, std::tuple<size_t, size_t>, size_t>;

Sizes sizes_tuple(const lowp_quantized_sizes& s) {
  return {{s.data_bytes[0], s.data_bytes[1]},
          {s.scale_inv_bytes[0], s.scale_inv_bytes[1]},
          {s.amax_bytes[0], s.amax_bytes[1]},
          s.tensor_scale_bytes};
}

// Every call runs without the GIL (the CPU backend computes, the CUDA one may synchronise);
// check() takes it back to raise.
using release = nb::call_guard<nb::gil_scoped_release>;

}  // namespace

void bind_ops(nb::module_& m) {
  m.def("quantize", [](uintptr_t x, int x_dtype, int64_t rows, int64_t cols, const QDesc& q_desc,
                       const QuantConfig* cfg, uintptr_t stream) {
    const lowp_tensor t = dense(x, x_dtype, rows, cols);
    lowp_quantized_tensor q = quantized(q_desc);
    check(lowp_quantize(&t, &q, config_ptr(cfg), ptr(stream)), "lowp_quantize");
  }, nb::arg("x"), nb::arg("x_dtype"), nb::arg("rows"), nb::arg("cols"), nb::arg("q"),
     nb::arg("cfg").none(), nb::arg("stream"), release());

  m.def("quantize_dact", [](uintptr_t grad, int dtype, int64_t rows, int64_t cols, uintptr_t act_input,
                            int activation, const QDesc& q_desc, const QuantConfig* cfg, uintptr_t stream) {
    const lowp_tensor g = dense(grad, dtype, rows, cols);
    lowp_quantized_tensor q = quantized(q_desc);
    check(lowp_quantize_dact(&g, ptr(act_input), static_cast<lowp_activation>(activation), &q, config_ptr(cfg),
                             ptr(stream)),
          "lowp_quantize_dact");
  }, nb::arg("grad"), nb::arg("dtype"), nb::arg("rows"), nb::arg("cols"), nb::arg("act_input"),
     nb::arg("activation"), nb::arg("q"), nb::arg("cfg").none(), nb::arg("stream"), release());

  m.def("dequantize", [](const QDesc& q_desc, int which, uintptr_t out, int out_dtype, int64_t out_rows,
                         int64_t out_cols, uintptr_t stream) {
    const lowp_quantized_tensor q = quantized(q_desc);
    lowp_tensor o = dense(out, out_dtype, out_rows, out_cols);
    check(lowp_dequantize(&q, static_cast<lowp_orientation>(which), &o, ptr(stream)), "lowp_dequantize");
  }, release());

  m.def("nvfp4_swizzle_scales", [](uintptr_t compact, uintptr_t swizzled, int64_t rows, int64_t blocks,
                                   uintptr_t stream) {
    check(lowp_nvfp4_swizzle_scales(ptr(compact), ptr(swizzled), rows, blocks, ptr(stream)),
          "lowp_nvfp4_swizzle_scales");
  }, release());

  m.def("rng_advance", [](uintptr_t state, uint64_t increment, uintptr_t stream) {
    check(lowp_rng_advance(ptr<uint64_t>(state), increment, ptr(stream)), "lowp_rng_advance");
  }, release());

  m.def("amax", [](uintptr_t x, int dtype, int64_t rows, int64_t cols, uintptr_t amax, uintptr_t stream) {
    const lowp_tensor t = dense(x, dtype, rows, cols);
    check(lowp_amax(&t, ptr<float>(amax), ptr(stream)), "lowp_amax");
  }, release());

  m.def("amax_per_token", [](uintptr_t x, int dtype, int64_t rows, int64_t cols, uintptr_t row_amax,
                             uintptr_t col_amax, uintptr_t stream) {
    const lowp_tensor t = dense(x, dtype, rows, cols);
    check(lowp_amax_per_token(&t, ptr<float>(row_amax), ptr<float>(col_amax), ptr(stream)), "lowp_amax_per_token");
  }, release());

  m.def("nvfp4_amax_per_row", [](uintptr_t x, int dtype, int64_t rows, int64_t cols, int scaling, uintptr_t row_amax,
                                 uintptr_t col_amax, const QuantConfig* cfg, uintptr_t stream) {
    const lowp_tensor t = dense(x, dtype, rows, cols);
    check(lowp_nvfp4_amax_per_row(&t, static_cast<lowp_scaling>(scaling), ptr<float>(row_amax), ptr<float>(col_amax),
                                  config_ptr(cfg), ptr(stream)),
          "lowp_nvfp4_amax_per_row");
  }, nb::arg("x"), nb::arg("dtype"), nb::arg("rows"), nb::arg("cols"), nb::arg("scaling"), nb::arg("row_amax"),
     nb::arg("col_amax"), nb::arg("cfg").none(), nb::arg("stream"), release());

  m.def("fp8_delayed_scaling_update", [](int64_t num_tensors, int64_t history_len, uintptr_t history,
                                         uintptr_t scale, uintptr_t scale_inv, int fp8_dtype, int margin,
                                         int algo, uintptr_t stream) {
    check(lowp_fp8_delayed_scaling_update(num_tensors, history_len, ptr<float>(history), ptr<float>(scale),
                                          ptr<float>(scale_inv), static_cast<lowp_dtype>(fp8_dtype), margin,
                                          static_cast<lowp_amax_algo>(algo), ptr(stream)),
          "lowp_fp8_delayed_scaling_update");
  }, release());

  m.def("grouped_workspace_size", [](int64_t num_tensors) {
    size_t bytes = 0;
    check(lowp_grouped_workspace_size(num_tensors, &bytes), "lowp_grouped_workspace_size");
    return bytes;
  }, release());

  m.def("grouped_quantize", [](const GroupDesc& x_desc, const GroupQDesc& q_desc, const QuantConfig* cfg,
                               uintptr_t workspace, size_t workspace_bytes, uintptr_t stream) {
    const lowp_grouped_tensor x = grouped(x_desc);
    lowp_grouped_quantized_tensor q = grouped_quantized(q_desc);
    check(lowp_grouped_quantize(&x, &q, config_ptr(cfg), ptr(workspace), workspace_bytes, ptr(stream)),
          "lowp_grouped_quantize");
  }, nb::arg("x"), nb::arg("q"), nb::arg("cfg").none(), nb::arg("workspace"), nb::arg("workspace_bytes"),
     nb::arg("stream"), release());

  m.def("grouped_quantize_dact", [](const GroupDesc& grad_desc, uintptr_t act_input, int activation,
                                    const GroupQDesc& q_desc, const QuantConfig* cfg, uintptr_t workspace,
                                    size_t workspace_bytes, uintptr_t stream) {
    const lowp_grouped_tensor g = grouped(grad_desc);
    lowp_grouped_quantized_tensor q = grouped_quantized(q_desc);
    check(lowp_grouped_quantize_dact(&g, ptr(act_input), static_cast<lowp_activation>(activation), &q,
                                     config_ptr(cfg), ptr(workspace), workspace_bytes, ptr(stream)),
          "lowp_grouped_quantize_dact");
  }, nb::arg("grad"), nb::arg("act_input"), nb::arg("activation"), nb::arg("q"), nb::arg("cfg").none(),
     nb::arg("workspace"), nb::arg("workspace_bytes"), nb::arg("stream"), release());

  m.def("grouped_amax", [](const GroupDesc& x_desc, uintptr_t amax, int64_t amax_stride, uintptr_t workspace,
                           size_t workspace_bytes, uintptr_t stream) {
    const lowp_grouped_tensor x = grouped(x_desc);
    check(lowp_grouped_amax(&x, ptr<float>(amax), amax_stride, ptr(workspace), workspace_bytes, ptr(stream)),
          "lowp_grouped_amax");
  }, release());

  m.def("grouped_dequantize", [](const GroupQDesc& q_desc, int which, const GroupDesc& out_desc,
                                 uintptr_t workspace, size_t workspace_bytes, uintptr_t stream) {
    const lowp_grouped_quantized_tensor q = grouped_quantized(q_desc);
    lowp_grouped_tensor out = grouped(out_desc);
    check(lowp_grouped_dequantize(&q, static_cast<lowp_orientation>(which), &out, ptr(workspace),
                                  workspace_bytes, ptr(stream)),
          "lowp_grouped_dequantize");
  }, release());

  m.def("grouped_layout_error", [](uintptr_t workspace, uintptr_t stream) {
    int64_t bad = 0;
    check(lowp_grouped_layout_error(ptr(workspace), &bad, ptr(stream)), "lowp_grouped_layout_error");
    return bad;
  }, release());

  m.def("nvfp4_grouped_quantize", [](uintptr_t x, int dtype, int64_t rows, int64_t cols, int64_t num_tensors,
                                     uintptr_t member_rows, const QDesc& q_desc, const QuantConfig* cfg,
                                     uintptr_t workspace, size_t workspace_bytes, uintptr_t stream) {
    const lowp_tensor t = dense(x, dtype, rows, cols);
    lowp_quantized_tensor q = quantized(q_desc);
    check(lowp_nvfp4_grouped_quantize(&t, num_tensors, ptr<const int64_t>(member_rows), &q, config_ptr(cfg),
                                      ptr(workspace), workspace_bytes, ptr(stream)),
          "lowp_nvfp4_grouped_quantize");
  }, nb::arg("x"), nb::arg("dtype"), nb::arg("rows"), nb::arg("cols"), nb::arg("num_tensors"),
     nb::arg("member_rows"), nb::arg("q"), nb::arg("cfg").none(), nb::arg("workspace"),
     nb::arg("workspace_bytes"), nb::arg("stream"), release());

  m.def("nvfp4_grouped_amax_per_row", [](uintptr_t x, int dtype, int64_t rows, int64_t cols, int scaling,
                                         int64_t num_tensors, uintptr_t member_rows, uintptr_t row_amax,
                                         uintptr_t col_amax, const QuantConfig* cfg, uintptr_t workspace,
                                         size_t workspace_bytes, uintptr_t stream) {
    const lowp_tensor t = dense(x, dtype, rows, cols);
    check(lowp_nvfp4_grouped_amax_per_row(&t, static_cast<lowp_scaling>(scaling), num_tensors,
                                          ptr<const int64_t>(member_rows), ptr<float>(row_amax), ptr<float>(col_amax),
                                          config_ptr(cfg), ptr(workspace), workspace_bytes, ptr(stream)),
          "lowp_nvfp4_grouped_amax_per_row");
  }, nb::arg("x"), nb::arg("dtype"), nb::arg("rows"), nb::arg("cols"), nb::arg("scaling"), nb::arg("num_tensors"),
     nb::arg("member_rows"), nb::arg("row_amax"), nb::arg("col_amax"), nb::arg("cfg").none(),
     nb::arg("workspace"), nb::arg("workspace_bytes"), nb::arg("stream"), release());

  m.def("quantized_sizes", [](int dtype, int scaling, int64_t rows, int64_t cols) {
    lowp_quantized_sizes s{};
    check(lowp_quantized_sizes_query(static_cast<lowp_dtype>(dtype), static_cast<lowp_scaling>(scaling), rows,
                                     cols, &s),
          "lowp_quantized_sizes_query");
    return sizes_tuple(s);
  }, release());

  // lowp_quantized_layout_query: (total_bytes, sizes, data, scale_inv and amax offsets (each a
  // rowwise, columnwise pair), the FP8 per-tensor scale, scale_inv and amax offsets).
  m.def("quantized_layout", [](int dtype, int scaling, int64_t rows, int64_t cols, int parts) {
    lowp_quantized_layout l = LOWP_QUANTIZED_LAYOUT_INIT;
    check(lowp_quantized_layout_query(static_cast<lowp_dtype>(dtype), static_cast<lowp_scaling>(scaling), rows, cols,
                                      static_cast<lowp_parts>(parts), &l),
          "lowp_quantized_layout_query");
    return std::make_tuple(l.total_bytes, sizes_tuple(l.sizes), std::make_tuple(l.data_offset[0], l.data_offset[1]),
                           std::make_tuple(l.scale_inv_offset[0], l.scale_inv_offset[1]),
                           std::make_tuple(l.amax_offset[0], l.amax_offset[1]),
                           std::make_tuple(l.tensor_scale_offset, l.tensor_scale_inv_offset, l.tensor_amax_offset));
  }, release());

  m.def("nvfp4_grouped_sizes", [](int64_t num_tensors, int64_t total_rows, int64_t cols) {
    lowp_quantized_sizes s{};
    check(lowp_nvfp4_grouped_sizes(num_tensors, total_rows, cols, &s), "lowp_nvfp4_grouped_sizes");
    return sizes_tuple(s);
  }, release());
}

}  // namespace lowp_py
