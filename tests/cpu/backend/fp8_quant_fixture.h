// Host buffers of one FP8 quantize call, poisoned so tests can tell written from untouched.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"
#include "lowp/lowp.h"

namespace lowp_test {

struct Fp8Quant {
  std::vector<uint8_t> row, col;
  std::vector<float> row_si, row_amax, col_si, col_amax;
  float scale, scale_inv, amax;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;

  Fp8Quant(lowp_dtype dt, lowp_scaling s, int64_t rows, int64_t cols, bool want_row = true,
           bool want_col = true)
      : row(rows * cols, kPoison), col(rows * cols, kPoison), row_si(rows), row_amax(rows),
        col_si(cols), col_amax(cols) {
    for (auto* v : {&row_si, &row_amax, &col_si, &col_amax}) poison(v->data(), v->size() * 4);
    for (float* f : {&scale, &scale_inv, &amax}) poison(f, 4);
    q.dtype = dt;
    q.scaling = s;
    q.rows = rows;
    q.cols = cols;
    // Side buffers are always set: an orientation that is not requested must leave them alone.
    q.rowwise = {want_row ? row.data() : nullptr, row_si.data(), row_amax.data()};
    q.columnwise = {want_col ? col.data() : nullptr, col_si.data(), col_amax.data()};
    q.scale = &scale;
    q.scale_inv = &scale_inv;
    q.amax = &amax;
  }
  Fp8Quant(const Fp8Quant&) = delete;
  Fp8Quant& operator=(const Fp8Quant&) = delete;

  // Quantizes x (given as floats, encoded to `in`) into this tensor.
  lowp_status run(const std::vector<float>& x, lowp_dtype in = LOWP_DTYPE_FLOAT32,
                  const lowp_quant_config* cfg = nullptr) {
    std::vector<uint8_t> bytes = encode(x, in);
    lowp_tensor t{bytes.data(), in, q.rows, q.cols};
    return lowp_quantize(&t, &q, cfg, nullptr);
  }
};

inline uint32_t bits(float x) { return f32_bits(x); }

// Independent FP8 decoders (numerics §1 tables). NaN codes give the quiet NaN 0x7FC00000.
inline float e4m3_value(uint8_t b) {
  const int e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return f32_from_bits(0x7FC00000u);
  const double v = e ? std::ldexp(8 + m, e - 10) : std::ldexp(m, -9);
  return static_cast<float>((b & 0x80) ? -v : v);
}
inline float e5m2_value(uint8_t b) {
  const int e = (b >> 2) & 31, m = b & 3;
  if (e == 31 && m) return f32_from_bits(0x7FC00000u);
  const double v = e == 31 ? INFINITY : e ? std::ldexp(4 + m, e - 17) : std::ldexp(m, -16);
  return static_cast<float>((b & 0x80) ? -v : v);
}

}  // namespace lowp_test
