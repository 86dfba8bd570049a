// C entry points of the grouped FP8 operations (per-tensor DELAYED / CURRENT scaling per member):
// validate the group and its outputs, pick the backend from where the data lives, call.
#include <cstring>

#include "core/backends.h"
#include "core/group_layout_rules.h"
#include "core/growable.h"
#include "core/error.h"
#include "core/validate.h"
#include "recipes/fp8_rules.h"  // check_fp8_config

namespace lowp {
namespace {

// Host-memory layouts are checked here by the host's member walk, device-memory layouts on the
// device (cuda/group/fp8_grouped.cu), with the same rule (group_member_ok).
lowp_status check_host_layout(const GroupLayout& L, const char* name) {
  int64_t unused;
  const int64_t t = first_bad_member(
      L.n, [](int64_t) { return int64_t{0}; },
      [&](int64_t u, int64_t) { return group_member_ok(L.first, L.last, L.offsets, u, L.total_elements); }, &unused);
  if (t == L.n) return LOWP_SUCCESS;
  const int64_t f = L.first[t], l = L.last[t], o = L.offsets[t];  // member t breaks the rule; the earlier ones keep it
  if (f < 0 || l < 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s member %lld has negative dims %lld x %lld", name,
                static_cast<long long>(t), static_cast<long long>(f), static_cast<long long>(l));
  if (t > 0 && !member_after(o, L.first[t - 1], L.last[t - 1], L.offsets[t - 1]))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s member %lld starts at element %lld, inside the previous member (which ends at %lld); "
                "members must be in order without overlap",
                name, static_cast<long long>(t), static_cast<long long>(o),
                static_cast<long long>(L.offsets[t - 1] + L.first[t - 1] * L.last[t - 1]));
  return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s member %lld (%lld x %lld at element %lld) runs past total_elements %lld",
              name, static_cast<long long>(t), static_cast<long long>(f), static_cast<long long>(l),
              static_cast<long long>(o), static_cast<long long>(L.total_elements));
}

// The group's own fields; returns its layout and where the layout arrays live.
lowp_status check_group(const lowp_grouped_tensor* g, const char* name, GroupLayout* layout) {
  LOWP_TRY(check_not_null(g, name));
  LOWP_TRY(check_high_precision_dtype(g->dtype, name));
  if (g->num_tensors < 1)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->num_tensors is %lld; a group needs at least one member", name,
                static_cast<long long>(g->num_tensors));
  if (g->total_elements < 0 || g->total_elements > (int64_t{1} << 56))
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->total_elements is %lld; must be in [0, 2^56]", name,
                static_cast<long long>(g->total_elements));
  LOWP_TRY(check_not_null(g->data, name));
  LOWP_TRY(check_aligned(g->data, dtype_bytes(g->dtype), name));
  LOWP_TRY(check_not_null(g->first_dims, "first_dims"));
  LOWP_TRY(check_not_null(g->last_dims, "last_dims"));
  LOWP_TRY(check_not_null(g->offsets, "offsets"));
  LOWP_TRY(check_aligned(g->first_dims, 8, "first_dims"));
  LOWP_TRY(check_aligned(g->last_dims, 8, "last_dims"));
  LOWP_TRY(check_aligned(g->offsets, 8, "offsets"));
  MemorySpace arrays;
  LOWP_TRY(check_same_space({{g->first_dims, "first_dims"}, {g->last_dims, "last_dims"}, {g->offsets, "offsets"}}, &arrays));
  *layout = {g->num_tensors, g->total_elements, g->first_dims, g->last_dims, g->offsets, arrays == MemorySpace::kDevice};
  if (!layout->on_device) LOWP_TRY(check_host_layout(*layout, name));
  return LOWP_SUCCESS;
}

lowp_status check_backend(MemorySpace data, const GroupLayout& L, const void* ws, size_t ws_bytes) {
  return check_grouped_backend(data, L.on_device, "the group's layout arrays are", L.n, ws, ws_bytes);
}

// q as read by read_grouped_quantized_tensor.
lowp_status check_outputs(const lowp_grouped_quantized_tensor* q, int64_t n) {
  if (q->dtype != LOWP_DTYPE_E4M3 && q->dtype != LOWP_DTYPE_E5M2)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->dtype is %d; grouped quantize supports LOWP_DTYPE_E4M3 and LOWP_DTYPE_E5M2",
                static_cast<int>(q->dtype));
  if (q->scaling == LOWP_SCALING_PER_TOKEN)
    return fail(LOWP_ERROR_UNSUPPORTED, "q->scaling: grouped PER_TOKEN FP8 is not built; use DELAYED or CURRENT");
  if (q->scaling != LOWP_SCALING_DELAYED && q->scaling != LOWP_SCALING_CURRENT)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->scaling %d is not DELAYED or CURRENT", static_cast<int>(q->scaling));
  if (q->num_tensors != n)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->num_tensors is %lld but the input group has %lld members",
                static_cast<long long>(q->num_tensors), static_cast<long long>(n));
  if (q->amax_stride < 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->amax_stride is %lld; must be >= 0", static_cast<long long>(q->amax_stride));
  LOWP_TRY(check_not_null(q->scale, "q->scale"));
  LOWP_TRY(check_not_null(q->scale_inv, "q->scale_inv"));
  LOWP_TRY(check_not_null(q->amax, "q->amax"));
  LOWP_TRY(check_aligned(q->scale, 4, "q->scale"));
  LOWP_TRY(check_aligned(q->scale_inv, 4, "q->scale_inv"));
  return check_aligned(q->amax, 4, "q->amax");
}

lowp_status grouped_quantize(const lowp_grouped_tensor* x, const void* act_input, int act,
                             const lowp_grouped_quantized_tensor* caller_q, const lowp_quant_config* cfg, void* ws,
                             size_t ws_bytes, void* stream) {
  GroupedFp8Args a{};
  LOWP_TRY(check_group(x, act_input ? "grad" : "x", &a.layout));
  LOWP_TRY(check_not_null(caller_q, "q"));
  lowp_grouped_quantized_tensor local;
  LOWP_TRY(read_grouped_quantized_tensor(caller_q, &local));
  const lowp_grouped_quantized_tensor* q = &local;
  LOWP_TRY(check_outputs(q, x->num_tensors));
  if (q->rowwise_data == nullptr && q->columnwise_data == nullptr)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->rowwise_data and q->columnwise_data are both NULL; request at least one");
  lowp_quant_config c;
  LOWP_TRY(read_config(cfg, &c));
  LOWP_TRY(check_fp8_config(c));
  LOWP_TRY(check_aligned(act_input, dtype_bytes(x->dtype), "act_input"));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {act_input, "act_input"}, {q->rowwise_data, "q->rowwise_data"},
                             {q->columnwise_data, "q->columnwise_data"}, {q->scale, "q->scale"},
                             {q->scale_inv, "q->scale_inv"}, {q->amax, "q->amax"}},
                            &space));
  LOWP_TRY(check_backend(space, a.layout, ws, ws_bytes));
  if (space == MemorySpace::kDevice) {
    MemorySpace ws_space;
    LOWP_TRY(check_same_space({{x->data, "x->data"}, {ws, "workspace"}}, &ws_space));
  }
  a.x = x->data;
  a.in_dtype = x->dtype;
  a.act_input = act_input;
  a.act = act;
  a.out_dtype = q->dtype;
  a.scaling = q->scaling;
  a.amax_epsilon = c.amax_epsilon;
  a.power_of_two_scale = c.power_of_two_scale != 0;
  a.row_codes = static_cast<uint8_t*>(q->rowwise_data);
  a.col_codes = static_cast<uint8_t*>(q->columnwise_data);
  a.scale = q->scale;
  a.scale_inv = q->scale_inv;
  a.amax = q->amax;
  a.amax_stride = q->amax_stride == 0 ? 1 : q->amax_stride;
  a.workspace = ws;
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::grouped_fp8_quantize(a, stream) : cpu::grouped_fp8_quantize(a));
  return succeed();
}

}  // namespace
}  // namespace lowp

using namespace lowp;

extern "C" {

lowp_status lowp_grouped_workspace_size(int64_t num_tensors, size_t* bytes) {
  LOWP_TRY(check_not_null(bytes, "bytes"));
  if (num_tensors < 1 || num_tensors > (int64_t{1} << 40))
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "num_tensors is %lld; must be in [1, 2^40]", static_cast<long long>(num_tensors));
  *bytes = grouped_workspace_bytes(num_tensors);
  return succeed();
}

lowp_status lowp_grouped_quantize(const lowp_grouped_tensor* x, lowp_grouped_quantized_tensor* q,
                                  const lowp_quant_config* cfg, void* workspace, size_t workspace_bytes,
                                  void* stream) {
  return grouped_quantize(x, nullptr, -1, q, cfg, workspace, workspace_bytes, stream);
}

lowp_status lowp_grouped_quantize_dact(const lowp_grouped_tensor* grad, const void* act_input,
                                       lowp_activation act, lowp_grouped_quantized_tensor* q,
                                       const lowp_quant_config* cfg, void* workspace, size_t workspace_bytes,
                                       void* stream) {
  LOWP_TRY(check_not_null(act_input, "act_input"));
  LOWP_TRY(check_activation(act));
  return grouped_quantize(grad, act_input, act, q, cfg, workspace, workspace_bytes, stream);
}

lowp_status lowp_grouped_amax(const lowp_grouped_tensor* x, float* amax, int64_t amax_stride, void* workspace,
                              size_t workspace_bytes, void* stream) {
  GroupedFp8Args a{};
  LOWP_TRY(check_group(x, "x", &a.layout));
  LOWP_TRY(check_not_null(amax, "amax"));
  LOWP_TRY(check_aligned(amax, 4, "amax"));
  if (amax_stride < 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "amax_stride is %lld; must be >= 0", static_cast<long long>(amax_stride));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {amax, "amax"}}, &space));
  LOWP_TRY(check_backend(space, a.layout, workspace, workspace_bytes));
  a.x = x->data;
  a.in_dtype = x->dtype;
  a.act = -1;
  a.amax = amax;
  a.amax_stride = amax_stride == 0 ? 1 : amax_stride;
  a.workspace = workspace;
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::grouped_amax(a, stream) : cpu::grouped_amax(a));
  return succeed();
}

lowp_status lowp_grouped_dequantize(const lowp_grouped_quantized_tensor* caller_q, lowp_orientation which,
                                    lowp_grouped_tensor* out, void* workspace, size_t workspace_bytes, void* stream) {
  GroupedDequantizeArgs a{};
  LOWP_TRY(check_not_null(caller_q, "q"));
  lowp_grouped_quantized_tensor local;
  LOWP_TRY(read_grouped_quantized_tensor(caller_q, &local));
  const lowp_grouped_quantized_tensor* q = &local;
  if (q->dtype != LOWP_DTYPE_E4M3 && q->dtype != LOWP_DTYPE_E5M2)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->dtype is %d; expected LOWP_DTYPE_E4M3 or LOWP_DTYPE_E5M2",
                static_cast<int>(q->dtype));
  if (which != LOWP_ROWWISE && which != LOWP_COLUMNWISE)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "which is %d; expected LOWP_ROWWISE or LOWP_COLUMNWISE", static_cast<int>(which));
  LOWP_TRY(check_group(out, "out", &a.layout));
  if (q->num_tensors != out->num_tensors)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->num_tensors is %lld but out has %lld members",
                static_cast<long long>(q->num_tensors), static_cast<long long>(out->num_tensors));
  a.codes = static_cast<const uint8_t*>(which == LOWP_ROWWISE ? q->rowwise_data : q->columnwise_data);
  LOWP_TRY(check_not_null(a.codes, which == LOWP_ROWWISE ? "q->rowwise_data" : "q->columnwise_data"));
  LOWP_TRY(check_not_null(q->scale_inv, "q->scale_inv"));
  LOWP_TRY(check_aligned(q->scale_inv, 4, "q->scale_inv"));
  MemorySpace space;
  LOWP_TRY(check_same_space({{a.codes, "codes"}, {q->scale_inv, "q->scale_inv"}, {out->data, "out->data"}}, &space));
  LOWP_TRY(check_backend(space, a.layout, workspace, workspace_bytes));
  a.code_dtype = q->dtype;
  a.columnwise = which == LOWP_COLUMNWISE;
  a.scale_inv = q->scale_inv;
  a.out = out->data;
  a.out_dtype = out->dtype;
  a.workspace = workspace;
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::grouped_fp8_dequantize(a, stream) : cpu::grouped_fp8_dequantize(a));
  return succeed();
}

lowp_status lowp_grouped_layout_error(const void* workspace, int64_t* bad_member_plus_one, void* stream) {
  LOWP_TRY(check_not_null(workspace, "workspace"));
  LOWP_TRY(check_not_null(bad_member_plus_one, "bad_member_plus_one"));
  LOWP_TRY(check_aligned(workspace, 8, "workspace"));
  MemorySpace space;
  LOWP_TRY(check_same_space({{workspace, "workspace"}}, &space));
  if (space == MemorySpace::kHost) {
    *bad_member_plus_one = 0;  // host layouts are validated before any work starts
    return succeed();
  }
  LOWP_TRY(cuda::grouped_layout_error(workspace, bad_member_plus_one, stream));
  return succeed();
}

}  // extern "C"
