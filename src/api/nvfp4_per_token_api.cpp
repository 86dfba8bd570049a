// C entry points of the NVFP4 per-token recipe (SPEC §5): lowp_quantize, lowp_dequantize and
// lowp_quantized_sizes_query for LOWP_SCALING_NVFP4_PER_TOKEN (called from fp8_api.cpp), K1 alone
// (lowp_nvfp4_amax_per_token) and the grouped calls (lowp_nvfp4_grouped_*). Every rule is
// checked before any memory is touched (SPEC §9), then the backend follows the memory space.
#include <algorithm>

#include "core/backends.h"
#include "core/group_layout_rules.h"
#include "core/error.h"
#include "api/nvfp4_api.h"
#include "core/validate.h"

namespace lowp::nvfp4_per_token_api {
namespace {

constexpr int64_t kBlock = 16;
constexpr int64_t kMaxMembers = int64_t{1} << 40;  // as lowp_grouped_workspace_size

long long ll(int64_t v) { return static_cast<long long>(v); }

Nvfp4PerTokenArgs make_args(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config& c,
                            bool want_row, bool want_col) {
  Nvfp4PerTokenArgs a{};
  a.x = {x.data, x.dtype, x.rows, x.cols};
  a.scale_layout = q.scale_layout;
  a.row = nvfp4_api::part_args(q.rowwise, want_row);
  a.col = nvfp4_api::part_args(q.columnwise, want_col);
  a.rht = c.rht != 0;
  a.rht_sign_mask = c.rht_sign_mask;
  a.stochastic_rounding = c.stochastic_rounding != 0;
  a.rng_state = a.stochastic_rounding ? c.rng_state : nullptr;
  a.amax_given = c.amax_given != 0;
  return a;
}

// K1's outputs and knobs (single or grouped): at least one output, 4-byte aligned; cfg->rht and
// rht_sign_mask are the only knobs read; column amaxes with RHT need 16-row strips.
lowp_status check_amax_call(const lowp_tensor& x, float* row_amax, float* col_amax,
                            const lowp_quant_config* cfg, Nvfp4PerTokenAmaxArgs* a) {
  if (row_amax == nullptr && col_amax == nullptr)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "row_amax and col_amax are both NULL; request at least one");
  LOWP_TRY(check_aligned(row_amax, 4, "row_amax"));
  LOWP_TRY(check_aligned(col_amax, 4, "col_amax"));
  const lowp_quant_config c = nvfp4_api::resolve_config(cfg);
  if (c.rht && c.rht_sign_mask > 0xFFFFu)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "cfg->rht_sign_mask is 0x%x; it is a 16-bit mask", c.rht_sign_mask);
  if (col_amax != nullptr && c.rht && x.rows % kBlock != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "x->rows (M) is %lld; col_amax with cfg->rht needs M %% 16 == 0 (the RHT runs on 16-row strips)",
                ll(x.rows));
  *a = {{x.data, x.dtype, x.rows, x.cols}, row_amax, col_amax, c.rht != 0, c.rht_sign_mask};
  return LOWP_SUCCESS;
}

// A group's input: x (rows may be 0: every member empty), N and member_rows; returns where
// member_rows lives.
lowp_status check_group_input(const lowp_tensor* x, int64_t n, const int64_t* member_rows, MemorySpace* rows_space) {
  LOWP_TRY(check_tensor(x, "x", /*allow_empty_rows=*/true));
  if (n < 1 || n > kMaxMembers)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "num_tensors is %lld; must be in [1, 2^40]", ll(n));
  LOWP_TRY(check_element_count(n, x->cols, "num_tensors x cols (the columnwise amax array)"));
  LOWP_TRY(check_not_null(member_rows, "member_rows"));
  LOWP_TRY(check_aligned(member_rows, 8, "member_rows"));
  return check_same_space({{member_rows, "member_rows"}}, rows_space);
}

// The multiple every member's rows must have (nvfp4_group_row_multiple) and why, for messages.
struct RowMultiple {
  int64_t value;
  const char* why;
};

// cfg->group_row_multiple checked, combined with the copy's own need (`columnwise`: 16, for `why`).
lowp_status group_row_multiple(const lowp_quant_config& c, bool columnwise, const char* why, RowMultiple* out) {
  const int d = c.group_row_multiple;
  if (d != 0 && d != 16 && d != 32 && d != 64 && d != 128)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->group_row_multiple is %d; must be 0 (no promise), 16, 32, 64 or 128", d);
  const int64_t value = nvfp4_group_row_multiple(columnwise, d);
  *out = {value, value == d ? "cfg->group_row_multiple" : why};
  return LOWP_SUCCESS;
}

// Host member_rows: every member valid (group_layout_rules.h) and together they cover x exactly.
lowp_status check_host_member_rows(const int64_t* rows, int64_t n, int64_t total, const RowMultiple& mult) {
  int64_t start = 0;
  for (int64_t t = 0; t < n; ++t) {
    const int64_t m = rows[t];
    if (!member_rows_ok(m, start, total, mult.value)) {
      if (m < 0) return fail(LOWP_ERROR_INVALID_ARGUMENT, "member_rows[%lld] is %lld; must be >= 0", ll(t), ll(m));
      if (m > total - start)
        return fail(LOWP_ERROR_INVALID_ARGUMENT,
                    "member_rows[%lld] is %lld: members 0..%lld have more rows than x->rows (%lld); the "
                    "members must cover x exactly",
                    ll(t), ll(m), ll(t), ll(total));
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "member_rows[%lld] is %lld; %s needs every member's rows %% %lld == 0",
                  ll(t), ll(m), mult.why, ll(mult.value));
    }
    start += m;
  }
  if (start != total)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "member_rows sum to %lld but x->rows is %lld; the members must cover x exactly", ll(start), ll(total));
  return LOWP_SUCCESS;
}

// Backend of a grouped call (data space), its workspace, and host member_rows checked up front.
lowp_status check_group_backend(MemorySpace data, MemorySpace rows_space, const lowp_tensor& x, int64_t n,
                                const int64_t* member_rows, const RowMultiple& mult, const void* ws, size_t ws_bytes) {
  LOWP_TRY(check_grouped_backend(data, rows_space == MemorySpace::kDevice, "member_rows is", n, ws, ws_bytes));
  if (data == MemorySpace::kDevice) {
    MemorySpace ws_space;
    LOWP_TRY(check_same_space({{x.data, "x->data"}, {ws, "workspace"}}, &ws_space));
  }
  if (rows_space == MemorySpace::kHost)
    LOWP_TRY(check_host_member_rows(member_rows, n, x.rows, mult));
  return LOWP_SUCCESS;
}

// Rows of a group's scale arrays at most, over every split of `units` rows into n members when
// each member's array has roundup(its rows, g) rows: the most members get a partial group each.
// With n' = min(n, units) non-empty members, sum roundup(m_t, g) <= g * (floor((units - n') / g) + n'),
// and a split reaches it (n' - 1 members of one row each if that many exist, the rest in one).
uint64_t padded_rows_bound(int64_t units, int64_t n, int64_t g) {
  const int64_t nonempty = std::min(n, units);
  return static_cast<uint64_t>(g) * static_cast<uint64_t>((units - nonempty) / g + nonempty);
}

}  // namespace

lowp_status check_config(const lowp_quant_config& c) {
  if (c.block_2d)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->block_2d: 16x16 block scales belong to the NVFP4 per-tensor recipe (weights), not to "
                "NVFP4 per-token; set it to 0");
  if (c.amax_estimation)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "cfg->amax_estimation applies to the NVFP4 per-tensor recipe only (per-token column amaxes "
                "are always exact); set it to 0");
  return nvfp4_api::check_common_config(c);
}

lowp_status quantize(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config* cfg,
                     void* stream) {
  bool want_row, want_col;
  LOWP_TRY(nvfp4_api::check_outputs(x, q, &want_row, &want_col));
  const lowp_quant_config c = nvfp4_api::resolve_config(cfg);
  LOWP_TRY(check_config(c));
  const Nvfp4PerTokenArgs a = make_args(x, q, c, want_row, want_col);
  MemorySpace space;
  LOWP_TRY(nvfp4_api::quantize_space(x.data, a.row, a.col, a.rng_state, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_per_token_quantize(a, stream)
                                         : cpu::nvfp4_per_token_quantize(a));
  return succeed();
}

lowp_status dequantize(const lowp_quantized_tensor& q, lowp_orientation which, const lowp_tensor& out,
                       void* stream) {
  Nvfp4DequantizeArgs a;
  MemorySpace space;
  LOWP_TRY(nvfp4_api::dequantize_args(q, which, out, &a, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_per_token_dequantize(a, stream)
                                         : cpu::nvfp4_per_token_dequantize(a));
  return succeed();
}

lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out) {
  LOWP_TRY(nvfp4_api::sizes(rows, cols, out));  // codes and scales as per-tensor
  out->amax_bytes[0] = sizeof(float) * static_cast<size_t>(rows);
  if (out->data_bytes[1] != 0) out->amax_bytes[1] = sizeof(float) * static_cast<size_t>(cols);
  return succeed();
}

}  // namespace lowp::nvfp4_per_token_api

using namespace lowp;
using namespace lowp::nvfp4_per_token_api;

extern "C" {

lowp_status lowp_nvfp4_amax_per_token(const lowp_tensor* x, float* row_amax, float* col_amax,
                                      const lowp_quant_config* cfg, void* stream) {
  LOWP_TRY(check_tensor(x, "x"));
  Nvfp4PerTokenAmaxArgs a;
  LOWP_TRY(check_amax_call(*x, row_amax, col_amax, cfg, &a));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {row_amax, "row_amax"}, {col_amax, "col_amax"}}, &space));
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_per_token_amax(a, stream) : cpu::nvfp4_per_token_amax(a));
  return succeed();
}

lowp_status lowp_nvfp4_grouped_quantize(const lowp_tensor* x, int64_t num_tensors, const int64_t* member_rows,
                                        lowp_quantized_tensor* q, const lowp_quant_config* cfg, void* workspace,
                                        size_t workspace_bytes, void* stream) {
  MemorySpace rows_space;
  LOWP_TRY(check_group_input(x, num_tensors, member_rows, &rows_space));
  LOWP_TRY(check_not_null(q, "q"));
  if (q->dtype != LOWP_DTYPE_E2M1 || q->scaling != LOWP_SCALING_NVFP4_PER_TOKEN)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "q->dtype is %d and q->scaling %d; grouped NVFP4 quantize needs LOWP_DTYPE_E2M1 with "
                "LOWP_SCALING_NVFP4_PER_TOKEN",
                static_cast<int>(q->dtype), static_cast<int>(q->scaling));
  bool want_row, want_col;
  LOWP_TRY(nvfp4_api::check_outputs(*x, *q, &want_row, &want_col));
  const lowp_quant_config c = nvfp4_api::resolve_config(cfg);
  LOWP_TRY(check_config(c));
  Nvfp4GroupedArgs a{};
  a.t = make_args(*x, *q, c, want_row, want_col);
  MemorySpace space;
  LOWP_TRY(nvfp4_api::quantize_space(x->data, a.t.row, a.t.col, a.t.rng_state, &space));
  RowMultiple mult;
  LOWP_TRY(group_row_multiple(c, want_col, "the columnwise copy", &mult));
  LOWP_TRY(check_group_backend(space, rows_space, *x, num_tensors, member_rows, mult, workspace, workspace_bytes));
  a.group = {num_tensors, member_rows, rows_space == MemorySpace::kDevice, workspace, mult.value};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_grouped_quantize(a, stream) : cpu::nvfp4_grouped_quantize(a));
  return succeed();
}

lowp_status lowp_nvfp4_grouped_amax(const lowp_tensor* x, int64_t num_tensors, const int64_t* member_rows,
                                    float* row_amax, float* col_amax, const lowp_quant_config* cfg, void* workspace,
                                    size_t workspace_bytes, void* stream) {
  MemorySpace rows_space;
  LOWP_TRY(check_group_input(x, num_tensors, member_rows, &rows_space));
  Nvfp4GroupedAmaxArgs a{};
  LOWP_TRY(check_amax_call(*x, row_amax, col_amax, cfg, &a.t));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {row_amax, "row_amax"}, {col_amax, "col_amax"}}, &space));
  RowMultiple mult;
  LOWP_TRY(group_row_multiple(nvfp4_api::resolve_config(cfg), col_amax != nullptr && a.t.rht, "col_amax with cfg->rht",
                              &mult));
  LOWP_TRY(check_group_backend(space, rows_space, *x, num_tensors, member_rows, mult, workspace, workspace_bytes));
  a.group = {num_tensors, member_rows, rows_space == MemorySpace::kDevice, workspace, mult.value};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_grouped_amax(a, stream) : cpu::nvfp4_grouped_amax(a));
  return succeed();
}

lowp_status lowp_nvfp4_grouped_sizes(int64_t num_tensors, int64_t total_rows, int64_t cols,
                                     lowp_quantized_sizes* sizes) {
  LOWP_TRY(check_not_null(sizes, "sizes"));
  if (num_tensors < 1 || num_tensors > kMaxMembers)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "num_tensors is %lld; must be in [1, 2^40]", ll(num_tensors));
  if (total_rows < 0 || cols < 1)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "total_rows x cols is %lld x %lld; need total_rows >= 0, cols >= 1",
                ll(total_rows), ll(cols));
  LOWP_TRY(check_element_count(total_rows, cols, "total_rows x cols"));
  LOWP_TRY(check_element_count(num_tensors, cols, "num_tensors x cols (the columnwise amax array)"));
  if (cols % kBlock != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "cols (K) is %lld; NVFP4 needs K %% 16 == 0 (16-element blocks along K)",
                ll(cols));
  lowp_quantized_sizes s{};
  const size_t codes = static_cast<size_t>(total_rows) * static_cast<size_t>(cols) / 2;
  s.data_bytes[0] = codes;
  s.scale_inv_bytes[0] = padded_rows_bound(total_rows, num_tensors, 128) *
                         static_cast<uint64_t>(num::scale_cols_padded(cols / kBlock));
  s.amax_bytes[0] = sizeof(float) * static_cast<size_t>(total_rows);
  if (total_rows % kBlock == 0) {  // else no columnwise copy can be made: its sizes stay 0
    s.data_bytes[1] = codes;
    s.scale_inv_bytes[1] = static_cast<uint64_t>(num::scale_rows_padded(cols)) *
                           padded_rows_bound(total_rows / kBlock, num_tensors, 4);
    s.amax_bytes[1] = sizeof(float) * static_cast<size_t>(num_tensors) * static_cast<size_t>(cols);
  }
  *sizes = s;
  return succeed();
}

}  // extern "C"
