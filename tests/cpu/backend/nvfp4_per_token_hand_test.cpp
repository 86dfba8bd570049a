// numerics §3/§5 hand-worked NVFP4 per-token examples through lowp_quantize, lowp_dequantize and
// lowp_nvfp4_amax_per_token. Every expected byte below is worked out in the comments from the
// the formulas of docs/numerics.md (fp32 products and quotients rounded by hand); none comes from running lowp.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nvfp4_per_token_fixture.h"

using namespace lowp_test;

namespace {

constexpr int64_t kScaleCols = 4;  // roundup(K/16, 4) for K <= 64

uint8_t row_scale(const Nvfp4PtQuant& t, int64_t i, int64_t j) { return t.row_scales[i * kScaleCols + j]; }

const float kKnownBlock[16] = {0.0f, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f,
                               6.0f, -0.25f, -1.75f, -5.0f, 0.5f, 3.0f, -6.0f, -0.0f};
// E2M1 RN codes of kKnownBlock * 1 (numerics §1 ties to even), packed: element 2j low nibble.
const uint8_t kKnownCodes[8] = {0x00, 0x22, 0x44, 0x66, 0x87, 0xEC, 0x51, 0x8F};

// Row 0 is all zero (with a -0.0): stored amax 0 (raw), S_enc = 2688 / max(0, 1e-12) =
// 2.688e15 (not 1.0), b = 0 -> s = E4M3(0) = 0x00: a zero-scale block, so every code is 0,
// the -0.0 included (per-tensor writes code 8 for it).
// Row 1 is scaled on its own: block 1 holds 2688, A = 2688, S_enc = 1. Block 0 is the known
// block: b = 6, s = E4M3(6 * (1 * fl(1/6)) = 1.0) = 0x38, m = 1 / 1.0 = 1, codes as numerics §1
// (the -0.0 there is code 8: its scale is not 0). Block 1: b = 2688, s = E4M3(448) = 0x7E,
// m = 1 / 448, 2688 * fl(1/448) = 6 -> code 7.
TEST(Nvfp4PerTokenHand, ZeroRowAndKnownBlock) {
  std::vector<float> x(64, 0.0f);
  x[5] = -0.0f;
  for (int i = 0; i < 16; ++i) x[32 + i] = kKnownBlock[i];
  x[48] = 2688.0f;
  Nvfp4PtQuant t(2, 32, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(f32_bits(t.row_amax[0]), 0u);
  EXPECT_EQ(t.row_amax[1], 2688.0f);
  for (int b = 0; b < 16; ++b) EXPECT_EQ(t.row[b], 0x00) << "zero row byte " << b;
  for (int b = 0; b < 8; ++b) EXPECT_EQ(t.row[16 + b], kKnownCodes[b]) << "row 1 byte " << b;
  EXPECT_EQ(t.row[24], 0x07);
  for (int b = 25; b < 32; ++b) EXPECT_EQ(t.row[b], 0x00) << "row 1 byte " << b;
  EXPECT_EQ(row_scale(t, 0, 0), 0x00);
  EXPECT_EQ(row_scale(t, 0, 1), 0x00);
  EXPECT_EQ(row_scale(t, 1, 0), 0x38);
  EXPECT_EQ(row_scale(t, 1, 1), 0x7E);
  for (size_t k = 0; k < t.row_scales.size(); ++k)
    if (k != 4 && k != 5) {
      EXPECT_EQ(t.row_scales[k], 0) << "padding scale byte " << k;
    }
  // Dequantize. Row 0: A = max(0, 1e-12), s = 0 -> every value 0. Row 1: A = 2688, block 0:
  // 1.0 * 2688 * fl(1/2688) = 1.0 (fp32), so x^ = e2m1(q); block 1: 448 * 2688 * fl(1/2688) =
  // 448, 6 * 448 = 2688.
  const std::vector<float> out = t.dequantize(LOWP_ROWWISE);
  const float want1[16] = {0, 0, 1, 1, 2, 2, 4, 4, 6, -0.0f, -2, -4, 0.5f, 3, -6, -0.0f};
  for (int i = 0; i < 32; ++i) EXPECT_EQ(f32_bits(out[i]), 0u) << "row 0 element " << i;
  for (int i = 0; i < 16; ++i) EXPECT_EQ(f32_bits(out[32 + i]), f32_bits(want1[i])) << "row 1 element " << i;
  EXPECT_EQ(out[48], 2688.0f);
}

// A NaN row: the stored amax is the NaN (raw, sign cleared); S_enc uses max(NaN, 1e-12) = 1e-12
// (fp32 0x2B8CBCCC): S_enc = fl(2688 / 1e-12) = 2.688e15 (0x5918CB8C), S_enc * fl(1/6) = 4.48e14.
// Block 0 holds the NaN: b = NaN -> min(NaN * ..., FLT_MAX) = FLT_MAX (fminf drops NaN) -> 0x7E;
// m = fl(2.688e15 / 448) = 5.9999996e12: NaN -> 7, 1.0 -> 6e12 -> 7, -1e-30 -> -6e-18 -> -0 = 8,
// 0 -> 0. Block 1: b = 1e-13, 1e-13 * 4.48e14 = 44.8 -> E4M3 44 (0x63, between 40 and 48 in
// steps of 4: 44.8 is nearer 44); m = fl(2.688e15 / 44) = 6.1090906e13: 1e-13 -> 6.109 -> 6 =
// code 7, -5e-14 -> -3.05 -> -3 = code 13.
TEST(Nvfp4PerTokenHand, NaNRow) {
  std::vector<float> x(32, 0.0f);
  x[0] = f32_from_bits(0xFFC00001u), x[1] = 1.0f, x[2] = -1e-30f, x[3] = 0.0f;
  x[16] = 1e-13f, x[17] = -5e-14f;
  Nvfp4PtQuant t(1, 32, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(f32_bits(t.row_amax[0]), 0x7FC00001u);  // the input's NaN, |.|
  EXPECT_EQ(row_scale(t, 0, 0), 0x7E);
  EXPECT_EQ(row_scale(t, 0, 1), 0x63);
  EXPECT_EQ(t.row[0], 0x77);
  EXPECT_EQ(t.row[1], 0x08);
  EXPECT_EQ(t.row[8], 0xD7);
}

// A block whose scale decodes to 0 next to a huge row amax: x[0] = 2688 gives S_enc = 1; block 1
// has b = 1e-3, 1e-3 * fl(1/6) = 1.67e-4 is below half the smallest E4M3 subnormal (2^-10), so
// s = 0 and every code of the block is 0, positive zero, negative values included (the
// per-tensor multiplier would saturate them to codes 7 and 15). Block 2 is all -0.0: b = 0, s = 0,
// codes 0 as well.
TEST(Nvfp4PerTokenHand, ZeroScaleBlockWritesPositiveZeros) {
  std::vector<float> x(48, 0.0f);
  x[0] = 2688.0f;
  x[16] = 1e-3f, x[17] = -5e-4f, x[18] = -1e-4f, x[19] = -0.0f, x[31] = -1e-3f;
  for (int i = 32; i < 48; ++i) x[i] = -0.0f;
  Nvfp4PtQuant t(1, 48, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(t.row_amax[0], 2688.0f);
  EXPECT_EQ(row_scale(t, 0, 0), 0x7E);
  EXPECT_EQ(row_scale(t, 0, 1), 0x00);
  EXPECT_EQ(row_scale(t, 0, 2), 0x00);
  EXPECT_EQ(t.row[0], 0x07);
  for (int b = 8; b < 24; ++b) EXPECT_EQ(t.row[b], 0x00) << "zero-scale block byte " << b;
  const std::vector<float> out = t.dequantize(LOWP_ROWWISE);
  for (int i = 16; i < 48; ++i) EXPECT_EQ(f32_bits(out[i]), 0u) << i;
}

// An inf in row 0: A = inf, S_enc = 2688 / inf = 0 -> 1.0. Block 0: b = inf -> FLT_MAX -> 0x7E,
// m = fl(1 / 448) = 0.002232143: inf -> 7, 1000 -> 2.23 -> 2 = code 4, -3000 -> -6.7 -> 15,
// 100 -> 0.22 -> 0. Block 1: b = 12, s = E4M3(12 * fl(1/6) = 2.0) = 0x40, m = 0.5: 12 -> 7,
// -6 -> 13, 3 -> 1.5 = 3, 1 -> 0.5 = 1. Row 1 has its own amax 6: S_enc = fl(2688 / 6) = 448,
// s = E4M3(6 * fl(448 * fl(1/6)) = 448.00003) = 0x7E, m = 448 / 448 = 1: 6 -> 7, 3 -> 5,
// -1.5 -> 11, 0.75 -> 1.0 (tie to even) = 2. The inf does not touch row 1.
TEST(Nvfp4PerTokenHand, InfRowAndIndependentRow) {
  std::vector<float> x(64, 0.0f);
  x[0] = INFINITY, x[1] = 1000.0f, x[2] = -3000.0f, x[3] = 100.0f;
  x[16] = 12.0f, x[17] = -6.0f, x[18] = 3.0f, x[19] = 1.0f;
  x[32] = 6.0f, x[33] = 3.0f, x[34] = -1.5f, x[35] = 0.75f;
  Nvfp4PtQuant t(2, 32, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(f32_bits(t.row_amax[0]), 0x7F800000u);
  EXPECT_EQ(t.row_amax[1], 6.0f);
  EXPECT_EQ(row_scale(t, 0, 0), 0x7E);
  EXPECT_EQ(row_scale(t, 0, 1), 0x40);
  EXPECT_EQ(row_scale(t, 1, 0), 0x7E);
  EXPECT_EQ(row_scale(t, 1, 1), 0x00);
  EXPECT_EQ(t.row[0], 0x47);
  EXPECT_EQ(t.row[1], 0x0F);
  EXPECT_EQ(t.row[8], 0xD7);
  EXPECT_EQ(t.row[9], 0x13);
  EXPECT_EQ(t.row[16], 0x57);
  EXPECT_EQ(t.row[17], 0x2B);
}

// Columnwise with RHT (numerics §5, §7): column 0 of x is e_k. RHT16(e_k) (unnormalised) is column k
// of H16, (-1)^popcount(j & k), flipped by mask bit k: every element +-1. col_amax[0] = 1 * 0.25
// = 0.25 (exact, fp32: no bf16 step); S_enc = 2688 / 0.25 = 10752; b = 1 * 0.25; s =
// E4M3(0.25 * fl(10752 * fl(1/6)) = 0.25 * 1792 = 448) = 0x7E; m = 10752 / 448 = 24, times 0.25
// = 6: every element is +-6, code 7 or 15. The other columns are zero: amax 0, zero-scale
// blocks, so their codes are exactly 0 (no -0 codes from the butterflies, unlike per-tensor).
TEST(Nvfp4PerTokenHand, RhtColumnwise) {
  struct Case {
    int k;
    uint32_t mask;
    bool negated;
  };
  for (const Case& c : {Case{0, 0x0000u, false}, Case{0, 0x0001u, true}, Case{1, 0x0002u, true},
                        Case{3, 0xD7E8u, true}, Case{4, 0xD7E8u, false}, Case{15, 0xD7E8u, true}}) {
    SCOPED_TRACE(testing::Message() << "k " << c.k << " mask 0x" << std::hex << c.mask);
    std::vector<float> x(256, 0.0f);
    x[c.k * 16] = 1.0f;
    Nvfp4PtQuant t(16, 16, false, true);
    lowp_quant_config cfg = default_config();
    cfg.rht = 1;
    cfg.rht_sign_mask = c.mask;
    ASSERT_EQ(t.run(x, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(t.col_amax[0], 0.25f);
    for (int k = 1; k < 16; ++k) EXPECT_EQ(f32_bits(t.col_amax[k]), 0u) << "col_amax " << k;
    EXPECT_EQ(t.col_scales[0], 0x7E);
    for (int j = 0; j < 16; ++j) {
      const bool neg = (__builtin_popcount(static_cast<unsigned>(j & c.k)) & 1) != c.negated;
      const uint8_t code = static_cast<uint8_t>((t.col[j / 2] >> (4 * (j % 2))) & 0xF);
      EXPECT_EQ(code, neg ? 15 : 7) << "element " << j;
    }
    for (int b = 8; b < 128; ++b) EXPECT_EQ(t.col[b], 0) << "other columns, byte " << b;
    // K1 alone gives the same amaxes: the RHT one for column 0, 0 for the rest; row amaxes
    // never use the RHT (row k holds the one).
    std::vector<float> row_amax(16, -1.0f), col_amax(16, -1.0f);
    lowp_tensor xt{x.data(), LOWP_DTYPE_FLOAT32, 16, 16};
    ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, row_amax.data(), col_amax.data(), &cfg, nullptr), LOWP_SUCCESS);
    EXPECT_TRUE(float_bits_equal(col_amax.data(), t.col_amax.data(), 16, "K1 col_amax"));
    for (int r = 0; r < 16; ++r) EXPECT_EQ(row_amax[r], r == c.k ? 1.0f : 0.0f) << "row_amax " << r;
  }
}

// K1 with RHT on a constant column: g = (1, ..., 1). Mask 0: RHT16(g) = (16, 0, ..., 0), amax
// 16 * 0.25 = 4. Mask 0x00FF flips the first 8: H16 of (-1 x8, +1 x8) is (0, ..., 0, -16 at
// index 8, 0, ...): amax 4 again. Without RHT the column amax is 1. Two strips (M = 32) where the
// second is 3x the first: 3 * 16 * 0.25 = 12.
TEST(Nvfp4PerTokenHand, RhtAmaxOfConstantColumns) {
  std::vector<float> x(32 * 16, 1.0f);
  for (int r = 16; r < 32; ++r) x[r * 16 + 1] = 3.0f;  // column 1: second strip is 3
  lowp_tensor xt{x.data(), LOWP_DTYPE_FLOAT32, 32, 16};
  for (uint32_t mask : {0x0000u, 0x00FFu}) {
    lowp_quant_config cfg = default_config();
    cfg.rht = 1;
    cfg.rht_sign_mask = mask;
    std::vector<float> col(16, -1.0f);
    ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, nullptr, col.data(), &cfg, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(col[0], 4.0f) << "mask " << mask;
    EXPECT_EQ(col[1], 12.0f) << "mask " << mask;
  }
  std::vector<float> col(16, -1.0f), row(32, -1.0f);
  ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, row.data(), col.data(), nullptr, nullptr), LOWP_SUCCESS);
  EXPECT_EQ(col[0], 1.0f);
  EXPECT_EQ(col[1], 3.0f);
  EXPECT_EQ(row[0], 1.0f);
  EXPECT_EQ(row[31], 3.0f);
}

}  // namespace
