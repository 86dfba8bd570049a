// The grouped-tensor layout rules (lowp.h: lowp_grouped_tensor; lowp_nvfp4_grouped_quantize),
// shared by the host validation and the device-side prep kernels so both reject exactly the
// same layouts, and the host's walk over a group's members (the device's: cuda/group/
// member_scan.cuh, the same walk over a block).
#pragma once
#include <cstdint>

#include "numerics/host_device.h"
#include "numerics/swizzle.h"

namespace lowp {

// Member (f x l at element o) has non-negative dims and offset and lies inside total elements.
LOWP_HD bool member_in_bounds(int64_t f, int64_t l, int64_t o, int64_t total) {
  return f >= 0 && l >= 0 && o >= 0 && o <= total && (f == 0 || l <= (total - o) / f);
}

// A member starting at `o` does not overlap an in-bounds predecessor (pf x pl at po).
LOWP_HD bool member_after(int64_t o, int64_t pf, int64_t pl, int64_t po) { return o >= po + pf * pl; }

// Member t of a group of (first, last, offsets) arrays in `total` elements is valid: in bounds,
// and after its predecessor when that one is valid (a bad predecessor is reported on its own).
LOWP_HD bool group_member_ok(const int64_t* first, const int64_t* last, const int64_t* offsets, int64_t t,
                             int64_t total) {
  if (!member_in_bounds(first[t], last[t], offsets[t], total)) return false;
  if (t == 0) return true;
  const int64_t pf = first[t - 1], pl = last[t - 1], po = offsets[t - 1];
  return !member_in_bounds(pf, pl, po, total) || member_after(offsets[t], pf, pl, po);
}

// NVFP4 grouped per-token: member t has `rows` rows starting at row `start` (the sum of the
// earlier members' rows, itself <= total) of a `total`-row tensor. It is valid when rows >= 0,
// it ends inside the tensor and rows % multiple == 0 (nvfp4_group_row_multiple). The group is
// valid when every member is and the last one ends exactly at `total`; when only that fails,
// the last member is the one reported.
LOWP_HD bool member_rows_ok(int64_t rows, int64_t start, int64_t total, int64_t multiple) {
  return rows >= 0 && rows <= total - start && rows % multiple == 0;
}

// The multiple every member's rows must have: 16 when a columnwise copy (or RHT column amax)
// is made, and the caller's cfg->group_row_multiple when it declares one (0: none; else 16, 32,
// 64 or 128, so the larger of the two is a multiple of both).
LOWP_HD int64_t nvfp4_group_row_multiple(bool columnwise, int declared) {
  const int64_t need = columnwise ? 16 : 1;
  return declared > need ? declared : need;
}

// Bytes of member t's own block-scale arrays in the grouped NVFP4 outputs (m rows, K cols, the
// arrays of all members back to back): rowwise [roundup(m,128)][roundup(K/16,4)], columnwise
// [roundup(K,128)][roundup(m/16,4)]. An empty member occupies 0 bytes in both.
LOWP_HD int64_t nvfp4_member_row_scale_bytes(int64_t m, int64_t k) {
  return num::scale_rows_padded(m) * num::scale_cols_padded(k / 16);
}
LOWP_HD int64_t nvfp4_member_col_scale_bytes(int64_t m, int64_t k) {
  return num::scale_rows_padded(k) * num::scale_cols_padded(m / 16);
}

// The host's walk over a group (layout arrays in host memory, checked before any work): members
// in order, each checked by ok(t, before) with `before` the sum of count(u) over the members
// u < t. Returns the first member that breaks the rule (n: none); *sum gets the sum over the
// members before it (all of them when none does).
template <typename Count, typename Ok>
int64_t first_bad_member(int64_t n, Count count, Ok ok, int64_t* sum) {
  int64_t before = 0;
  int64_t t = 0;
  for (; t < n && ok(t, before); ++t) before += count(t);
  *sum = before;
  return t;
}

}  // namespace lowp
