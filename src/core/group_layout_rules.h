// The grouped-tensor layout rules (lowp.h: lowp_grouped_tensor; lowp_nvfp4_grouped_quantize),
// shared by the host validation and the device-side prep kernels so both reject exactly the
// same layouts.
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

}  // namespace lowp
