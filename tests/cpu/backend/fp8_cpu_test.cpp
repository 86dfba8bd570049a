// CPU backend FP8 quantize semantics (numerics §1, §2) through the C API, against hand-worked codes.
// Code literals were worked by hand from the E4M3/E5M2 tables (and cross-checked with ml_dtypes
// where it saturates the same way).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "fp8_quant_fixture.h"

using namespace lowp_test;
using V = std::vector<uint8_t>;

namespace {
constexpr lowp_dtype kIn[] = {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16};
const float kNaN = std::nanf("");
const float kInf = INFINITY;
// amax 7 -> E4M3 scale 64, E5M2 scale 8192: every product is exact.
const std::vector<float> kX23 = {1, -2, 3.5f, 0.5f, 7, -0.25f};
}  // namespace

TEST(Fp8Current, E4M3HandWorked) {
  Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 2, 3);
  t.amax = 1000.0f;  // current scaling overwrites, it does not fold
  ASSERT_EQ(t.run(kX23), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(t.amax, 7.0f);
  EXPECT_EQ(t.scale, 64.0f);
  EXPECT_EQ(t.scale_inv, 0.015625f);
  EXPECT_TRUE(bytes_equal(t.row, V{0x68, 0xF0, 0x76, 0x60, 0x7E, 0xD8}, 2, 3, "rowwise"));
  EXPECT_TRUE(bytes_equal(t.col, V{0x68, 0x60, 0xF0, 0x7E, 0x76, 0xD8}, 3, 2, "columnwise"));
  EXPECT_TRUE(untouched(t.row_si.data(), 8, "per-token buffers"));
}

TEST(Fp8Current, E5M2HandWorked) {
  Fp8Quant t(LOWP_DTYPE_E5M2, LOWP_SCALING_CURRENT, 2, 3);
  ASSERT_EQ(t.run(kX23), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(t.scale, 8192.0f);
  EXPECT_EQ(t.scale_inv, 1.0f / 8192);
  EXPECT_TRUE(bytes_equal(t.row, V{0x70, 0xF4, 0x77, 0x6C, 0x7B, 0xE8}, 2, 3, "rowwise"));
  EXPECT_TRUE(bytes_equal(t.col, V{0x70, 0x6C, 0xF4, 0x7B, 0x77, 0xE8}, 3, 2, "columnwise"));
}

TEST(Fp8Current, RoundedScaleAndReciprocal) {
  Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 1);
  ASSERT_EQ(t.run({-3}), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(t.amax, 3.0f);
  EXPECT_EQ(bits(t.scale), 0x43155555u);      // RN(448 / 3) = 149.33333
  EXPECT_EQ(bits(t.scale_inv), 0x3BDB6DB7u);  // RN(1 / 149.33333)
  EXPECT_EQ(t.row[0], 0xFE);
  EXPECT_EQ(t.col[0], 0xFE);
}

TEST(Fp8Current, ScaleOverflowGivesFltMax) {
  Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 2);
  ASSERT_EQ(t.run({f32_from_bits(1), 0}), LOWP_SUCCESS);  // amax = smallest denormal
  EXPECT_EQ(t.scale, FLT_MAX);                            // 448 / 2^-149 = inf -> FLT_MAX
  EXPECT_EQ(bits(t.scale_inv), 0x00200000u);              // 2^-128, a denormal: no FTZ
  EXPECT_TRUE(bytes_equal(t.row, V{0x00, 0x00}, 1, 2));
}

TEST(Fp8Current, NaNAndInfInputs) {
  // NaN amax -> scale 1; NaN -> 0x7F (sign dropped), inf saturates (numerics §1).
  const std::vector<float> x = {1, kNaN, -kInf, 2, -kNaN, kInf};
  Fp8Quant e4(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 2, 3);
  ASSERT_EQ(e4.run(x), LOWP_SUCCESS);
  EXPECT_TRUE(std::isnan(e4.amax));
  EXPECT_EQ(e4.scale, 1.0f);
  EXPECT_EQ(e4.scale_inv, 1.0f);
  EXPECT_TRUE(bytes_equal(e4.row, V{0x38, 0x7F, 0xFE, 0x40, 0x7F, 0x7E}, 2, 3, "e4m3"));
  EXPECT_TRUE(bytes_equal(e4.col, V{0x38, 0x40, 0x7F, 0x7F, 0xFE, 0x7E}, 3, 2, "e4m3 col"));
  Fp8Quant e5(LOWP_DTYPE_E5M2, LOWP_SCALING_CURRENT, 2, 3);
  ASSERT_EQ(e5.run(x), LOWP_SUCCESS);
  EXPECT_EQ(e5.scale, 1.0f);
  EXPECT_TRUE(bytes_equal(e5.row, V{0x3C, 0x7F, 0xFB, 0x40, 0x7F, 0x7B}, 2, 3, "e5m2"));
  // inf without NaN: amax inf -> scale 1.
  Fp8Quant inf(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 3);
  ASSERT_EQ(inf.run({1, kInf, -3}), LOWP_SUCCESS);
  EXPECT_EQ(inf.amax, kInf);
  EXPECT_EQ(inf.scale, 1.0f);
  EXPECT_TRUE(bytes_equal(inf.row, V{0x38, 0x7E, 0xC4}, 1, 3));
}

TEST(Fp8Current, AllZeroTensor) {
  for (lowp_dtype in : kIn) {
    Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 2, 2);
    ASSERT_EQ(t.run({0, -0.0f, 0, 0}, in), LOWP_SUCCESS);
    EXPECT_EQ(bits(t.amax), 0u);
    EXPECT_EQ(t.scale, 1.0f);
    EXPECT_EQ(t.scale_inv, 1.0f);
    EXPECT_TRUE(bytes_equal(t.row, V{0x00, 0x80, 0x00, 0x00}, 2, 2));  // -0 keeps its sign
  }
}

TEST(Fp8Delayed, UsesGivenScaleAndFoldsAmax) {
  Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_DELAYED, 2, 2);
  t.scale = 2.0f;
  t.amax = 100.0f;
  ASSERT_EQ(t.run({1, -3, 0.3f, 300}), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(t.scale, 2.0f);  // read, not recomputed
  EXPECT_EQ(t.scale_inv, 0.5f);
  EXPECT_EQ(t.amax, 300.0f);
  EXPECT_TRUE(bytes_equal(t.row, V{0x40, 0xCC, 0x32, 0x7E}, 2, 2, "rowwise"));  // 600 saturates
  EXPECT_TRUE(bytes_equal(t.col, V{0x40, 0x32, 0xCC, 0x7E}, 2, 2, "columnwise"));
  // A smaller second batch keeps the larger history value (max, not overwrite).
  ASSERT_EQ(t.run({1, -50, 0, 0}), LOWP_SUCCESS);
  EXPECT_EQ(t.amax, 300.0f);
  t.amax = 0.0f;  // freshly rolled h[0]
  ASSERT_EQ(t.run({1, -50, 0, 0}), LOWP_SUCCESS);
  EXPECT_EQ(t.amax, 50.0f);
}

TEST(Fp8Delayed, E5M2AndNaN) {
  Fp8Quant t(LOWP_DTYPE_E5M2, LOWP_SCALING_DELAYED, 1, 4);
  t.scale = 2.0f;
  t.amax = 5.0f;
  ASSERT_EQ(t.run({1, -3, 0.3f, 300}), LOWP_SUCCESS);
  EXPECT_EQ(t.amax, 300.0f);
  EXPECT_TRUE(bytes_equal(t.row, V{0x40, 0xC6, 0x39, 0x61}, 1, 4));
  ASSERT_EQ(t.run({1, kNaN, 0, 0}), LOWP_SUCCESS);
  EXPECT_TRUE(std::isnan(t.amax));  // NaN propagates into the history
  EXPECT_TRUE(bytes_equal(t.row, V{0x40, 0x7F, 0x00, 0x00}, 1, 4));
}

TEST(Fp8PerToken, BothOrientations) {
  Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 2, 3);
  ASSERT_EQ(t.run({1, -2, 4, 0.5f, 8, -0.125f}), LOWP_SUCCESS) << lowp_get_last_error();
  // Rows: amax 4, 8 -> scales 112, 56. Columns: amax 1, 8, 4 -> scales 448, 56, 112.
  EXPECT_EQ(t.row_amax, (std::vector<float>{4, 8}));
  EXPECT_EQ(t.row_si, (std::vector<float>{1.0f / 112, 1.0f / 56}));
  EXPECT_EQ(t.col_amax, (std::vector<float>{1, 8, 4}));
  EXPECT_EQ(t.col_si, (std::vector<float>{1.0f / 448, 1.0f / 56, 1.0f / 112}));
  EXPECT_TRUE(bytes_equal(t.row, V{0x6E, 0xF6, 0x7E, 0x5E, 0x7E, 0xCE}, 2, 3, "rowwise"));
  EXPECT_TRUE(bytes_equal(t.col, V{0x7E, 0x76, 0xEE, 0x7E, 0x7E, 0xD6}, 3, 2, "columnwise"));
  EXPECT_TRUE(untouched(&t.scale, 4, "per-tensor scale"));
  EXPECT_TRUE(untouched(&t.scale_inv, 4, "per-tensor scale_inv"));
}

TEST(Fp8PerToken, EachOrientationAlone) {
  const std::vector<float> x = {1, -2, 4, 0.5f, 8, -0.125f};
  Fp8Quant r(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 2, 3, true, false);
  ASSERT_EQ(r.run(x), LOWP_SUCCESS);
  EXPECT_TRUE(bytes_equal(r.row, V{0x6E, 0xF6, 0x7E, 0x5E, 0x7E, 0xCE}, 2, 3, "rowwise"));
  EXPECT_TRUE(untouched(r.col.data(), 6, "columnwise codes"));
  EXPECT_TRUE(untouched(r.col_si.data(), 12, "columnwise scale_inv"));
  EXPECT_TRUE(untouched(r.col_amax.data(), 12, "columnwise amax"));
  Fp8Quant c(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 2, 3, false, true);
  ASSERT_EQ(c.run(x), LOWP_SUCCESS);
  EXPECT_TRUE(bytes_equal(c.col, V{0x7E, 0x76, 0xEE, 0x7E, 0x7E, 0xD6}, 3, 2, "columnwise"));
  EXPECT_EQ(c.col_amax, (std::vector<float>{1, 8, 4}));
  EXPECT_TRUE(untouched(c.row.data(), 6, "rowwise codes"));
  EXPECT_TRUE(untouched(c.row_si.data(), 8, "rowwise scale_inv"));
  EXPECT_TRUE(untouched(c.row_amax.data(), 8, "rowwise amax"));
}

TEST(Fp8PerToken, E5M2) {
  Fp8Quant t(LOWP_DTYPE_E5M2, LOWP_SCALING_PER_TOKEN, 1, 2);
  ASSERT_EQ(t.run({1, -4}), LOWP_SUCCESS);
  EXPECT_EQ(t.row_si[0], 4.0f / 57344);  // scale 14336
  EXPECT_TRUE(bytes_equal(t.row, V{0x73, 0xFB}, 1, 2, "rowwise"));
  EXPECT_TRUE(bytes_equal(t.col, V{0x7B, 0xFB}, 2, 1, "columnwise"));  // scales 57344, 14336
}

TEST(Fp8PerToken, NaNInfAndZeroRows) {
  // Rows: NaN amax, zero amax, inf amax -> scale 1 each. Column 1 is finite: amax 2 -> 224.
  Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 3, 2);
  ASSERT_EQ(t.run({kNaN, 1, 0, -0.0f, kInf, -2}), LOWP_SUCCESS);
  EXPECT_TRUE(std::isnan(t.row_amax[0]));  // raw amax is stored
  EXPECT_EQ(t.row_amax[1], 0.0f);
  EXPECT_EQ(t.row_amax[2], kInf);
  EXPECT_EQ(t.row_si, (std::vector<float>{1, 1, 1}));
  EXPECT_TRUE(bytes_equal(t.row, V{0x7F, 0x38, 0x00, 0x80, 0x7E, 0xC0}, 3, 2, "rowwise"));
  EXPECT_EQ(t.col_si, (std::vector<float>{1, 1.0f / 224}));
  EXPECT_TRUE(bytes_equal(t.col, V{0x7F, 0x00, 0x7E, 0x76, 0x80, 0xFE}, 2, 3, "columnwise"));
}

// Enough rows for several 64-row chunks on several threads; spikes are powers of two so every
// code is exact: row 200+c holds -2^c at column c, everything else is 0.5.
TEST(Fp8PerToken, ManyRowsAcrossChunks) {
  const int64_t R = 300, C = 7;
  std::vector<float> x(R * C, 0.5f);
  for (int c = 0; c < C; ++c) x[(200 + c) * C + c] = -std::ldexp(1.0f, c);
  Fp8Quant t(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, R, C);
  ASSERT_EQ(t.run(x, LOWP_DTYPE_BFLOAT16), LOWP_SUCCESS);
  V want_row(R * C, 0x7E), want_col(R * C);  // plain rows: scale 896, 0.5 -> 448
  for (int c = 0; c < C; ++c) {
    const uint8_t rest = static_cast<uint8_t>(((14 - c) << 3) | 6);  // 0.5 * 448 / 2^c = 1.75 * 2^(7-c)
    for (int64_t r = 0; r < R; ++r) want_col[c * R + r] = r == 200 + c ? 0xFE : rest;
    for (int k = 0; k < C; ++k) want_row[(200 + c) * C + k] = k == c ? 0xFE : rest;
    EXPECT_EQ(t.col_amax[c], std::ldexp(1.0f, c)) << "column " << c;
    EXPECT_EQ(t.row_amax[200 + c], std::ldexp(1.0f, c)) << "row " << 200 + c;
  }
  EXPECT_EQ(t.row_amax[299], 0.5f);
  EXPECT_TRUE(bytes_equal(t.row, want_row, R, C, "rowwise"));
  EXPECT_TRUE(bytes_equal(t.col, want_col, C, R, "columnwise"));
}

TEST(Fp8Orientation, PerTensorEachAlone) {
  for (lowp_scaling s : {LOWP_SCALING_CURRENT, LOWP_SCALING_DELAYED}) {
    Fp8Quant r(LOWP_DTYPE_E4M3, s, 2, 3, true, false);
    Fp8Quant c(LOWP_DTYPE_E4M3, s, 2, 3, false, true);
    r.scale = c.scale = 64.0f;
    r.amax = c.amax = 0.0f;
    ASSERT_EQ(r.run(kX23), LOWP_SUCCESS);
    ASSERT_EQ(c.run(kX23), LOWP_SUCCESS);
    EXPECT_TRUE(bytes_equal(r.row, V{0x68, 0xF0, 0x76, 0x60, 0x7E, 0xD8}, 2, 3, "rowwise"));
    EXPECT_TRUE(bytes_equal(c.col, V{0x68, 0x60, 0xF0, 0x7E, 0x76, 0xD8}, 3, 2, "columnwise"));
    EXPECT_TRUE(untouched(r.col.data(), 6, "columnwise codes"));
    EXPECT_TRUE(untouched(c.row.data(), 6, "rowwise codes"));
    EXPECT_EQ(r.amax, 7.0f);
    EXPECT_EQ(c.amax, 7.0f);
    EXPECT_EQ(c.scale_inv, 0.015625f);
  }
}

// Values exact in bf16, fp16 and fp32 give the same codes and scales whatever the input dtype.
TEST(Fp8InputDtypes, IdenticalCodes) {
  const std::vector<float> x = {1, -2, 0.375f, 3.5f, -0.0f, 0, 96, -0.0078125f};
  struct Want { lowp_dtype fmt; uint32_t scale_bits; V codes; };
  const Want wants[] = {
      {LOWP_DTYPE_E4M3, 0x40955555u, {0x49, 0xD1, 0x3E, 0x58, 0x80, 0x00, 0x7E, 0x91}},  // 448/96
      {LOWP_DTYPE_E5M2, 0x44155555u, {0x61, 0xE5, 0x5B, 0x68, 0x80, 0x00, 0x7B, 0xC5}}};  // 57344/96
  for (const Want& w : wants) {
    for (lowp_dtype in : kIn) {
      SCOPED_TRACE(testing::Message() << "fmt " << w.fmt << " input dtype " << in);
      Fp8Quant t(w.fmt, LOWP_SCALING_CURRENT, 2, 4);
      ASSERT_EQ(t.run(x, in), LOWP_SUCCESS);
      EXPECT_EQ(bits(t.scale), w.scale_bits);
      EXPECT_TRUE(bytes_equal(t.row, w.codes, 2, 4, "rowwise"));
      Fp8Quant p(w.fmt, LOWP_SCALING_PER_TOKEN, 2, 4);
      ASSERT_EQ(p.run(x, in), LOWP_SUCCESS);
      EXPECT_EQ(p.row_amax, (std::vector<float>{3.5f, 96}));
      EXPECT_EQ(p.col_amax, (std::vector<float>{1, 2, 96, 3.5f}));
    }
  }
}

// Odd shapes: x built from codes (independent decoder), max code last so current scale is 1;
// the codes must come back unchanged, columnwise in xT[c][r] order.
TEST(Fp8OddShapes, CodesRoundTripInBothLayouts) {
  const int64_t shapes[][2] = {{1, 1}, {3, 5}, {17, 33}};
  for (lowp_dtype fmt : {LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2}) {
    const bool e4 = fmt == LOWP_DTYPE_E4M3;
    for (const auto& s : shapes) {
      const int64_t R = s[0], C = s[1];
      V codes(R * C);
      std::vector<float> x(R * C);
      for (int64_t r = 0; r < R; ++r)
        for (int64_t c = 0; c < C; ++c) {
          uint8_t b = static_cast<uint8_t>(r * 37 + c * 11 + 5);
          if ((e4 && (b & 0x7F) == 0x7F) || (!e4 && (b & 0x7F) >= 0x7C)) b ^= 0x40;  // no NaN/inf
          codes[r * C + c] = b;
        }
      codes[R * C - 1] = e4 ? 0x7E : 0x7B;  // the max, so the current scale is 1
      for (size_t i = 0; i < x.size(); ++i) x[i] = e4 ? e4m3_value(codes[i]) : e5m2_value(codes[i]);
      V codes_t(R * C);
      for (int64_t r = 0; r < R; ++r)
        for (int64_t c = 0; c < C; ++c) codes_t[c * R + r] = codes[r * C + c];
      for (lowp_dtype in : kIn) {
        SCOPED_TRACE(testing::Message() << "fmt " << fmt << " shape " << R << "x" << C << " in " << in);
        Fp8Quant t(fmt, LOWP_SCALING_CURRENT, R, C);
        ASSERT_EQ(t.run(x, in), LOWP_SUCCESS) << lowp_get_last_error();
        EXPECT_EQ(t.scale, 1.0f);
        EXPECT_TRUE(bytes_equal(t.row, codes, R, C, "rowwise"));
        EXPECT_TRUE(bytes_equal(t.col, codes_t, C, R, "columnwise"));
      }
    }
  }
}

TEST(Fp8Knobs, AmaxEpsilon) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  cfg.amax_epsilon = 0.5f;
  Fp8Quant z(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 2);
  ASSERT_EQ(z.run({0, 0}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_EQ(z.amax, 0.0f);  // raw amax, not eps
  EXPECT_EQ(z.scale, 896.0f);
  EXPECT_EQ(bits(z.scale_inv), 0x3A924925u);  // RN(1/896)
  cfg.amax_epsilon = 1.0f;
  Fp8Quant s(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 2);
  ASSERT_EQ(s.run({0.25f, -0.125f}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_EQ(s.amax, 0.25f);
  EXPECT_EQ(s.scale, 448.0f);
  EXPECT_TRUE(bytes_equal(s.row, V{0x6E, 0xE6}, 1, 2));
  cfg.amax_epsilon = 0.5f;  // per token: zero row -> 448/0.5, row amax 1 > eps -> 448
  Fp8Quant p(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 2, 2, true, false);
  ASSERT_EQ(p.run({0, 0, 1, -0.5f}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_EQ(p.row_amax, (std::vector<float>{0, 1}));
  EXPECT_EQ(p.row_si, (std::vector<float>{1.0f / 896, 1.0f / 448}));
  EXPECT_TRUE(bytes_equal(p.row, V{0x00, 0x00, 0x7E, 0xF6}, 2, 2));
}

TEST(Fp8Knobs, PowerOfTwoScale) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  Fp8Quant plain(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 3);
  ASSERT_EQ(plain.run({3, -1, 0.5f}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_TRUE(bytes_equal(plain.row, V{0x7E, 0xF1, 0x69}, 1, 3, "scale 149.33"));
  cfg.power_of_two_scale = 1;
  Fp8Quant p2(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 3);
  ASSERT_EQ(p2.run({3, -1, 0.5f}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_EQ(p2.scale, 128.0f);  // 149.33 with the mantissa cleared
  EXPECT_EQ(p2.scale_inv, 1.0f / 128);
  EXPECT_TRUE(bytes_equal(p2.row, V{0x7C, 0xF0, 0x68}, 1, 3, "scale 128"));
  Fp8Quant pt(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 1, 3, true, false);
  ASSERT_EQ(pt.run({3, -1, 0.5f}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_EQ(pt.row_si[0], 1.0f / 128);
  Fp8Quant big(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 1, 1);  // FLT_MAX -> 2^127
  ASSERT_EQ(big.run({f32_from_bits(1)}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_EQ(bits(big.scale), 0x7F000000u);
  // Delayed scaling uses the given scale as is.
  Fp8Quant d(LOWP_DTYPE_E4M3, LOWP_SCALING_DELAYED, 1, 3);
  d.scale = 3.0f;
  d.amax = 0.0f;
  ASSERT_EQ(d.run({1, -1, 0.5f}, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS);
  EXPECT_EQ(d.scale, 3.0f);
  EXPECT_TRUE(bytes_equal(d.row, V{0x44, 0xC4, 0x3C}, 1, 3));
}
