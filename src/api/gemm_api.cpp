// C entry points of the GEMM (lowp/gemm.h): the config (growable ABI), the operands
// (gemm_operands.cpp), D and the options, one memory space, then the backend. Everything is
// checked before anything is written.
#include <algorithm>
#include <array>

#include "core/aliasing.h"
#include "core/entry.h"
#include "core/enums.h"
#include "core/gemm_args.h"
#include "core/growable.h"
#include "core/error.h"
#include "api/gemm_operands.h"
#include "lowp/gemm.h"
#include "numerics/gemm.h"
#include "numerics/swizzle.h"
#include "core/validate.h"

namespace lowp::gemm_api {
namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

lowp_status check_d(const lowp_tensor* d, int64_t m, int64_t n) {
  LOWP_TRY(check_not_null(d, "d"));
  if (raw(d->dtype) != LOWP_DTYPE_BFLOAT16 && raw(d->dtype) != LOWP_DTYPE_FLOAT32)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "d->dtype is %s; a GEMM writes LOWP_DTYPE_BFLOAT16 or LOWP_DTYPE_FLOAT32",
                enum_text(d->dtype).text);
  if (d->rows != m || d->cols != n)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "d is %lld x %lld; D = A . B^T is M x N = %lld x %lld", ll(d->rows),
                ll(d->cols), ll(m), ll(n));
  LOWP_TRY(check_element_count(m, n, "d"));
  LOWP_TRY(check_not_null(d->data, "d->data"));
  return check_aligned(d->data, d->dtype == LOWP_DTYPE_FLOAT32 ? 4 : 2, "d->data");
}

lowp_status check_options(const lowp_gemm_config& c, const Operand& a, lowp_orientation a_copy, const Operand& b,
                          lowp_orientation b_copy, lowp_dtype d_dtype) {
  if (c.accumulate && d_dtype != LOWP_DTYPE_FLOAT32)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->accumulate needs a LOWP_DTYPE_FLOAT32 d (D = D_old + result is kept in fp32); d->dtype is %s",
                enum_text(d_dtype).text);
  const bool fp8 = is_fp8(a.family);
  if (c.bias != nullptr) {
    if (raw(c.bias_dtype) != LOWP_DTYPE_BFLOAT16 && raw(c.bias_dtype) != LOWP_DTYPE_FLOAT32)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "cfg->bias_dtype is %s; expected LOWP_DTYPE_BFLOAT16 or LOWP_DTYPE_FLOAT32",
                  enum_text(c.bias_dtype).text);
    if (fp8 && c.bias_dtype != LOWP_DTYPE_BFLOAT16)
      return fail(LOWP_ERROR_INVALID_ARGUMENT,
                  "cfg->bias_dtype is LOWP_DTYPE_FLOAT32; FP8 GEMMs take a LOWP_DTYPE_BFLOAT16 bias (cuBLASLt's FP8 "
                  "kernels read a bf16 bias for bf16 and fp32 outputs)");
    LOWP_TRY(check_aligned(c.bias, c.bias_dtype == LOWP_DTYPE_FLOAT32 ? 4 : 2, "cfg->bias"));
  }
  if (c.fast_accumulation && !fp8)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "cfg->fast_accumulation applies to FP8 GEMMs only; set it to 0 for NVFP4");
  if (fp8 && (c.a_columnwise_rht || c.b_columnwise_rht))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->a_columnwise_rht / b_columnwise_rht describe NVFP4 copies made with RHT; FP8 has no RHT, set "
                "them to 0");
  const bool a_rht = a_copy == LOWP_COLUMNWISE && c.a_columnwise_rht;
  const bool b_rht = b_copy == LOWP_COLUMNWISE && c.b_columnwise_rht;
  if (a_rht != b_rht)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s copy is in the RHT domain but %s copy is not (cfg->a_columnwise_rht / b_columnwise_rht); the "
                "transform cancels only between two RHT copies (wgrad), a product of one RHT copy and one plain copy "
                "is meaningless",
                a_rht ? "a's columnwise" : "b's columnwise", a_rht ? "b's chosen" : "a's chosen");
  return LOWP_SUCCESS;
}

GemmOuter outer_of(Family f) {
  switch (f) {
    case Family::kFp8PerTensor: return GemmOuter::kFp8PerTensor;
    case Family::kFp8PerToken: return GemmOuter::kFp8PerRow;
    case Family::kNvfp4PerTensor: return GemmOuter::kNvfp4PerTensor;
    case Family::kNvfp4PerToken: return GemmOuter::kNvfp4PerTokenFloored;
    case Family::kNvfp4RowScaled: return GemmOuter::kNvfp4PerRowRaw;
  }
  return GemmOuter::kFp8PerTensor;
}

// The bytes an operand's chosen copy occupies (rows x k): codes, NVFP4 block scales, outer scales.
// `operand` 0 is a, 1 is b.
std::array<Extent, 3> operand_extents(const GemmOperand& v, int64_t rows, int64_t k, GemmOuter outer, int operand) {
  static constexpr const char* kNames[2][3] = {{"a's copy data", "a's copy scale_inv", "a's scale_inv or amax"},
                                               {"b's copy data", "b's copy scale_inv", "b's scale_inv or amax"}};
  const char* const* names = kNames[operand];
  const bool e2m1 = is_nvfp4(outer);
  const size_t elements = static_cast<size_t>(rows) * static_cast<size_t>(k);
  const size_t scales = e2m1 ? static_cast<size_t>(num::scale_rows_padded(rows) * num::scale_cols_padded(k / 16)) : 0;
  return {{{v.codes, e2m1 ? elements / 2 : elements, names[0], false},
           {v.block_scales, scales, names[1], false},
           {v.outer, float_bytes(has_row_scales(outer) ? rows : 1), names[2], false}}};
}

// lowp_gemm's aliasing rule (lowp/gemm.h): the operands' copies and the bias are read, d (read
// too with accumulate: in place) and the CUDA workspace are written.
lowp_status check_aliasing(const GemmArgs& g, const void* workspace, size_t workspace_bytes) {
  const std::array<Extent, 3> a = operand_extents(g.a, g.m, g.k, g.outer, 0);
  const std::array<Extent, 3> b = operand_extents(g.b, g.n, g.k, g.outer, 1);
  const size_t d_elem = g.d_dtype == LOWP_DTYPE_FLOAT32 ? 4 : 2, bias_elem = g.bias_dtype == LOWP_DTYPE_FLOAT32 ? 4 : 2;
  return check_no_overlap({a[0], a[1], a[2], b[0], b[1], b[2],
                           {g.d, static_cast<size_t>(g.m) * static_cast<size_t>(g.n) * d_elem, "d->data", true},
                           {g.bias, static_cast<size_t>(g.n) * bias_elem, "cfg->bias", false},
                           {workspace, workspace_bytes, "workspace", true}});
}

// Every check of lowp_gemm except the workspace's size, then the backend arguments and their
// memory space (the workspace joins the space and aliasing checks when given).
lowp_status prepare(const lowp_quantized_tensor* a, const lowp_orientation& a_copy, const lowp_quantized_tensor* b,
                    const lowp_orientation& b_copy, const lowp_tensor* d, const lowp_gemm_config* cfg, const void* workspace,
                    size_t workspace_bytes, GemmArgs* out, MemorySpace* space) {
  Operand oa, ob;
  LOWP_TRY(operand(a, a_copy, "a", &oa));
  LOWP_TRY(operand(b, b_copy, "b", &ob));
  LOWP_TRY(check_pair(oa, ob));
  LOWP_TRY(check_d(d, oa.rows, ob.rows));
  lowp_gemm_config c;
  LOWP_TRY(read_gemm_config(cfg, &c));
  LOWP_TRY(check_options(c, oa, a_copy, ob, b_copy, d->dtype));

  GemmArgs g{};
  g.m = oa.rows;
  g.n = ob.rows;
  g.k = oa.k;
  g.a = oa.view;
  g.b = ob.view;
  g.outer = outer_of(oa.family);
  g.inv_denominator = num::nvfp4_gemm_inv_denominator(oa.outer_max, ob.outer_max);
  g.d = d->data;
  g.d_dtype = d->dtype;
  g.bias = c.bias;
  g.bias_dtype = c.bias != nullptr ? c.bias_dtype : LOWP_DTYPE_BFLOAT16;  // unchecked (unread) without a bias
  g.accumulate = c.accumulate != 0;
  g.fast_accumulation = c.fast_accumulation != 0;
  LOWP_TRY(check_same_space({{g.a.codes, "a's copy data"},
                             {g.a.block_scales, "a's copy scale_inv"},
                             {g.a.outer, "a's scale_inv or amax"},
                             {g.b.codes, "b's copy data"},
                             {g.b.block_scales, "b's copy scale_inv"},
                             {g.b.outer, "b's scale_inv or amax"},
                             {g.d, "d->data"},
                             {g.bias, "cfg->bias"},
                             {workspace, "workspace"}},
                            space));
  if (*space == MemorySpace::kDevice && !is_nvfp4(g.outer)) {  // cuBLASLt's FP8 operand and output alignment
    LOWP_TRY(check_aligned(g.a.codes, 16, "a's copy data (FP8 on CUDA)"));
    LOWP_TRY(check_aligned(g.b.codes, 16, "b's copy data (FP8 on CUDA)"));
    LOWP_TRY(check_aligned(g.d, 16, "d->data (FP8 on CUDA)"));
    LOWP_TRY(check_aligned(g.bias, 16, "cfg->bias (FP8 on CUDA)"));
  }
  LOWP_TRY(check_aliasing(g, workspace, *space == MemorySpace::kDevice ? workspace_bytes : 0));
  *out = g;
  return LOWP_SUCCESS;
}

}  // namespace
}  // namespace lowp::gemm_api

using namespace lowp;

extern "C" {

void lowp_gemm_config_default(lowp_gemm_config* cfg) {
  if (cfg != nullptr) *cfg = default_gemm_config();
}

lowp_status lowp_gemm_workspace_size(const lowp_quantized_tensor* a, lowp_orientation a_copy,
                                     const lowp_quantized_tensor* b, lowp_orientation b_copy, const lowp_tensor* d,
                                     const lowp_gemm_config* cfg, size_t* bytes) {
  return guarded("lowp_gemm_workspace_size", [&] {
    LOWP_TRY(check_not_null(bytes, "bytes"));
    GemmArgs g;
    MemorySpace space;
    LOWP_TRY(gemm_api::prepare(a, a_copy, b, b_copy, d, cfg, nullptr, 0, &g, &space));
    size_t need = 0;
    if (space == MemorySpace::kDevice) LOWP_TRY(cuda::gemm_workspace_bytes(g, &need));
    *bytes = need;
    return succeed();
  });
}

lowp_status lowp_gemm(const lowp_quantized_tensor* a, lowp_orientation a_copy, const lowp_quantized_tensor* b,
                      lowp_orientation b_copy, lowp_tensor* d, const lowp_gemm_config* cfg, void* workspace,
                      size_t workspace_bytes, void* stream) {
  return guarded("lowp_gemm", [&] {
    GemmArgs g;
    MemorySpace space;
    LOWP_TRY(gemm_api::prepare(a, a_copy, b, b_copy, d, cfg, workspace, workspace_bytes, &g, &space));
    LOWP_TRY(space == MemorySpace::kHost ? cpu::gemm(g)
                                         : cuda::gemm(g, workspace, workspace_bytes, stream));  // checks the workspace first
    return succeed();
  });
}

}  // extern "C"
