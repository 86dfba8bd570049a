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
// it ends inside the tensor and, when a columnwise copy is made, rows % 16 == 0. The group is
// valid when every member is and the last one ends exactly at `total`; when only that fails,
// the last member is the one reported.
LOWP_HD bool member_rows_ok(int64_t rows, int64_t start, int64_t total, bool multiple_of_16) {
  return rows >= 0 && rows <= total - start && (!multiple_of_16 || rows % 16 == 0);
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
