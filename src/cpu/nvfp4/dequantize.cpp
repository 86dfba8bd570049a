// CPU reference of the NVFP4 dequantize (numerics §3): x^ = e2m1(q) * (float(s) * A * (1/6E)),
// scales read in the tensor's layout. A is the orientation's one amax (per-tensor), max(amax of
// the row, 1e-12) as the per-token encoder used it (§5), or the row's raw amax (row-scaled, §5b).
#include "core/backends.h"
#include "cpu/elements.h"
#include "numerics/nvfp4_scaling.h"
#include "cpu/nvfp4/scales.h"
#include "cpu/parallel.h"

namespace lowp::cpu {

lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs& a) {
  const ScaleIndex scale_at(a.cols / 16, a.scale_layout);
  const float inv_outer = num::nvfp4_outer_reciprocal(a.outer_max);
  parallel_for(a.rows, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float amax = nvfp4_dequantize_amax(a, r);
      for (int64_t c = 0; c < a.cols; ++c) {
        const uint8_t byte = a.codes[r * (a.cols / 2) + c / 2];
        const uint8_t code = static_cast<uint8_t>((c & 1) ? byte >> 4 : byte & 0xF);
        const uint8_t s = a.scales[scale_at(r, c / 16)];
        store_f32(a.out, a.out_dtype, r * a.cols + c, num::canonical_nan(num::nvfp4_dequantize(code, s, amax, inv_outer)));
      }
    }
  });
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
