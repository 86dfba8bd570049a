// CPU reference of the standalone compact -> swizzled NVFP4 scale copy (numerics §6).
#include <cstring>

#include "core/backends.h"
#include "cpu/nvfp4/scales.h"

namespace lowp::cpu {

lowp_status nvfp4_swizzle_scales(const Nvfp4SwizzleArgs& a) {
  const ScaleIndex swizzled_at(a.blocks, LOWP_SCALE_LAYOUT_SWIZZLED);
  const int64_t padded_cols = swizzled_at.padded_cols;
  std::memset(a.swizzled, 0, static_cast<size_t>(scale_bytes(a.rows, a.blocks)));  // padding is zero
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.blocks; ++j) a.swizzled[swizzled_at(i, j)] = a.compact[i * padded_cols + j];
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
