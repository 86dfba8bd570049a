// Scale-factor layouts (numerics §6): padded compact sizes and the swizzled byte offset used by
// cuBLASLt/CUTLASS block-scaled GEMM operands.
#pragma once
#include "host_device.h"

namespace lowp::num {

LOWP_HD int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Compact scale array of R rows and B blocks per row: [roundup(R,128)][roundup(B,4)], zero padded.
LOWP_HD int64_t scale_rows_padded(int64_t rows) { return round_up(rows, 128); }
LOWP_HD int64_t scale_cols_padded(int64_t blocks) { return round_up(blocks, 4); }

// The swizzled layout in parts: 512-byte units of 128 rows x 4 columns, unit (i / 128, j / 4) at
// ((i / 128) * (C / 4) + j / 4) * 512, C = padded compact columns; row r = i % 128 of a unit at
// (r % 32) * 16 + (r / 32) * 4, column j % 4 next to it.
LOWP_HD int64_t swizzled_unit_offset(int64_t i128, int64_t j4, int64_t padded_cols) {
  return (i128 * (padded_cols / 4) + j4) * 512;
}
LOWP_HD int64_t swizzled_row_offset(int64_t r) { return (r % 32) * 16 + (r / 32) * 4; }

// Byte offset of compact entry (i, j) in the swizzled layout.
LOWP_HD int64_t swizzled_offset(int64_t i, int64_t j, int64_t padded_cols) {
  return swizzled_unit_offset(i / 128, j / 4, padded_cols) + swizzled_row_offset(i % 128) + (j % 4);
}

// Byte offset of scale entry (i, j) in the compact or the swizzled layout.
LOWP_HD int64_t scale_offset(int64_t i, int64_t j, int64_t padded_cols, bool swizzled) {
  return swizzled ? swizzled_offset(i, j, padded_cols) : i * padded_cols + j;
}

}  // namespace lowp::num
