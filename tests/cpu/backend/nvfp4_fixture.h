// Host buffers of one NVFP4 per-tensor quantize call, poisoned so a test can tell written bytes
// from untouched ones, plus the comparison against the oracle.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "nvfp4_oracle.h"
#include "common/compare.h"
#include "common/fuzz_values.h"
#include "lowp/lowp.h"

namespace lowp_test {

inline int64_t padded_scale_bytes(int64_t rows, int64_t blocks) {
  return (rows + 127) / 128 * 128 * ((blocks + 3) / 4 * 4);
}

struct Nvfp4Quant {
  int64_t M, K;
  std::vector<uint8_t> row, col, row_scales, col_scales;
  float row_amax, col_amax;
  lowp_quantized_tensor q{};

  Nvfp4Quant(int64_t m, int64_t k, bool want_row, bool want_col,
             lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT)
      : M(m), K(k), row(m * k / 2, kPoison), col(m * k / 2, kPoison),
        row_scales(padded_scale_bytes(m, k / 16), kPoison),
        col_scales(padded_scale_bytes(k, m / 16 > 0 ? m / 16 : 1), kPoison) {
    poison(&row_amax, 4);
    poison(&col_amax, 4);
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR;
    q.scale_layout = layout;
    q.rows = m;
    q.cols = k;
    q.rowwise = {want_row ? row.data() : nullptr, row_scales.data(), &row_amax};
    q.columnwise = {want_col ? col.data() : nullptr, col_scales.data(), &col_amax};
  }
  Nvfp4Quant(const Nvfp4Quant&) = delete;
  Nvfp4Quant& operator=(const Nvfp4Quant&) = delete;

  // x: M*K elements of dtype dt (raw bytes).
  lowp_status run(const std::vector<uint8_t>& x, lowp_dtype dt, const lowp_quant_config* cfg = nullptr) {
    lowp_tensor t{const_cast<uint8_t*>(x.data()), dt, M, K};
    return lowp_quantize(&t, &q, cfg, nullptr);
  }
  lowp_status run(const std::vector<float>& x, const lowp_quant_config* cfg = nullptr) {
    std::vector<uint8_t> bytes = encode(x, LOWP_DTYPE_FLOAT32);
    return run(bytes, LOWP_DTYPE_FLOAT32, cfg);
  }
};

// Decodes a dtype buffer into floats (exactly).
inline std::vector<float> decode_all(const std::vector<uint8_t>& bytes, lowp_dtype dt) {
  std::vector<float> v(bytes.size() / dtype_size(dt));
  for (size_t i = 0; i < v.size(); ++i) v[i] = load_float(bytes.data(), dt, i);
  return v;
}

// Amax by bits, except that any NaN matches any NaN (the payload of a NaN amax is the
// backend's business; everything downstream of it only sees "NaN").
inline ::testing::AssertionResult amax_equal(float got, float want, const char* what) {
  if ((std::isnan(got) && std::isnan(want)) || f32_bits(got) == f32_bits(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << " amax: got " << got << " (0x" << std::hex << f32_bits(got)
                                       << "), want " << want << " (0x" << f32_bits(want) << ")";
}

// One orientation of the library's output against the oracle: codes, scales (compact layout),
// amax. `input` describes the element behind a mismatching code.
inline ::testing::AssertionResult matches_oracle(const uint8_t* codes, const std::vector<uint8_t>& scales,
                                                 float amax, const nvfp4_oracle::Result& want,
                                                 const char* what) {
  auto describe = [&](int64_t r, int64_t c) {  // c is a byte column: two elements
    char buf[160];
    std::snprintf(buf, sizeof buf, "values [%lld][%lld..%lld] = %g, %g; block scale byte 0x%02X", static_cast<long long>(r),
                  static_cast<long long>(2 * c), static_cast<long long>(2 * c + 1),
                  static_cast<double>(want.values[r * want.cols + 2 * c]),
                  static_cast<double>(want.values[r * want.cols + 2 * c + 1]), want.scales[r * want.scale_cols + (2 * c) / 16]);
    return std::string(buf);
  };
  auto r = bytes_equal(codes, want.codes.data(), want.rows, want.cols / 2, 1, what, describe);
  if (!r) return r;
  if (scales.size() != want.scales.size())
    return ::testing::AssertionFailure() << what << " scale array has " << scales.size() << " bytes, want " << want.scales.size();
  r = bytes_equal(scales.data(), want.scales.data(), static_cast<int64_t>(want.scales.size()) / want.scale_cols,
                  want.scale_cols, 1, what);
  if (!r) return r;
  return amax_equal(amax, want.amax, what);
}

}  // namespace lowp_test
