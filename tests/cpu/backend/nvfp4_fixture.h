// Host buffers of one NVFP4 per-tensor quantize call, poisoned so a test can tell written bytes
// from untouched ones, the comparison against the oracle, and the fuzzed-input sweep and
// dequantize checks the per-tensor and per-token tests share.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
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
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;

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

// One orientation's codes and scales (compact layout) against the oracle's, either recipe.
// The first mismatching code is described by the values the encoder saw there.
inline ::testing::AssertionResult codes_and_scales_match(const uint8_t* codes, const std::vector<uint8_t>& scales,
                                                         const nvfp4_oracle::Result& want, const char* what) {
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
  return bytes_equal(scales.data(), want.scales.data(), static_cast<int64_t>(want.scales.size()) / want.scale_cols,
                     want.scale_cols, 1, what);
}

// One orientation of the library's output against the oracle: codes, scales (compact layout),
// amax.
inline ::testing::AssertionResult matches_oracle(const uint8_t* codes, const std::vector<uint8_t>& scales,
                                                 float amax, const nvfp4_oracle::Result& want,
                                                 const char* what) {
  auto r = codes_and_scales_match(codes, scales, want, what);
  if (!r) return r;
  return amax_equal(amax, want.amax, what);
}

// The fuzz sweep of the oracle tests: shapes that are odd multiples of 16 (both copies possible),
// every input dtype and fill.
struct Shape {
  int64_t M, K;
};
inline constexpr Shape kOracleShapes[] = {{16, 16}, {48, 80}, {144, 48}, {32, 272}, {208, 16}};
inline constexpr lowp_dtype kInputDtypes[] = {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32};

inline const char* dtype_name(lowp_dtype t) {
  return t == LOWP_DTYPE_BFLOAT16 ? "bf16" : t == LOWP_DTYPE_FLOAT16 ? "fp16" : "fp32";
}

// M not a multiple of 16: only the rowwise copy can be made.
inline constexpr Shape kRowwiseOnlyShapes[] = {{1, 16}, {5, 48}, {130, 32}, {17, 112}};

// Quantizes every (shape, dtype, fill) into a fresh Quant (the rowwise copy, and the columnwise
// one when want_col) with `cfg` and hands it with the decoded input to check(quant, x). Returns
// the number of inputs.
template <typename Quant, typename Check>
int for_each_input(const lowp_quant_config& cfg, uint64_t seed, Check check,
                   std::span<const Shape> shapes = kOracleShapes, bool want_col = true) {
  int runs = 0;
  for (const Shape& s : shapes)
    for (lowp_dtype dt : kInputDtypes)
      for (Fill f : kAllFills) {
        SCOPED_TRACE(testing::Message() << s.M << "x" << s.K << " " << dtype_name(dt) << " " << fill_name(f));
        const std::vector<uint8_t> bytes = fuzz_tensor(dt, s.M, s.K, f, seed + static_cast<uint64_t>(runs));
        Quant t(s.M, s.K, true, want_col);
        const lowp_status st = t.run(bytes, dt, &cfg);
        EXPECT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
        if (st == LOWP_SUCCESS) check(t, decode_all(bytes, dt));
        ++runs;
      }
  return runs;
}

// lowp_dequantize of one orientation of two quantized copies that differ only in scale layout
// (compact, swizzled), into fp32, bf16 and fp16: both give the same bytes, and those are `want`
// (rows x cols, the oracle's fp32 values) rounded to the output dtype; any NaN matches any NaN.
inline void expect_dequantize_matches(const lowp_quantized_tensor& compact, const lowp_quantized_tensor& swizzled,
                                      lowp_orientation w, int64_t rows, int64_t cols, const std::vector<float>& want);

// A fuzzed 48 x 272 fp32 tensor, with and without RHT, quantized into a compact and a swizzled
// Quant; each orientation's dequantize must give oracle(quant, rowwise?, i, code, scale) for the
// element in orientation row i with that code and block scale (read from the compact copy).
template <typename Quant, typename Oracle>
void expect_dequantize_both_layouts(Oracle oracle) {
  const int64_t M = 48, K = 272;
  for (bool rht : {false, true}) {
    SCOPED_TRACE(rht ? "rht" : "no rht");
    const std::vector<uint8_t> bytes = fuzz_tensor(LOWP_DTYPE_FLOAT32, M, K, Fill::kMixed, rht ? 8 : 9);
    lowp_quant_config cfg;
    lowp_quant_config_default(&cfg);
    cfg.rht = rht;
    Quant compact(M, K, true, true, LOWP_SCALE_LAYOUT_COMPACT);
    Quant swz(M, K, true, true, LOWP_SCALE_LAYOUT_SWIZZLED);
    ASSERT_EQ(compact.run(bytes, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    ASSERT_EQ(swz.run(bytes, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    for (lowp_orientation w : {LOWP_ROWWISE, LOWP_COLUMNWISE}) {
      const bool row = w == LOWP_ROWWISE;
      const int64_t rows = row ? M : K, cols = row ? K : M;
      const std::vector<uint8_t>& codes = row ? compact.row : compact.col;
      const std::vector<uint8_t>& scales = row ? compact.row_scales : compact.col_scales;
      const int64_t C = (cols / 16 + 3) / 4 * 4;
      std::vector<float> want(rows * cols);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          want[i * cols + j] = oracle(compact, row, i, nvfp4_oracle::code_at(codes, cols, i, j), scales[i * C + j / 16]);
      expect_dequantize_matches(compact.q, swz.q, w, rows, cols, want);
    }
  }
}

inline void expect_dequantize_matches(const lowp_quantized_tensor& compact, const lowp_quantized_tensor& swizzled,
                                      lowp_orientation w, int64_t rows, int64_t cols, const std::vector<float>& want) {
  for (lowp_dtype dt : {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16}) {
    SCOPED_TRACE(testing::Message() << (w == LOWP_ROWWISE ? "rowwise " : "columnwise ") << "out dtype " << dt);
    const size_t es = dtype_size(dt);
    std::vector<uint8_t> a(rows * cols * es, kPoison), b(rows * cols * es, 0x5A);
    lowp_tensor oa{a.data(), dt, rows, cols}, ob{b.data(), dt, rows, cols};
    ASSERT_EQ(lowp_dequantize(&compact, w, &oa, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    ASSERT_EQ(lowp_dequantize(&swizzled, w, &ob, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_TRUE(bytes_equal(a.data(), b.data(), rows, cols, es, "compact vs swizzled"));
    int64_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const float got = load_float(a.data(), dt, i);
      const float w_i = load_float(encode({want[i]}, dt).data(), dt, 0);  // oracle rounded to dt
      bad += !((std::isnan(got) && std::isnan(w_i)) || f32_bits(got) == f32_bits(w_i));
    }
    EXPECT_EQ(bad, 0) << "values differ from the oracle's dequantize";
  }
}

}  // namespace lowp_test
