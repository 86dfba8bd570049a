// C entry points of grouped per-row NVFP4 (per-token, numerics §5 "Grouped", and row-scaled, §5b):
// N members split along the rows of one tensor, quantized (lowp_nvfp4_grouped_quantize) or their
// K1 alone (lowp_nvfp4_grouped_amax, _amax_per_row) in one call, and the buffer sizes of every
// split. The recipe's rules (recipes/nvfp4_per_token.h) apply to the whole tensor; the group's own
// are here.
// Every rule is checked before any memory is touched (numerics §9); host member_rows are checked here,
// device ones on the device (cuda/group/nvfp4_prep.cu) with the same rules.
#include <algorithm>

#include "core/aliasing.h"
#include "core/backends.h"
#include "core/entry.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/group_layout_rules.h"
#include "core/growable.h"
#include "core/validate.h"
#include "recipes/nvfp4_per_token.h"
#include "recipes/nvfp4_rules.h"

namespace lowp {
namespace {

constexpr int64_t kBlock = 16;
constexpr int64_t kMaxMembers = int64_t{1} << 40;  // as lowp_grouped_workspace_size

long long ll(int64_t v) { return static_cast<long long>(v); }

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

// Host member_rows: every member valid and together they cover x exactly, by the host's member
// walk (device member_rows: the same rule on the device, cuda/group/nvfp4_prep.cu).
lowp_status check_host_member_rows(const int64_t* rows, int64_t n, int64_t total, const RowMultiple& mult) {
  int64_t start;
  const int64_t t = first_bad_member(
      n, [&](int64_t u) { return rows[u]; },
      [&](int64_t u, int64_t before) { return member_rows_ok(rows[u], before, total, mult.value); }, &start);
  if (t == n) {
    if (start == total) return LOWP_SUCCESS;
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "member_rows sum to %lld but x->rows is %lld; the members must cover x exactly", ll(start), ll(total));
  }
  const int64_t m = rows[t];
  if (m < 0) return fail(LOWP_ERROR_INVALID_ARGUMENT, "member_rows[%lld] is %lld; must be >= 0", ll(t), ll(m));
  if (m > total - start)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "member_rows[%lld] is %lld: members 0..%lld have more rows than x->rows (%lld); the "
                "members must cover x exactly",
                ll(t), ll(m), ll(t), ll(total));
  return fail(LOWP_ERROR_INVALID_ARGUMENT, "member_rows[%lld] is %lld; %s needs every member's rows %% %lld == 0",
              ll(t), ll(m), mult.why, ll(mult.value));
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

// Bytes of a part's scale arrays that the call writes, for the aliasing rule: exact for host
// member_rows (checked by now), and for device ones the least any split writes (all rows in one
// member: every split's padded sum is at least that).
struct ScaleBytes {
  size_t row, col;
};
ScaleBytes written_scale_bytes(const lowp_tensor& x, int64_t n, const int64_t* member_rows, bool rows_on_host) {
  const int64_t k = x.cols;
  if (!rows_on_host) {
    return {static_cast<size_t>(nvfp4_member_row_scale_bytes(x.rows, k)),
            static_cast<size_t>(nvfp4_member_col_scale_bytes(x.rows, k))};
  }
  ScaleBytes b{0, 0};
  for (int64_t t = 0; t < n; ++t) {
    b.row += static_cast<size_t>(nvfp4_member_row_scale_bytes(member_rows[t], k));
    b.col += static_cast<size_t>(nvfp4_member_col_scale_bytes(member_rows[t], k));
  }
  return b;
}

lowp_status grouped_quantize(const lowp_tensor* x, int64_t num_tensors, const int64_t* member_rows,
                             lowp_quantized_tensor* caller_q, const lowp_quant_config* cfg, void* workspace,
                             size_t workspace_bytes, void* stream) {
  MemorySpace rows_space;
  LOWP_TRY(check_group_input(x, num_tensors, member_rows, &rows_space));
  LOWP_TRY(check_not_null(caller_q, "q"));
  lowp_quantized_tensor local;
  LOWP_TRY(read_quantized_tensor(caller_q, &local));
  const lowp_quantized_tensor* q = &local;
  if (raw(q->dtype) != LOWP_DTYPE_E2M1 || !is_nvfp4_per_row(raw(q->scaling)))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "q->dtype is %s and q->scaling %s; grouped NVFP4 quantize needs LOWP_DTYPE_E2M1 with "
                "LOWP_SCALING_NVFP4_PER_TOKEN or LOWP_SCALING_NVFP4_ROW_SCALED",
                enum_text(q->dtype).text, enum_text(q->scaling).text);
  LOWP_TRY(check_nvfp4_outputs(*x, *q));
  lowp_quant_config c;
  LOWP_TRY(read_config(cfg, &c));
  LOWP_TRY(check_nvfp4_per_row_config(c, q->scaling));
  LOWP_TRY(check_outer_max_recordable(caller_q, c));
  Nvfp4GroupedArgs a{};
  a.t = nvfp4_per_row_args(*x, *q, c);
  MemorySpace space;
  LOWP_TRY(nvfp4_quantize_space(x->data, a.t.row, a.t.col, a.t.rng_state, &space));
  RowMultiple mult;
  LOWP_TRY(group_row_multiple(c, q->columnwise.data != nullptr, "the columnwise copy", &mult));
  LOWP_TRY(check_group_backend(space, rows_space, *x, num_tensors, member_rows, mult, workspace, workspace_bytes));
  const bool row = q->rowwise.data != nullptr, col = q->columnwise.data != nullptr;
  const size_t codes = static_cast<size_t>(x->rows) * static_cast<size_t>(x->cols) / 2;
  const ScaleBytes scales = written_scale_bytes(*x, num_tensors, member_rows, rows_space == MemorySpace::kHost);
  LOWP_TRY(check_no_overlap({{x->data, dense_bytes(*x), "x->data", false},
                             {member_rows, sizeof(int64_t) * static_cast<size_t>(num_tensors), "member_rows", false},
                             {a.t.rng_state, 2 * sizeof(uint64_t), "cfg->rng_state", false},
                             {q->rowwise.data, codes, "q->rowwise.data", true},
                             {q->rowwise.scale_inv, row ? scales.row : 0, "q->rowwise.scale_inv", true},
                             {q->rowwise.amax, row ? float_bytes(x->rows) : 0, "q->rowwise.amax", !c.amax_given},
                             {q->columnwise.data, codes, "q->columnwise.data", true},
                             {q->columnwise.scale_inv, col ? scales.col : 0, "q->columnwise.scale_inv", true},
                             {q->columnwise.amax, col ? float_bytes(num_tensors * x->cols) : 0, "q->columnwise.amax",
                              !c.amax_given},
                             {workspace, grouped_workspace_extent(space, num_tensors), "workspace", true}}));
  a.group = {num_tensors, member_rows, rows_space == MemorySpace::kDevice, workspace, mult.value};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_grouped_quantize(a, stream) : cpu::nvfp4_grouped_quantize(a));
  record_outer_max(caller_q, c);
  return succeed();
}

lowp_status grouped_amax(const lowp_tensor* x, int scaling, int64_t num_tensors, const int64_t* member_rows,
                         float* row_amax, float* col_amax, const lowp_quant_config* cfg, void* workspace,
                         size_t workspace_bytes, void* stream) {
  MemorySpace rows_space;
  LOWP_TRY(check_group_input(x, num_tensors, member_rows, &rows_space));
  lowp_quant_config c;
  LOWP_TRY(read_config(cfg, &c));
  Nvfp4GroupedAmaxArgs a{};
  LOWP_TRY(check_nvfp4_amax_call(*x, scaling, row_amax, col_amax, c, &a.t));
  MemorySpace space;
  LOWP_TRY(check_same_space({{x->data, "x->data"}, {row_amax, "row_amax"}, {col_amax, "col_amax"}}, &space));
  RowMultiple mult;
  LOWP_TRY(group_row_multiple(c, col_amax != nullptr && a.t.rht, "col_amax with cfg->rht", &mult));
  LOWP_TRY(check_group_backend(space, rows_space, *x, num_tensors, member_rows, mult, workspace, workspace_bytes));
  LOWP_TRY(check_no_overlap({{x->data, dense_bytes(*x), "x->data", false},
                             {member_rows, sizeof(int64_t) * static_cast<size_t>(num_tensors), "member_rows", false},
                             {row_amax, float_bytes(x->rows), "row_amax", true},
                             {col_amax, float_bytes(num_tensors * x->cols), "col_amax", true},
                             {workspace, grouped_workspace_extent(space, num_tensors), "workspace", true}}));
  a.group = {num_tensors, member_rows, rows_space == MemorySpace::kDevice, workspace, mult.value};
  LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_grouped_amax(a, stream) : cpu::nvfp4_grouped_amax(a));
  return succeed();
}

}  // namespace
}  // namespace lowp

using namespace lowp;

extern "C" {

lowp_status lowp_nvfp4_grouped_quantize(const lowp_tensor* x, int64_t num_tensors, const int64_t* member_rows,
                                        lowp_quantized_tensor* q, const lowp_quant_config* cfg, void* workspace,
                                        size_t workspace_bytes, void* stream) {
  return guarded("lowp_nvfp4_grouped_quantize", [&] {
    return grouped_quantize(x, num_tensors, member_rows, q, cfg, workspace, workspace_bytes, stream);
  });
}

lowp_status lowp_nvfp4_grouped_amax(const lowp_tensor* x, int64_t num_tensors, const int64_t* member_rows,
                                    float* row_amax, float* col_amax, const lowp_quant_config* cfg, void* workspace,
                                    size_t workspace_bytes, void* stream) {
  return guarded("lowp_nvfp4_grouped_amax", [&] {
    return grouped_amax(x, LOWP_SCALING_NVFP4_PER_TOKEN, num_tensors, member_rows, row_amax, col_amax, cfg, workspace,
                        workspace_bytes, stream);
  });
}

lowp_status lowp_nvfp4_grouped_amax_per_row(const lowp_tensor* x, lowp_scaling scaling, int64_t num_tensors,
                                            const int64_t* member_rows, float* row_amax, float* col_amax,
                                            const lowp_quant_config* cfg, void* workspace, size_t workspace_bytes,
                                            void* stream) {
  return guarded("lowp_nvfp4_grouped_amax_per_row", [&] {
    return grouped_amax(x, raw(scaling), num_tensors, member_rows, row_amax, col_amax, cfg, workspace,
                        workspace_bytes, stream);
  });
}

lowp_status lowp_nvfp4_grouped_sizes(int64_t num_tensors, int64_t total_rows, int64_t cols,
                                     lowp_quantized_sizes* sizes) {
  return guarded("lowp_nvfp4_grouped_sizes", [&] {
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
  });
}

}  // extern "C"
