// CPU reference of the NVFP4 per-tensor dequantize (SPEC §3): x^ = e2m1(q) * (float(s) * A / 2688),
// scales read in the tensor's layout.
#include "common/backends.h"
#include "elements.h"
#include "numerics/nvfp4_scaling.h"
#include "nvfp4_scales.h"
#include "parallel.h"

namespace lowp::cpu {

lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs& a) {
  const float amax = *a.amax;
  const ScaleIndex scale_at(a.cols / 16, a.scale_layout);
  parallel_for(a.rows, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t c = 0; c < a.cols; ++c) {
        const uint8_t byte = a.codes[r * (a.cols / 2) + c / 2];
        const uint8_t code = static_cast<uint8_t>((c & 1) ? byte >> 4 : byte & 0xF);
        const uint8_t s = a.scales[scale_at(r, c / 16)];
        store_f32(a.out, a.out_dtype, r * a.cols + c, num::canonical_nan(num::nvfp4_dequantize(code, s, amax)));
      }
    }
  });
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
