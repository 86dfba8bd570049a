// CPU reference for the grouped FP8 operations: each member through the single-tensor code, so
// a member's bytes are by construction those of quantizing it alone.
#include "core/error.h"
#include "core/backends.h"

namespace lowp::cpu {
namespace {

Fp8QuantizeArgs member_args(const GroupedFp8Args& a, int64_t t) {
  const GroupLayout& L = a.layout;
  const int64_t o = L.offsets[t];
  Fp8QuantizeArgs m{};
  m.x = {static_cast<const uint8_t*>(a.x) + o * dtype_bytes(a.in_dtype), a.in_dtype, L.first[t], L.last[t]};
  m.act_input = a.act_input ? static_cast<const uint8_t*>(a.act_input) + o * dtype_bytes(a.in_dtype) : nullptr;
  m.act = a.act;
  m.out_dtype = a.out_dtype;
  m.scaling = a.scaling;
  m.amax_epsilon = a.amax_epsilon;
  m.power_of_two_scale = a.power_of_two_scale;
  m.row_codes = a.row_codes ? a.row_codes + o : nullptr;
  m.col_codes = a.col_codes ? a.col_codes + o : nullptr;
  m.scale = a.scale + t;
  m.scale_inv = a.scale_inv + t;
  m.amax = a.amax + t * a.amax_stride;
  return m;
}

}  // namespace

lowp_status grouped_fp8_quantize(const GroupedFp8Args& a) {
  for (int64_t t = 0; t < a.layout.n; ++t) LOWP_TRY(fp8_quantize(member_args(a, t)));
  return LOWP_SUCCESS;
}

lowp_status grouped_amax(const GroupedFp8Args& a) {
  for (int64_t t = 0; t < a.layout.n; ++t) {
    const Fp8QuantizeArgs m = member_args(a, t);
    LOWP_TRY(amax(m.x, m.amax));
  }
  return LOWP_SUCCESS;
}

lowp_status grouped_fp8_dequantize(const GroupedDequantizeArgs& a) {
  const GroupLayout& L = a.layout;
  for (int64_t t = 0; t < L.n; ++t) {
    const int64_t o = L.offsets[t];
    const int64_t rows = a.columnwise ? L.last[t] : L.first[t];
    const int64_t cols = a.columnwise ? L.first[t] : L.last[t];
    const Fp8DequantizeArgs m{a.codes + o, a.code_dtype, rows, cols, a.scale_inv + t, false,
                              static_cast<uint8_t*>(a.out) + o * dtype_bytes(a.out_dtype), a.out_dtype};
    LOWP_TRY(fp8_dequantize(m));
  }
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
