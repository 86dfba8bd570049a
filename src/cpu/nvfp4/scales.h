// Where block scale (i, j) of an NVFP4 orientation lives in its scale array (numerics §6), for the
// compact and the swizzled layout alike. Both arrays are [scale_rows_padded(R)][C] bytes with
// C = scale_cols_padded(B).
#pragma once
#include <cstdint>

#include "lowp/lowp.h"
#include "numerics/swizzle.h"

namespace lowp::cpu {

struct ScaleIndex {
  int64_t padded_cols;  // C
  bool swizzled;

  ScaleIndex(int64_t blocks, lowp_scale_layout layout)
      : padded_cols(num::scale_cols_padded(blocks)), swizzled(layout == LOWP_SCALE_LAYOUT_SWIZZLED) {}

  int64_t operator()(int64_t i, int64_t j) const { return num::scale_offset(i, j, padded_cols, swizzled); }
};

// Bytes of one orientation's scale array (either layout).
inline int64_t scale_bytes(int64_t rows, int64_t blocks) {
  return num::scale_rows_padded(rows) * num::scale_cols_padded(blocks);
}

}  // namespace lowp::cpu
