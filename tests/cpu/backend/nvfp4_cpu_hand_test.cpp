// numerics §3/§4 hand-worked NVFP4 per-tensor examples through lowp_quantize / lowp_dequantize.
// Every expected byte below is worked out in the comments from the formulas of docs/numerics.md; none comes
// from running code.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "nvfp4_fixture.h"

using namespace lowp_test;

namespace {

constexpr int64_t kRowScaleCols = 4;  // roundup(K/16, 4) for K <= 64

uint8_t row_scale(const Nvfp4Quant& t, int64_t i, int64_t j) { return t.row_scales[i * kRowScaleCols + j]; }

// Every compact scale entry outside rows [0, R) x blocks [0, B) is 0.
::testing::AssertionResult padding_zero(const std::vector<uint8_t>& s, int64_t R, int64_t B, int64_t C) {
  for (size_t k = 0; k < s.size(); ++k) {
    const int64_t i = static_cast<int64_t>(k) / C, j = static_cast<int64_t>(k) % C;
    if ((i >= R || j >= B) && s[k] != 0)
      return ::testing::AssertionFailure() << "padding scale [" << i << "][" << j << "] = " << int(s[k]);
  }
  return ::testing::AssertionSuccess();
}

// A = 2688 gives S_enc = 2688/2688 = 1. Row 0 has block amax 6: s = E4M3(6 * (1 * fl(1/6))) =
// E4M3(1.0000000298 -> fp32 1.0) = 0x38; m = 1/(1.0 * (1/1)) = 1, so the codes are E2M1_RN of
// the values themselves, with numerics §1's ties to even. Row 1 holds the amax: b = 2688,
// s = E4M3(448) = 0x7E, m = 1/448, 2688/448 = 6 -> code 7.
TEST(Nvfp4Hand, KnownBlockCodesAndScale) {
  const std::vector<float> row0 = {0.0f, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f,
                                   6.0f, -0.25f, -1.75f, -5.0f, 0.5f, 3.0f, -6.0f, -0.0f};
  std::vector<float> x(32, 0.0f);
  for (int i = 0; i < 16; ++i) x[i] = row0[i];
  x[16] = 2688.0f;
  Nvfp4Quant t(2, 16, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  // codes: 0->0, .25->0 (tie to even), .75->2 (1.0), 1.25->2, 1.75->4 (2.0), 2.5->4, 3.5->6 (4.0),
  // 5->6, 6->7, -.25->8 (-0), -1.75->12, -5->14, .5->1, 3->5, -6->15, -0.0->8.
  // Packed element 2j low nibble, 2j+1 high nibble:
  const uint8_t want0[8] = {0x00, 0x22, 0x44, 0x66, 0x87, 0xEC, 0x51, 0x8F};
  const uint8_t want1[8] = {0x07, 0, 0, 0, 0, 0, 0, 0};
  for (int b = 0; b < 8; ++b) {
    EXPECT_EQ(t.row[b], want0[b]) << "row 0 byte " << b;
    EXPECT_EQ(t.row[8 + b], want1[b]) << "row 1 byte " << b;
  }
  EXPECT_EQ(row_scale(t, 0, 0), 0x38);
  EXPECT_EQ(row_scale(t, 1, 0), 0x7E);
  EXPECT_EQ(t.row_amax, 2688.0f);
  EXPECT_TRUE(padding_zero(t.row_scales, 2, 1, kRowScaleCols));
  EXPECT_EQ(t.row_scales.size(), 128u * 4u);
  // Dequantize: outer = 1.0 * 2688 * fl(1/2688) = 1 + 2^-35*640 -> fp32 1.0, so x^ = e2m1(q).
  std::vector<float> out(32);
  lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, 2, 16};
  ASSERT_EQ(lowp_dequantize(&t.q, LOWP_ROWWISE, &o, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  const float want_x[16] = {0, 0, 1, 1, 2, 2, 4, 4, 6, -0.0f, -2, -4, 0.5f, 3, -6, -0.0f};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(f32_bits(out[i]), f32_bits(want_x[i])) << i;
  EXPECT_EQ(out[16], 2688.0f);  // 6 * (448 * 2688 * fl(1/2688)) = 6 * 448
}

// The same block as column 0 of a 16x16 x: the columnwise copy's row 0 is that block.
TEST(Nvfp4Hand, KnownBlockColumnwise) {
  const float col0[16] = {0.0f, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f,
                          6.0f, -0.25f, -1.75f, -5.0f, 0.5f, 3.0f, -6.0f, -0.0f};
  std::vector<float> x(256, 0.0f);
  for (int r = 0; r < 16; ++r) x[r * 16] = col0[r];
  x[1] = 2688.0f;  // x[0][1]: column 1 of x = row 1 of x^T
  Nvfp4Quant t(16, 16, false, true);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  const uint8_t want0[8] = {0x00, 0x22, 0x44, 0x66, 0x87, 0xEC, 0x51, 0x8F};
  for (int b = 0; b < 8; ++b) EXPECT_EQ(t.col[b], want0[b]) << "columnwise row 0 byte " << b;
  EXPECT_EQ(t.col[8], 0x07);
  EXPECT_EQ(t.col_scales[0], 0x38);
  EXPECT_EQ(t.col_scales[4], 0x7E);
  EXPECT_EQ(t.col_scales[8], 0x00);  // all-zero columns: b = 0 -> s = 0
  EXPECT_EQ(t.col_amax, 2688.0f);   // A_col = A_row without RHT
  EXPECT_TRUE(untouched(t.row.data(), t.row.size(), "rowwise codes (not requested)"));
  EXPECT_TRUE(untouched(&t.row_amax, 4, "rowwise amax (not requested)"));
}

// amax = 0: S_enc = 1 (A == 0 rule); b = 0 -> s = E4M3(0) = 0; m = min(1/(0 * 1), FLT_MAX) =
// FLT_MAX; +0 * m = +0 -> code 0, -0 * m = -0 -> code 8 (numerics §1 keeps the sign).
TEST(Nvfp4Hand, AmaxZero) {
  std::vector<float> x(32, 0.0f);
  x[3] = -0.0f;
  Nvfp4Quant t(1, 32, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(f32_bits(t.row_amax), 0u);
  for (int b = 0; b < 16; ++b) EXPECT_EQ(t.row[b], b == 1 ? 0x80 : 0x00) << b;
  EXPECT_EQ(row_scale(t, 0, 0), 0);
  EXPECT_EQ(row_scale(t, 0, 1), 0);
  std::vector<float> out(32, 1.0f);
  lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, 1, 32};
  ASSERT_EQ(lowp_dequantize(&t.q, LOWP_ROWWISE, &o, nullptr), LOWP_SUCCESS);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], 0.0f) << i;
}

// amax = inf: S_enc = 1 (2688/inf = 0 -> 1). Block 0 holds the inf: b = inf ->
// min(inf/6, FLT_MAX) = FLT_MAX -> E4M3 satfinite 448 = 0x7E; m = 1/448 = 0.00223214...:
// inf -> 7; 1000/448 = 2.23 -> 2 = code 4; -3000/448 = -6.7 -> -6 = 15; 100/448 = 0.22 -> 0.
// Block 1 (finite): b = 12, s = E4M3(12 * fl(1/6) = 2.00000006 -> 2.0) = 0x40, m = 0.5:
// 12 -> 6 = 7, -6 -> -3 = 13, 3 -> 1.5 = 3, 1 -> 0.5 = 1.
TEST(Nvfp4Hand, AmaxInf) {
  std::vector<float> x(32, 0.0f);
  x[0] = INFINITY, x[1] = 1000.0f, x[2] = -3000.0f, x[3] = 100.0f;
  x[16] = 12.0f, x[17] = -6.0f, x[18] = 3.0f, x[19] = 1.0f;
  Nvfp4Quant t(1, 32, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(f32_bits(t.row_amax), 0x7F800000u);
  EXPECT_EQ(row_scale(t, 0, 0), 0x7E);
  EXPECT_EQ(row_scale(t, 0, 1), 0x40);
  EXPECT_EQ(t.row[0], 0x47);  // codes 7, 4
  EXPECT_EQ(t.row[1], 0x0F);  // codes 15, 0
  EXPECT_EQ(t.row[8], 0xD7);  // codes 7, 13
  EXPECT_EQ(t.row[9], 0x13);  // codes 3, 1
}

// amax = NaN: S_enc = min(2688/NaN, FLT_MAX) = FLT_MAX (fminf drops NaN). S_dec = 1/FLT_MAX =
// 2^-128 (subnormal, exact after rounding). Every block: b * (FLT_MAX * fl(1/6)) is NaN, inf
// or huge -> min(., FLT_MAX) -> s = 0x7E; m = 1/(448 * 2^-128) = 2^122/7 = 7.6e35.
// NaN -> 7; 1.0 -> 6 = 7; -1e-30 -> -7.6e5 -> 15; 0 -> 0; 1e-36 -> 0.7594 -> 1.0 = code 2.
TEST(Nvfp4Hand, AmaxNaN) {
  std::vector<float> x(32, 0.0f);
  x[0] = lowp_test::f32_from_bits(0x7FC00000u), x[1] = 1.0f, x[2] = -1e-30f, x[3] = 0.0f;
  x[16] = 1e-36f, x[17] = 1.0f;
  Nvfp4Quant t(1, 32, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(f32_bits(t.row_amax), 0x7FC00000u);  // the input's NaN, sign cleared
  EXPECT_EQ(row_scale(t, 0, 0), 0x7E);
  EXPECT_EQ(row_scale(t, 0, 1), 0x7E);
  EXPECT_EQ(t.row[0], 0x77);
  EXPECT_EQ(t.row[1], 0x0F);
  EXPECT_EQ(t.row[8], 0x72);
}

// An all-zero block next to a normal one, and a block whose scale underflows: A = 2688
// (S_enc = 1). Block 1 is all zero: b = 0 -> s = 0, codes 0. Block 2 has b = 1e-3:
// E4M3(1e-3 * fl(1/6) = 1.67e-4) rounds to 0 (below half the smallest subnormal 2^-9), so
// s = 0, m = min(1/0, FLT_MAX) = FLT_MAX and the per-tensor multiplier saturates the codes
// (1e-3 -> 7, -5e-4 -> 15) while the zero scale dequantizes them to 0 (numerics §3 per-tensor).
TEST(Nvfp4Hand, ZeroBlockAndScaleUnderflow) {
  std::vector<float> x(48, 0.0f);
  x[0] = 2688.0f;
  x[32] = 1e-3f, x[33] = -5e-4f, x[34] = 0.0f, x[35] = -0.0f;
  Nvfp4Quant t(1, 48, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(row_scale(t, 0, 0), 0x7E);
  EXPECT_EQ(row_scale(t, 0, 1), 0x00);
  EXPECT_EQ(row_scale(t, 0, 2), 0x00);
  for (int b = 8; b < 16; ++b) EXPECT_EQ(t.row[b], 0x00) << "zero block byte " << b;
  EXPECT_EQ(t.row[16], 0xF7);  // codes 7, 15
  EXPECT_EQ(t.row[17], 0x80);  // codes 0, 8
  std::vector<float> out(48, 1.0f);
  lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, 1, 48};
  ASSERT_EQ(lowp_dequantize(&t.q, LOWP_ROWWISE, &o, nullptr), LOWP_SUCCESS);
  for (int i = 16; i < 48; ++i) EXPECT_EQ(out[i], 0.0f) << i;
}

// RHT wiring (numerics §4, §7): column 0 of x is e_k (a one at row k), all else 0. H16 e_k is
// column k of the Hadamard matrix, (-1)^popcount(j & k); x0.25 -> +-0.25, exact in bf16. So
// A_col = 0.25, S_enc = 10752, s = E4M3(0.25 * fl(10752 * fl(1/6)) = 448) = 0x7E, m ~ 24 and
// every element is +-6: code 7 or 15 by the sign pattern. Sign mask bit k flips the input,
// hence every sign of the output.
TEST(Nvfp4Hand, RhtSignMaskRespected) {
  struct Case {
    int k;
    uint32_t mask;
    bool negated;
  };
  for (const Case& c : {Case{0, 0x0000u, false}, Case{0, 0x0001u, true}, Case{0, 0xD7E8u, false},
                        Case{1, 0x0000u, false}, Case{1, 0x0002u, true}, Case{3, 0xD7E8u, true},
                        Case{5, 0xD7E8u, true}, Case{4, 0xD7E8u, false}}) {
    SCOPED_TRACE(testing::Message() << "k " << c.k << " mask 0x" << std::hex << c.mask);
    std::vector<float> x(256, 0.0f);
    x[c.k * 16] = 1.0f;
    Nvfp4Quant t(16, 16, false, true);
    lowp_quant_config cfg;
    lowp_quant_config_default(&cfg);
    cfg.rht = 1;
    cfg.rht_sign_mask = c.mask;
    ASSERT_EQ(t.run(x, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(t.col_amax, 0.25f);
    EXPECT_EQ(t.col_scales[0], 0x7E);
    for (int j = 0; j < 16; ++j) {
      const bool neg = (__builtin_popcount(static_cast<unsigned>(j & c.k)) & 1) != c.negated;
      const uint8_t code = static_cast<uint8_t>((t.col[j / 2] >> (4 * (j % 2))) & 0xF);
      EXPECT_EQ(code, neg ? 15 : 7) << "element " << j;
    }
    // Other columns are zero; a flipped +0 is -0 and the butterflies keep some zeros negative,
    // which E2M1 RN encodes as code 8 (numerics §1), so only the magnitudes are 0.
    for (int b = 8; b < 128; ++b) EXPECT_EQ(t.col[b] & 0x77, 0) << "other columns are zero, byte " << b;
  }
}

}  // namespace
