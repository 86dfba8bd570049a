// Scale-factor layouts (SPEC §6): padded compact sizes and the swizzled byte offset used by
// cuBLASLt/CUTLASS block-scaled GEMM operands.
#pragma once
#include "host_device.h"

namespace lowp::num {

LOWP_HD int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Compact scale array of R rows and B blocks per row: [roundup(R,128)][roundup(B,4)], zero padded.
LOWP_HD int64_t scale_rows_padded(int64_t rows) { return round_up(rows, 128); }
LOWP_HD int64_t scale_cols_padded(int64_t blocks) { return round_up(blocks, 4); }

// Byte offset of compact entry (i, j) in the swizzled layout, C = padded compact columns.
LOWP_HD int64_t swizzled_offset(int64_t i, int64_t j, int64_t padded_cols) {
  return ((i / 128) * (padded_cols / 4) + j / 4) * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + (j % 4);
}

}  // namespace lowp::num
