// CPU backend: lowp_amax, lowp_amax_per_token and the multi-tensor delayed-scaling update
// (numerics §0 amax, §2 delayed scaling), against hand-worked values.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "fp8_quant_fixture.h"

using namespace lowp_test;

namespace {

float amax_of(const std::vector<float>& x, lowp_dtype in, int64_t rows, int64_t cols) {
  std::vector<uint8_t> b = encode(x, in);
  lowp_tensor t{b.data(), in, rows, cols};
  float a = 12345.0f;  // overwritten, never folded
  EXPECT_EQ(lowp_amax(&t, &a, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  return a;
}

// One update over `hist` ([n][L]) with starting scales; returns the new scales, rolls hist.
struct Update {
  std::vector<float> hist, scale, scale_inv;
  lowp_status run(int64_t n, lowp_dtype fmt = LOWP_DTYPE_E4M3, int margin = 0,
                  lowp_amax_algo algo = LOWP_AMAX_ALGO_MAX) {
    scale_inv.assign(scale.size(), -1.0f);
    return lowp_fp8_delayed_scaling_update(n, static_cast<int64_t>(hist.size()) / n, hist.data(),
                                           scale.data(), scale_inv.data(), fmt, margin, algo, nullptr);
  }
};

}  // namespace

TEST(Fp8Amax, WholeTensor) {
  for (lowp_dtype in : {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16}) {
    EXPECT_EQ(amax_of({-5, 3, -0.0f, 4.5f}, in, 2, 2), 5.0f) << in;
    EXPECT_EQ(bits(amax_of({-0.0f}, in, 1, 1)), 0u) << "amax of -0 is +0";
    EXPECT_TRUE(std::isnan(amax_of({1, -INFINITY, std::nanf(""), 2}, in, 1, 4))) << "NaN beats inf";
    EXPECT_EQ(amax_of({1, -INFINITY, 2}, in, 3, 1), INFINITY);
  }
  EXPECT_EQ(bits(amax_of({f32_from_bits(0x80000003u), f32_from_bits(2)}, LOWP_DTYPE_FLOAT32, 1, 2)), 3u);
}

TEST(Fp8Amax, ManyRowsMaxInLastChunk) {
  std::vector<float> x(517 * 3, 0.25f);
  x[515 * 3 + 2] = -96.0f;
  x[7] = 95.0f;
  EXPECT_EQ(amax_of(x, LOWP_DTYPE_BFLOAT16, 517, 3), 96.0f);
}

TEST(Fp8AmaxPerToken, RowsAndColumnsTogetherAndAlone) {
  const std::vector<float> x = {1, -7, 2, -0.0f, 0.5f, -3};  // 2x3
  std::vector<uint8_t> b = encode(x, LOWP_DTYPE_FLOAT16);
  lowp_tensor t{b.data(), LOWP_DTYPE_FLOAT16, 2, 3};
  std::vector<float> ra(2, -1.0f), ca(3, -1.0f);
  ASSERT_EQ(lowp_amax_per_token(&t, ra.data(), ca.data(), nullptr), LOWP_SUCCESS);
  EXPECT_EQ(ra, (std::vector<float>{7, 3}));
  EXPECT_EQ(ca, (std::vector<float>{1, 7, 3}));
  ra.assign(2, -1.0f);
  ASSERT_EQ(lowp_amax_per_token(&t, ra.data(), nullptr, nullptr), LOWP_SUCCESS);
  EXPECT_EQ(ra, (std::vector<float>{7, 3}));
  ca.assign(3, -1.0f);
  ASSERT_EQ(lowp_amax_per_token(&t, nullptr, ca.data(), nullptr), LOWP_SUCCESS);
  EXPECT_EQ(ca, (std::vector<float>{1, 7, 3}));
}

TEST(Fp8AmaxPerToken, ManyRowsWithNaN) {
  const int64_t R = 260, C = 5;
  std::vector<float> x(R * C);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) x[r * C + c] = (r % 2 ? -1.0f : 1.0f) * static_cast<float>(c + 1);
  x[259 * C + 1] = -1000.0f;     // column 1 max in the last chunk
  x[130 * C + 3] = std::nanf("");  // NaN in row 130, column 3
  std::vector<float> ra(R), ca(C);
  std::vector<uint8_t> b = encode(x, LOWP_DTYPE_FLOAT32);
  lowp_tensor t{b.data(), LOWP_DTYPE_FLOAT32, R, C};
  ASSERT_EQ(lowp_amax_per_token(&t, ra.data(), ca.data(), nullptr), LOWP_SUCCESS);
  EXPECT_EQ(ca[0], 1.0f);
  EXPECT_EQ(ca[1], 1000.0f);
  EXPECT_EQ(ca[2], 3.0f);
  EXPECT_TRUE(std::isnan(ca[3]));
  EXPECT_EQ(ca[4], 5.0f);
  EXPECT_EQ(ra[0], 5.0f);
  EXPECT_EQ(ra[259], 1000.0f);
  EXPECT_TRUE(std::isnan(ra[130]));
  EXPECT_EQ(ra[131], 5.0f);
}

TEST(Fp8DelayedUpdate, MaxAlgoRollsAndKeepsScaleOnZeroAmax) {
  Update u{{14, 28, 7, 3.5f,   // tensor 0: max 28 -> 448 / 28 = 16
            0, 0, 0, 0},       // tensor 1: amax 0 -> keeps scale 3
           {1, 3}, {}};
  ASSERT_EQ(u.run(2), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(u.scale, (std::vector<float>{16, 3}));
  EXPECT_EQ(u.scale_inv, (std::vector<float>{0.0625f, 1.0f / 3}));
  // h'[i] = h[i+1], h'[L-1] = h[0], h'[0] = 0.
  EXPECT_EQ(u.hist, (std::vector<float>{0, 7, 3.5f, 14, 0, 0, 0, 0}));
}

TEST(Fp8DelayedUpdate, MostRecentMarginAndE5M2) {
  Update a{{14, 28, 7, 3.5f}, {1}, {}};
  ASSERT_EQ(a.run(1, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MOST_RECENT), LOWP_SUCCESS);
  EXPECT_EQ(a.scale[0], 32.0f);  // h[0] = 14
  Update m{{14, 28, 7, 3.5f}, {1}, {}};
  ASSERT_EQ(m.run(1, LOWP_DTYPE_E4M3, 2), LOWP_SUCCESS);
  EXPECT_EQ(m.scale[0], 4.0f);  // 448 * 2^-2 / 28
  Update n{{14, 28, 7, 3.5f}, {1}, {}};
  ASSERT_EQ(n.run(1, LOWP_DTYPE_E4M3, -1), LOWP_SUCCESS);
  EXPECT_EQ(n.scale[0], 32.0f);  // 448 * 2 / 28
  Update e{{14, 28, 7, 3.5f}, {1}, {}};
  ASSERT_EQ(e.run(1, LOWP_DTYPE_E5M2), LOWP_SUCCESS);
  EXPECT_EQ(e.scale[0], 2048.0f);  // 57344 / 28
  EXPECT_EQ(e.scale_inv[0], 1.0f / 2048);
  Update r{{0, 28, 7, 3.5f}, {5}, {}};  // most recent is 0 although older entries are not
  ASSERT_EQ(r.run(1, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MOST_RECENT), LOWP_SUCCESS);
  EXPECT_EQ(r.scale[0], 5.0f);
  EXPECT_EQ(r.scale_inv[0], 0.2f);
}

TEST(Fp8DelayedUpdate, NonFiniteAmaxKeepsScale) {
  Update u{{1, std::nanf(""), 2,   // NaN in the window -> reduced amax NaN
            INFINITY, 1, 2,        // inf
            0.5f, 1, 2},           // finite: 448 / 2 = 224
           {7, 8, 9}, {}};
  ASSERT_EQ(u.run(3), LOWP_SUCCESS);
  EXPECT_EQ(u.scale, (std::vector<float>{7, 8, 224}));
  EXPECT_EQ(u.scale_inv[2], 1.0f / 224);
  EXPECT_EQ(u.hist[3 + 2], INFINITY);  // rolled to the end
  EXPECT_EQ(u.hist[3], 0.0f);
}

TEST(Fp8DelayedUpdate, LengthOneAndOverflow) {
  Update u{{f32_from_bits(1)}, {1}, {}};  // 448 / 2^-149 = inf -> FLT_MAX
  ASSERT_EQ(u.run(1), LOWP_SUCCESS);
  EXPECT_EQ(u.scale[0], FLT_MAX);
  EXPECT_EQ(bits(u.scale_inv[0]), 0x00200000u);
  EXPECT_EQ(u.hist, (std::vector<float>{0}));
  Update v{{5}, {1}, {}};
  ASSERT_EQ(v.run(1), LOWP_SUCCESS);
  EXPECT_EQ(v.scale[0], 448.0f / 5);
}
