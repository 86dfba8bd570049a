// CPU reference of the NVFP4 dequantize (SPEC §3): x^ = e2m1(q) * (float(s) * A / 2688), scales
// read in the tensor's layout. Per-tensor: A is the orientation's one amax; per-token: A is
// max(amax of the row, 1e-12), as the encoder used it (SPEC §5).
#include "core/backends.h"
#include "cpu/elements.h"
#include "numerics/nvfp4_scaling.h"
#include "cpu/nvfp4/scales.h"
#include "cpu/parallel.h"

namespace lowp::cpu {
namespace {

// value(code, s, r) is element (r, c)'s dequantized value for code q and block scale s.
template <typename Value>
void dequantize_rows(const Nvfp4DequantizeArgs& a, Value value) {
  const ScaleIndex scale_at(a.cols / 16, a.scale_layout);
  parallel_for(a.rows, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t c = 0; c < a.cols; ++c) {
        const uint8_t byte = a.codes[r * (a.cols / 2) + c / 2];
        const uint8_t code = static_cast<uint8_t>((c & 1) ? byte >> 4 : byte & 0xF);
        const uint8_t s = a.scales[scale_at(r, c / 16)];
        store_f32(a.out, a.out_dtype, r * a.cols + c, num::canonical_nan(value(code, s, r)));
      }
    }
  });
}

}  // namespace

lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs& a) {
  const float amax = *a.amax;
  dequantize_rows(a, [&](uint8_t code, uint8_t s, int64_t) { return num::nvfp4_dequantize(code, s, amax); });
  return LOWP_SUCCESS;
}

lowp_status nvfp4_per_token_dequantize(const Nvfp4DequantizeArgs& a) {
  dequantize_rows(a, [&](uint8_t code, uint8_t s, int64_t r) {
    return num::nvfp4_dequantize_per_token(code, s, a.amax[r]);
  });
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
