// C entry points of the grouped FP8 operations (per-tensor DELAYED / CURRENT scaling per member):
// validate the group and its outputs, pick the backend from where the data lives, call.
#include <cstdio>
#include <cstring>

#include "core/aliasing.h"
#include "core/backends.h"
#include "core/entry.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/group_layout_rules.h"
#include "core/growable.h"
#include "core/validate.h"
#include "recipes/fp8_rules.h"  // check_fp8_config

namespace lowp {
namespace {

constexpr int64_t kMaxMembers = int64_t{1} << 40;  // as lowp_grouped_workspace_size

long long ll(int64_t v) { return static_cast<long long>(v); }

// A group's own names for messages: "x->data", "x->first_dims", ...
struct GroupNames {
  char data[32], first[32], last[32], offsets[32];
  explicit GroupNames(const char* g) {
    std::snprintf(data, sizeof data, "%s->data", g);
    std::snprintf(first, sizeof first, "%s->first_dims", g);
    std::snprintf(last, sizeof last, "%s->last_dims", g);
    std::snprintf(offsets, sizeof offsets, "%s->offsets", g);
  }
};

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
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s member %lld has negative dims %lld x %lld", name, ll(t), ll(f), ll(l));
  if (o < 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s member %lld starts at element %lld; offsets must be >= 0", name, ll(t),
                ll(o));
  if (t > 0 && !member_after(o, L.first[t - 1], L.last[t - 1], L.offsets[t - 1]))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s member %lld starts at element %lld, inside the previous member (which ends at %lld); "
                "members must be in order without overlap",
                name, ll(t), ll(o), ll(L.offsets[t - 1] + L.first[t - 1] * L.last[t - 1]));
  return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s member %lld (%lld x %lld at element %lld) runs past total_elements %lld",
              name, ll(t), ll(f), ll(l), ll(o), ll(L.total_elements));
}

// The group's own fields; returns its layout and where the layout arrays live.
lowp_status check_group(const lowp_grouped_tensor* g, const char* name, GroupLayout* layout) {
  LOWP_TRY(check_not_null(g, name));
  const GroupNames names(name);
  char dtype_name[32];
  std::snprintf(dtype_name, sizeof dtype_name, "%s->dtype", name);
  LOWP_TRY(check_high_precision_dtype(raw(g->dtype), dtype_name));
  if (g->num_tensors < 1 || g->num_tensors > kMaxMembers)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->num_tensors is %lld; must be in [1, 2^40]", name, ll(g->num_tensors));
  if (g->total_elements < 0 || g->total_elements > (int64_t{1} << 56))
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->total_elements is %lld; must be in [0, 2^56]", name,
                ll(g->total_elements));
  LOWP_TRY(check_not_null(g->data, names.data));
  LOWP_TRY(check_aligned(g->data, dtype_bytes(g->dtype), names.data));
  LOWP_TRY(check_not_null(g->first_dims, names.first));
  LOWP_TRY(check_not_null(g->last_dims, names.last));
  LOWP_TRY(check_not_null(g->offsets, names.offsets));
  LOWP_TRY(check_aligned(g->first_dims, 8, names.first));
  LOWP_TRY(check_aligned(g->last_dims, 8, names.last));
  LOWP_TRY(check_aligned(g->offsets, 8, names.offsets));
  MemorySpace arrays;
  LOWP_TRY(check_same_space({{g->first_dims, names.first}, {g->last_dims, names.last}, {g->offsets, names.offsets}},
                            &arrays));
  *layout = {g->num_tensors, g->total_elements, g->first_dims, g->last_dims, g->offsets, arrays == MemorySpace::kDevice};
  if (!layout->on_device) LOWP_TRY(check_host_layout(*layout, name));
  return LOWP_SUCCESS;
}

lowp_status check_backend(MemorySpace data, const GroupLayout& L, const void* ws, size_t ws_bytes) {
  return check_grouped_backend(data, L.on_device, "the group's layout arrays are", L.n, ws, ws_bytes);
}

// q as read by read_grouped_quantized_tensor.
lowp_status check_outputs(const lowp_grouped_quantized_tensor* q, int64_t n) {
  const int dtype = raw(q->dtype), scaling = raw(q->scaling);
  if (dtype != LOWP_DTYPE_E4M3 && dtype != LOWP_DTYPE_E5M2)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->dtype is %s; grouped quantize supports LOWP_DTYPE_E4M3 and LOWP_DTYPE_E5M2",
                enum_text<lowp_dtype>(dtype).text);
  if (scaling == LOWP_SCALING_PER_TOKEN)
    return fail(LOWP_ERROR_UNSUPPORTED, "q->scaling LOWP_SCALING_PER_TOKEN: grouped per-token FP8 is not built; use "
                                        "LOWP_SCALING_DELAYED or LOWP_SCALING_CURRENT");
  if (scaling != LOWP_SCALING_DELAYED && scaling != LOWP_SCALING_CURRENT)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->scaling is %s; expected LOWP_SCALING_DELAYED or LOWP_SCALING_CURRENT",
                enum_text<lowp_scaling>(scaling).text);
  if (q->num_tensors != n)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->num_tensors is %lld but the input group has %lld members",
                ll(q->num_tensors), ll(n));
  LOWP_TRY(check_stride(q->amax_stride, n, "q->amax_stride"));
  LOWP_TRY(check_not_null(q->scale, "q->scale"));
  LOWP_TRY(check_not_null(q->scale_inv, "q->scale_inv"));
  LOWP_TRY(check_not_null(q->amax, "q->amax"));
  LOWP_TRY(check_aligned(q->scale, 4, "q->scale"));
  LOWP_TRY(check_aligned(q->scale_inv, 4, "q->scale_inv"));
  return check_aligned(q->amax, 4, "q->amax");
}

// Extents for the aliasing rule: a member array of n entries `stride` apart (checked), the
// layout arrays (n int64 each) and a group's data (checked).
size_t strided_float_bytes(int64_t n, int64_t stride) { return float_bytes((n - 1) * (stride == 0 ? 1 : stride) + 1); }
size_t layout_bytes(int64_t n) { return sizeof(int64_t) * static_cast<size_t>(n); }
size_t group_bytes(const lowp_grouped_tensor& g) {
  return static_cast<size_t>(g.total_elements) * static_cast<size_t>(dtype_bytes(g.dtype));
}

lowp_status grouped_quantize(const lowp_grouped_tensor* x, const void* act_input, int act,
                             const lowp_grouped_quantized_tensor* caller_q, const lowp_quant_config* cfg, void* ws,
                             size_t ws_bytes, void* stream) {
  GroupedFp8Args a{};
  const char* name = act_input ? "grad" : "x";
  LOWP_TRY(check_group(x, name, &a.layout));
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
  const GroupNames names(name);
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, names.data}, {act_input, "act_input"}, {q->rowwise_data, "q->rowwise_data"},
                             {q->columnwise_data, "q->columnwise_data"}, {q->scale, "q->scale"},
                             {q->scale_inv, "q->scale_inv"}, {q->amax, "q->amax"}},
                            &space));
  LOWP_TRY(check_backend(space, a.layout, ws, ws_bytes));
  if (space == MemorySpace::kDevice) {
    MemorySpace ws_space;
    LOWP_TRY(check_same_space({{x->data, names.data}, {ws, "workspace"}}, &ws_space));
  }
  const int64_t n = x->num_tensors;
  const size_t x_bytes = group_bytes(*x);
  const size_t codes = static_cast<size_t>(x->total_elements);
  LOWP_TRY(check_no_overlap({{x->data, x_bytes, names.data, false},
                             {act_input, x_bytes, "act_input", false},
                             {x->first_dims, layout_bytes(n), names.first, false},
                             {x->last_dims, layout_bytes(n), names.last, false},
                             {x->offsets, layout_bytes(n), names.offsets, false},
                             {q->rowwise_data, codes, "q->rowwise_data", true},
                             {q->columnwise_data, codes, "q->columnwise_data", true},
                             {q->scale, float_bytes(n), "q->scale", q->scaling == LOWP_SCALING_CURRENT},
                             {q->scale_inv, float_bytes(n), "q->scale_inv", true},
                             {q->amax, strided_float_bytes(n, q->amax_stride), "q->amax", true},
                             {ws, grouped_workspace_extent(space, n), "workspace", true}}));
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

lowp_status grouped_amax(const lowp_grouped_tensor* x, float* amax, int64_t amax_stride, void* ws, size_t ws_bytes,
                         void* stream) {
  GroupedFp8Args a{};
  LOWP_TRY(check_group(x, "x", &a.layout));
  LOWP_TRY(check_not_null(amax, "amax"));
  LOWP_TRY(check_aligned(amax, 4, "amax"));
  LOWP_TRY(check_stride(amax_stride, x->num_tensors, "amax_stride"));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {amax, "amax"}}, &space));
  LOWP_TRY(check_backend(space, a.layout, ws, ws_bytes));
  const int64_t n = x->num_tensors;
  LOWP_TRY(check_no_overlap(
      {{x->data, group_bytes(*x), "x->data", false},
       {x->first_dims, layout_bytes(n), "x->first_dims", false},
       {x->last_dims, layout_bytes(n), "x->last_dims", false},
       {x->offsets, layout_bytes(n), "x->offsets", false},
       {amax, strided_float_bytes(n, amax_stride), "amax", true},
       {ws, grouped_workspace_extent(space, n), "workspace", true}}));
  a.x = x->data;
  a.in_dtype = x->dtype;
  a.act = -1;
  a.amax = amax;
  a.amax_stride = amax_stride == 0 ? 1 : amax_stride;
  a.workspace = ws;
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::grouped_amax(a, stream) : cpu::grouped_amax(a));
  return succeed();
}

lowp_status grouped_dequantize(const lowp_grouped_quantized_tensor* caller_q, const lowp_orientation& which,
                               lowp_grouped_tensor* out, void* ws, size_t ws_bytes, void* stream) {
  GroupedDequantizeArgs a{};
  LOWP_TRY(check_not_null(caller_q, "q"));
  lowp_grouped_quantized_tensor local;
  LOWP_TRY(read_grouped_quantized_tensor(caller_q, &local));
  const lowp_grouped_quantized_tensor* q = &local;
  const int dtype = raw(q->dtype);
  if (dtype != LOWP_DTYPE_E4M3 && dtype != LOWP_DTYPE_E5M2)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->dtype is %s; expected LOWP_DTYPE_E4M3 or LOWP_DTYPE_E5M2",
                enum_text<lowp_dtype>(dtype).text);
  LOWP_TRY(check_orientation(which, "which"));
  LOWP_TRY(check_group(out, "out", &a.layout));
  if (q->num_tensors != out->num_tensors)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "q->num_tensors is %lld but out has %lld members", ll(q->num_tensors),
                ll(out->num_tensors));
  const bool row = which == LOWP_ROWWISE;
  const char* codes_name = row ? "q->rowwise_data" : "q->columnwise_data";
  a.codes = static_cast<const uint8_t*>(row ? q->rowwise_data : q->columnwise_data);
  LOWP_TRY(check_not_null(a.codes, codes_name));
  LOWP_TRY(check_not_null(q->scale_inv, "q->scale_inv"));
  LOWP_TRY(check_aligned(q->scale_inv, 4, "q->scale_inv"));
  MemorySpace space;
  LOWP_TRY(check_same_space({{a.codes, codes_name}, {q->scale_inv, "q->scale_inv"}, {out->data, "out->data"}}, &space));
  LOWP_TRY(check_backend(space, a.layout, ws, ws_bytes));
  const int64_t n = out->num_tensors;
  LOWP_TRY(check_no_overlap(
      {{a.codes, static_cast<size_t>(out->total_elements), codes_name, false},
       {q->scale_inv, float_bytes(n), "q->scale_inv", false},
       {out->first_dims, layout_bytes(n), "out->first_dims", false},
       {out->last_dims, layout_bytes(n), "out->last_dims", false},
       {out->offsets, layout_bytes(n), "out->offsets", false},
       {out->data, group_bytes(*out), "out->data", true},
       {ws, grouped_workspace_extent(space, n), "workspace", true}}));
  a.code_dtype = q->dtype;
  a.columnwise = !row;
  a.scale_inv = q->scale_inv;
  a.out = out->data;
  a.out_dtype = out->dtype;
  a.workspace = ws;
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::grouped_fp8_dequantize(a, stream) : cpu::grouped_fp8_dequantize(a));
  return succeed();
}

}  // namespace
}  // namespace lowp

using namespace lowp;

extern "C" {

lowp_status lowp_grouped_workspace_size(int64_t num_tensors, size_t* bytes) {
  return guarded("lowp_grouped_workspace_size", [&] {
    LOWP_TRY(check_not_null(bytes, "bytes"));
    if (num_tensors < 1 || num_tensors > kMaxMembers)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "num_tensors is %lld; must be in [1, 2^40]", ll(num_tensors));
    *bytes = grouped_workspace_bytes(num_tensors);
    return succeed();
  });
}

lowp_status lowp_grouped_quantize(const lowp_grouped_tensor* x, lowp_grouped_quantized_tensor* q,
                                  const lowp_quant_config* cfg, void* workspace, size_t workspace_bytes,
                                  void* stream) {
  return guarded("lowp_grouped_quantize",
                 [&] { return grouped_quantize(x, nullptr, -1, q, cfg, workspace, workspace_bytes, stream); });
}

lowp_status lowp_grouped_quantize_dact(const lowp_grouped_tensor* grad, const void* act_input,
                                       lowp_activation act, lowp_grouped_quantized_tensor* q,
                                       const lowp_quant_config* cfg, void* workspace, size_t workspace_bytes,
                                       void* stream) {
  return guarded("lowp_grouped_quantize_dact", [&] {
    LOWP_TRY(check_not_null(act_input, "act_input"));
    LOWP_TRY(check_activation(act, "act"));
    return grouped_quantize(grad, act_input, raw(act), q, cfg, workspace, workspace_bytes, stream);
  });
}

lowp_status lowp_grouped_amax(const lowp_grouped_tensor* x, float* amax, int64_t amax_stride, void* workspace,
                              size_t workspace_bytes, void* stream) {
  return guarded("lowp_grouped_amax",
                 [&] { return grouped_amax(x, amax, amax_stride, workspace, workspace_bytes, stream); });
}

lowp_status lowp_grouped_dequantize(const lowp_grouped_quantized_tensor* q, lowp_orientation which,
                                    lowp_grouped_tensor* out, void* workspace, size_t workspace_bytes, void* stream) {
  return guarded("lowp_grouped_dequantize",
                 [&] { return grouped_dequantize(q, which, out, workspace, workspace_bytes, stream); });
}

lowp_status lowp_grouped_layout_error(const void* workspace, int64_t* bad_member_plus_one, void* stream) {
  return guarded("lowp_grouped_layout_error", [&] {
    LOWP_TRY(check_not_null(workspace, "workspace"));
    LOWP_TRY(check_not_null(bad_member_plus_one, "bad_member_plus_one"));
    LOWP_TRY(check_aligned(workspace, 8, "workspace"));
    LOWP_TRY(check_aligned(bad_member_plus_one, 8, "bad_member_plus_one"));
    MemorySpace out_space;
    LOWP_TRY(check_same_space({{bad_member_plus_one, "bad_member_plus_one"}}, &out_space));
    if (out_space != MemorySpace::kHost)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "bad_member_plus_one is in device memory; the status is copied to host memory");
    MemorySpace space;
    LOWP_TRY(check_same_space({{workspace, "workspace"}}, &space));
    if (space == MemorySpace::kHost) {
      *bad_member_plus_one = 0;  // host layouts are validated before any work starts
      return succeed();
    }
    LOWP_TRY(cuda::grouped_layout_error(workspace, bad_member_plus_one, stream));
    return succeed();
  });
}

}  // extern "C"
