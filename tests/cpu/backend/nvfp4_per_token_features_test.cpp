// NVFP4 per-token recipe features through the C API (host memory): K1 then K2 equals the
// composite, rows are scaled independently, scale layouts and the standalone swizzle,
// stochastic rounding properties, dequantize, sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "nvfp4_per_token_fixture.h"

using namespace lowp_test;
namespace pto = nvfp4_per_token_oracle;

namespace {

void expect_same_outputs(const Nvfp4PtQuant& a, const Nvfp4PtQuant& b, bool want_row, bool want_col) {
  if (want_row) {
    EXPECT_TRUE(bytes_equal(a.row, b.row, 1, static_cast<int64_t>(a.row.size()), "rowwise codes"));
    EXPECT_TRUE(bytes_equal(a.row_scales, b.row_scales, 1, static_cast<int64_t>(a.row_scales.size()), "rowwise scales"));
    EXPECT_TRUE(float_bits_equal(a.row_amax.data(), b.row_amax.data(), a.row_amax.size(), "rowwise amax"));
  }
  if (want_col) {
    EXPECT_TRUE(bytes_equal(a.col, b.col, 1, static_cast<int64_t>(a.col.size()), "columnwise codes"));
    EXPECT_TRUE(bytes_equal(a.col_scales, b.col_scales, 1, static_cast<int64_t>(a.col_scales.size()), "columnwise scales"));
    EXPECT_TRUE(float_bits_equal(a.col_amax.data(), b.col_amax.data(), a.col_amax.size(), "columnwise amax"));
  }
}

// K1 (lowp_nvfp4_amax_per_token) then K2 (lowp_quantize with amax_given) gives the composite's
// bytes, amaxes included, for every knob combination.
TEST(Nvfp4PerTokenFeatures, AmaxThenEncodeEqualsComposite) {
  const int64_t M = 144, K = 80;
  const uint64_t state[2] = {99, 7};
  int runs = 0;
  for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32})
    for (bool rht : {false, true})
      for (bool sr : {false, true})
        for (lowp_scale_layout layout : {LOWP_SCALE_LAYOUT_COMPACT, LOWP_SCALE_LAYOUT_SWIZZLED})
          for (int parts : {1, 2, 3}) {
            const bool want_row = parts & 1, want_col = parts & 2;
            SCOPED_TRACE(testing::Message() << "dtype " << dt << " rht " << rht << " sr " << sr << " layout " << layout
                                            << " parts " << parts);
            const std::vector<uint8_t> bytes = fuzz_tensor(dt, M, K, Fill::kMixed, 40 + runs++);
            lowp_quant_config cfg = default_config();
            cfg.rht = rht;
            cfg.stochastic_rounding = sr;
            cfg.rng_state = state;
            Nvfp4PtQuant composite(M, K, want_row, want_col, layout), split(M, K, want_row, want_col, layout);
            ASSERT_EQ(composite.run(bytes, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
            lowp_tensor xt{const_cast<uint8_t*>(bytes.data()), dt, M, K};
            ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, want_row ? split.row_amax.data() : nullptr,
                                                want_col ? split.col_amax.data() : nullptr, &cfg, nullptr),
                      LOWP_SUCCESS) << lowp_get_last_error();
            cfg.amax_given = 1;
            ASSERT_EQ(split.run(bytes, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
            expect_same_outputs(composite, split, want_row, want_col);
            if (!want_row) {
              EXPECT_TRUE(untouched(composite.row_amax.data(), M * 4, "rowwise amax (not requested)"));
            }
            if (!want_col) {
              EXPECT_TRUE(untouched(composite.col_amax.data(), K * 4, "columnwise amax (not requested)"));
            }
          }
  std::printf("[ nvfp4 per-token K1 + K2 ] %d combinations byte-identical to the composite\n", runs);
}

// Per-token: row i of x quantizes exactly as the 1 x K tensor holding that row alone, and
// (columnwise, no RHT) column k as the 16-row-strips of that column alone.
TEST(Nvfp4PerTokenFeatures, RowsAreIndependent) {
  const int64_t M = 48, K = 64;
  const std::vector<float> x = decode_all(fuzz_tensor(LOWP_DTYPE_FLOAT32, M, K, Fill::kMixed, 5), LOWP_DTYPE_FLOAT32);
  Nvfp4PtQuant whole(M, K, true, true);
  ASSERT_EQ(whole.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  for (int64_t i = 0; i < M; ++i) {
    Nvfp4PtQuant one(1, K, true, false);
    ASSERT_EQ(one.run(std::vector<float>(x.begin() + i * K, x.begin() + (i + 1) * K)), LOWP_SUCCESS);
    EXPECT_TRUE(bytes_equal(one.row.data(), whole.row.data() + i * K / 2, 1, K / 2, 1, "row codes"));
    EXPECT_TRUE(bytes_equal(one.row_scales.data(), whole.row_scales.data() + i * 4, 1, K / 16, 1, "row scales"));
    EXPECT_EQ(f32_bits(one.row_amax[0]), f32_bits(whole.row_amax[i]));
  }
  // x^T quantized rowwise is the columnwise copy of x (no RHT).
  std::vector<float> xt(M * K);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) xt[k * M + i] = x[i * K + k];
  Nvfp4PtQuant transposed(K, M, true, false);
  ASSERT_EQ(transposed.run(xt), LOWP_SUCCESS);
  EXPECT_TRUE(bytes_equal(transposed.row, whole.col, 1, static_cast<int64_t>(whole.col.size()), "x^T rowwise vs columnwise"));
  EXPECT_TRUE(bytes_equal(transposed.row_scales, whole.col_scales, 1, static_cast<int64_t>(whole.col_scales.size()), "scales"));
  EXPECT_TRUE(float_bits_equal(transposed.row_amax.data(), whole.col_amax.data(), K, "amax"));
}

// The fused swizzled scales equal lowp_nvfp4_swizzle_scales of the compact ones; codes and amaxes
// do not depend on the layout.
TEST(Nvfp4PerTokenFeatures, SwizzledScalesMatchStandaloneSwizzle) {
  struct Shape {
    int64_t M, K;
  };
  for (const Shape s : {Shape{48, 80}, Shape{144, 272}, Shape{256, 64}, Shape{16, 16}}) {
    SCOPED_TRACE(testing::Message() << s.M << "x" << s.K);
    const std::vector<uint8_t> bytes = fuzz_tensor(LOWP_DTYPE_BFLOAT16, s.M, s.K, Fill::kMixed, 4);
    lowp_quant_config cfg = default_config();
    cfg.rht = 1;
    Nvfp4PtQuant compact(s.M, s.K, true, true, LOWP_SCALE_LAYOUT_COMPACT);
    Nvfp4PtQuant swz(s.M, s.K, true, true, LOWP_SCALE_LAYOUT_SWIZZLED);
    ASSERT_EQ(compact.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    ASSERT_EQ(swz.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(compact.row, swz.row);
    EXPECT_EQ(compact.col, swz.col);
    EXPECT_TRUE(float_bits_equal(compact.row_amax.data(), swz.row_amax.data(), s.M, "rowwise amax"));
    EXPECT_TRUE(float_bits_equal(compact.col_amax.data(), swz.col_amax.data(), s.K, "columnwise amax"));
    for (bool row : {true, false}) {
      SCOPED_TRACE(row ? "rowwise" : "columnwise");
      const std::vector<uint8_t>& c = row ? compact.row_scales : compact.col_scales;
      std::vector<uint8_t> standalone(c.size(), kPoison);
      ASSERT_EQ(lowp_nvfp4_swizzle_scales(c.data(), standalone.data(), row ? s.M : s.K, row ? s.K / 16 : s.M / 16, nullptr),
                LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_TRUE(bytes_equal(row ? swz.row_scales : swz.col_scales, standalone, 1, static_cast<int64_t>(c.size()),
                              "fused vs standalone"));
    }
  }
}

std::vector<uint8_t> sr_codes(const std::vector<uint8_t>& bytes, int64_t M, int64_t K, const uint64_t* state,
                              bool columnwise, bool rht) {
  lowp_quant_config cfg = default_config();
  cfg.stochastic_rounding = 1;
  cfg.rng_state = state;
  cfg.rht = rht;
  Nvfp4PtQuant t(M, K, true, true);
  EXPECT_EQ(t.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
  return columnwise ? t.col : t.row;
}

TEST(Nvfp4PerTokenFeatures, StochasticRoundingReproducible) {
  const int64_t M = 64, K = 128;
  const std::vector<uint8_t> bytes = fuzz_tensor(LOWP_DTYPE_BFLOAT16, M, K, Fill::kGaussian, 9);
  const uint64_t a[2] = {42, 1000}, b[2] = {42, 1001}, c[2] = {43, 1000};
  for (bool rht : {false, true})
    for (bool col : {false, true}) {
      SCOPED_TRACE(testing::Message() << (col ? "columnwise" : "rowwise") << " rht " << rht);
      const std::vector<uint8_t> base = sr_codes(bytes, M, K, a, col, rht);
      EXPECT_EQ(sr_codes(bytes, M, K, a, col, rht), base) << "same seed and offset, same bytes";
      EXPECT_NE(sr_codes(bytes, M, K, b, col, rht), base) << "another offset draws other bits";
      EXPECT_NE(sr_codes(bytes, M, K, c, col, rht), base) << "another seed draws other bits";
    }
}

// E[x^] ~ x (numerics §7): the mean of 64 SR draws (offset advanced by lowp_rng_advance between
// them) is closer to x than round-to-nearest, in both orientations (columnwise without RHT
// dequantizes to x^T).
TEST(Nvfp4PerTokenFeatures, StochasticRoundingIsUnbiased) {
  const int64_t M = 32, K = 256, kDraws = 64;
  const std::vector<uint8_t> bytes = fuzz_tensor(LOWP_DTYPE_BFLOAT16, M, K, Fill::kGaussian, 21);
  const std::vector<float> x = decode_all(bytes, LOWP_DTYPE_BFLOAT16);
  Nvfp4PtQuant rn(M, K, true, true);
  ASSERT_EQ(rn.run(bytes, LOWP_DTYPE_BFLOAT16), LOWP_SUCCESS);
  for (lowp_orientation w : {LOWP_ROWWISE, LOWP_COLUMNWISE}) {
    SCOPED_TRACE(w == LOWP_ROWWISE ? "rowwise" : "columnwise");
    auto x_at = [&](size_t i) { return w == LOWP_ROWWISE ? x[i] : x[(i % M) * K + i / M]; };  // i of the orientation
    const std::vector<float> x_rn = rn.dequantize(w);
    std::vector<double> mean(M * K, 0.0);
    uint64_t state[2] = {0xC0FFEEull, 0};
    lowp_quant_config cfg = default_config();
    cfg.stochastic_rounding = 1;
    cfg.rng_state = state;
    for (int d = 0; d < kDraws; ++d) {
      Nvfp4PtQuant sr(M, K, true, true);
      ASSERT_EQ(sr.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS);
      const std::vector<float> v = sr.dequantize(w);
      for (size_t i = 0; i < v.size(); ++i) mean[i] += v[i] / kDraws;
      ASSERT_EQ(lowp_rng_advance(state, 1, nullptr), LOWP_SUCCESS);
    }
    double err_rn = 0, err_sr = 0, bias_sr = 0;
    for (size_t i = 0; i < mean.size(); ++i) {
      err_rn += std::pow(x_rn[i] - x_at(i), 2);
      err_sr += std::pow(mean[i] - x_at(i), 2);
      bias_sr += mean[i] - x_at(i);
    }
    const double n = static_cast<double>(mean.size());
    std::printf("[ nvfp4 per-token SR %s ] RMS error: RN %.5f, mean of %lld SR draws %.5f; mean SR bias %.2e\n",
                w == LOWP_ROWWISE ? "rowwise" : "columnwise", std::sqrt(err_rn / n), static_cast<long long>(kDraws),
                std::sqrt(err_sr / n), bias_sr / n);
    EXPECT_LT(err_sr, 0.5 * err_rn);
  }
}

// Dequantize reads the scales in the tensor's layout and each row's own amax: both layouts give
// x^ = e2m1(q) * (float(s) * max(A_row, 1e-12) * (1/2688)) (the oracle's), for fp32/bf16/fp16.
TEST(Nvfp4PerTokenFeatures, DequantizeBothLayoutsMatchOracle) {
  expect_dequantize_both_layouts<Nvfp4PtQuant>([](const Nvfp4PtQuant& t, bool row, int64_t i, uint8_t code, uint8_t s) {
    return pto::dequantize_pt(code, s, (row ? t.row_amax : t.col_amax)[i]);
  });
}

TEST(Nvfp4PerTokenFeatures, SizesQuery) {
  lowp_quantized_sizes s;
  poison(&s, sizeof s);
  ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, 48, 80, &s), LOWP_SUCCESS)
      << lowp_get_last_error();
  EXPECT_EQ(s.data_bytes[0], 1920u);  // 48 * 80 / 2
  EXPECT_EQ(s.data_bytes[1], 1920u);
  EXPECT_EQ(s.scale_inv_bytes[0], 128u * 8u);  // [roundup(48,128)][roundup(5,4)]
  EXPECT_EQ(s.scale_inv_bytes[1], 128u * 4u);  // [roundup(80,128)][roundup(3,4)]
  EXPECT_EQ(s.amax_bytes[0], 48u * 4u);
  EXPECT_EQ(s.amax_bytes[1], 80u * 4u);
  EXPECT_EQ(s.tensor_scale_bytes, 0u);
  poison(&s, sizeof s);
  ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, 300, 2064, &s), LOWP_SUCCESS);
  EXPECT_EQ(s.data_bytes[0], 300u * 2064u / 2);
  EXPECT_EQ(s.scale_inv_bytes[0], 384u * 132u);
  EXPECT_EQ(s.amax_bytes[0], 1200u);
  EXPECT_EQ(s.data_bytes[1], 0u);  // 300 % 16 != 0: no columnwise copy
  EXPECT_EQ(s.scale_inv_bytes[1], 0u);
  EXPECT_EQ(s.amax_bytes[1], 0u);
}

}  // namespace
