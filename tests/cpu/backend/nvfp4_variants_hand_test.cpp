// Hand-worked examples of row-scaled NVFP4 (numerics §5b) and 4over6 (§5c) through lowp_quantize,
// lowp_dequantize and lowp_nvfp4_amax_per_row. Every expected byte below is worked out in the
// comments from the formulas of docs/numerics.md (fp32 products and quotients rounded by hand); none comes
// from running lowp. Notation: fl(v) is v rounded to fp32; E2M1 values 0, .5, 1, 1.5, 2, 3, 4, 6
// are codes 0..7 (+8 for negative); UE4M3 0x30 = 0.5, 0x33 = 0.6875, 0x38 = 1, 0x3C = 1.5,
// 0x78 = 256, 0x7C = 384, 0x7E = 448.
#include <gtest/gtest.h>

#include <vector>

#include "nvfp4_per_token_fixture.h"

using namespace lowp_test;

namespace {

constexpr int64_t kScaleCols = 4;  // roundup(K/16, 4) for K <= 64

struct RowScaledQuant : Nvfp4PtQuant {
  RowScaledQuant(int64_t m, int64_t k, bool want_row, bool want_col) : Nvfp4PtQuant(m, k, want_row, want_col) {
    q.scaling = LOWP_SCALING_NVFP4_ROW_SCALED;
  }
};

lowp_quant_config four_over_six(bool mse = false, float e = 448.0f) {
  lowp_quant_config c = default_config();
  c.four_over_six = 1;
  c.four_over_six_error = mse ? LOWP_FOUR_OVER_SIX_MSE : LOWP_FOUR_OVER_SIX_MAE;
  c.four_over_six_scale_max = e;
  return c;
}

void put(std::vector<float>& x, int64_t at, std::initializer_list<float> v) {
  for (float f : v) x[at++] = f;
}

// Row 0 is all zero (with a -0.0): raw amax 0, S_enc = 1 (per-token's floor would give 2688e12),
// b = 0 -> s = E4M3(0) = 0 and m = min(1 / (0 * 1), FLT_MAX) = FLT_MAX: 0 * m = 0 -> code 0,
// -0 * m = -0 -> code 8 (per-token writes 0 for every code of a zero-scale block).
// Row 1: A = 2688 (block 1), S_enc = 1. Block 0 = {1e-3, -5e-4, -0, 0, ...}: b = 1e-3,
// 1e-3 * fl(1/6) = 1.67e-4, below half the smallest E4M3 subnormal (2^-10): s = 0, m = FLT_MAX,
// so 1e-3 * m and -5e-4 * m saturate to codes 7 and 15, -0 -> 8, 0 -> 0 (per-token: all 0).
// Block 1 = {2688, 0, ...}: s = E4M3(2688 * fl(1/6) = 448.00001) = 0x7E, m = fl(1/448),
// 2688 * m = fl(42 * fl(1/7)) = 6.0000005 -> code 7. Dequantize: a zero scale gives 0 for every
// code.
TEST(Nvfp4RowScaledHand, ZeroRowAndZeroScaleBlockSaturate) {
  std::vector<float> x(64, 0.0f);
  x[5] = -0.0f;
  put(x, 32, {1e-3f, -5e-4f, -0.0f, 0.0f});
  x[48] = 2688.0f;
  RowScaledQuant t(2, 32, true, false);
  ASSERT_EQ(t.run(x), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(f32_bits(t.row_amax[0]), 0u);
  EXPECT_EQ(t.row_amax[1], 2688.0f);
  for (int b = 0; b < 16; ++b) EXPECT_EQ(t.row[b], b == 2 ? 0x80 : 0x00) << "zero row byte " << b;  // x[5] = -0
  EXPECT_EQ(t.row[16], 0xF7);
  EXPECT_EQ(t.row[17], 0x08);
  for (int b = 18; b < 24; ++b) EXPECT_EQ(t.row[b], 0x00) << "row 1 byte " << b;
  EXPECT_EQ(t.row[24], 0x07);
  EXPECT_EQ(t.row_scales[0], 0x00);
  EXPECT_EQ(t.row_scales[1], 0x00);
  EXPECT_EQ(t.row_scales[kScaleCols + 0], 0x00);
  EXPECT_EQ(t.row_scales[kScaleCols + 1], 0x7E);
  const std::vector<float> out = t.dequantize(LOWP_ROWWISE);
  for (int i = 0; i < 48; ++i) EXPECT_EQ(out[i], 0.0f) << "zero-scale element " << i;
  EXPECT_EQ(out[48], 2688.0f);  // 6 * (448 * 2688 * fl(1/2688)) = 6 * 448
}

// Columnwise with RHT: column 0 of x is e_k * 1.01f, so RHT16 of its strip is +-1.01f
// (0x3F8147AE) and * 0.25 = 0x3E8147AE, whose bf16 rounding is 0x3E81 (the dropped half 0x47AE is
// below 0x8000): A_col[0] = 0x3E810000 = 0.251953125, where per-token's K1 keeps 0x3E8147AE. The
// other columns are zero: amax 0. Every value of column 0 is the rounded +-0.251953125 = b, so
// s = E4M3(b * fl(S_enc * fl(1/6))) with S_enc = fl(2688 / b): b * S_enc / 6 = 448 up to a few
// ulps, which E4M3 rounds (or saturates) to 0x7E, and every code is +-6 (7 or 15) by the signs
// of column k of H16 flipped by the mask.
TEST(Nvfp4RowScaledHand, RhtColumnAmaxIsRoundedToBf16) {
  for (const int k : {0, 5}) {
    SCOPED_TRACE(testing::Message() << "k " << k);
    std::vector<float> x(256, 0.0f);
    x[k * 16] = 1.01f;
    RowScaledQuant t(16, 16, false, true);
    lowp_quant_config cfg = default_config();
    cfg.rht = 1;
    cfg.rht_sign_mask = 0;
    ASSERT_EQ(t.run(x, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(f32_bits(t.col_amax[0]), 0x3E810000u);
    for (int c = 1; c < 16; ++c) EXPECT_EQ(f32_bits(t.col_amax[c]), 0u) << "col_amax " << c;
    EXPECT_EQ(t.col_scales[0], 0x7E);
    for (int j = 0; j < 16; ++j) {
      const bool neg = (__builtin_popcount(static_cast<unsigned>(j & k)) & 1) != 0;
      EXPECT_EQ((t.col[j / 2] >> (4 * (j % 2))) & 0xF, neg ? 15 : 7) << "element " << j;
    }
    std::vector<float> rs(16), pt(16);
    lowp_tensor xt{x.data(), LOWP_DTYPE_FLOAT32, 16, 16};
    ASSERT_EQ(lowp_nvfp4_amax_per_row(&xt, LOWP_SCALING_NVFP4_ROW_SCALED, nullptr, rs.data(), &cfg, nullptr), LOWP_SUCCESS);
    ASSERT_EQ(lowp_nvfp4_amax_per_row(&xt, LOWP_SCALING_NVFP4_PER_TOKEN, nullptr, pt.data(), &cfg, nullptr), LOWP_SUCCESS);
    EXPECT_EQ(f32_bits(rs[0]), 0x3E810000u);
    EXPECT_EQ(f32_bits(pt[0]), 0x3E8147AEu);
  }
}

// 4over6, per-tensor 1D, A = 2688 (block 0), so S_enc = fl(2688 / 2688) = 1, 1 / S_enc = 1 and
// x^ = ((e2m1(q) * fs) * 2688) / 2688 = e2m1(q) * fs exactly. base = fl(b / 6) * 1.
// Block 0 {2688, 0...}: base = 448, s6 = s4 = E4M3(min(448 | 672, 448)) = 0x7E: one candidate.
// Block 1 {4 x 16}: base = fl(4/6) = 0.6666667; s6 = E4M3(0.6666667) = 0.6875 (0x33; 0.625 is
//   farther), s4 = E4M3(fl(1.5 * 0.6666667) = 1.0) = 0x38. Map-6: m = fl(1/0.6875), 4 * m =
//   5.818 -> 6 (code 7), x^ = 6 * 0.6875 = 4.125, error 16 * 0.125 = 2 (MSE 16 * 2^-6 = 0.25).
//   Map-4: m = 1, 4 -> code 6, x^ = 4, error 0: map-4 wins; codes 0x66.
// Block 2 {6, 1 x 15}: base = 1; s6 = 0x38 (m = 1: every value exact, error 0), s4 = 0x3C
//   (m = fl(1/1.5) = 0.6666667: 6 -> fl(4.0000001) = 4 -> x^ 6; 1 -> 0.667 -> 0.5 (nearer than
//   1) -> x^ 0.75, error 15 * 0.25): map-6 wins; codes 7, 2, 2, ...: 0x27 0x22 ...
// Block 3 {6, 0.5, 0.5, 4.5, 0 x 12}: base = 1. Map-6 (m = 1): 4.5 -> 4 (code 6), error 0.5;
//   map-4: 0.5 -> 0.333 -> 0.5, x^ 0.75 (error 0.25 twice), 4.5 -> fl(3.0000001) = 3 -> x^ 4.5,
//   6 -> x^ 6: error 0.5. MAE: a tie, map-6 kept: codes 7 1 1 6: 0x17 0x61. MSE: map-6 0.25,
//   map-4 2 * 0.0625 = 0.125: map-4 (0x3C), codes 6 1 1 5: 0x16 0x51.
// Block 4 {6, 3, 0 x 14}: both candidates exact (map-4: 3 -> fl(2.0000001) = 2 -> x^ 3): a tie
//   at 0, map-6: 0x38, codes 7 5: 0x57.
TEST(Nvfp4FourOverSixHand, PerTensorBlocks) {
  std::vector<float> x(80, 0.0f);
  x[0] = 2688.0f;
  for (int i = 16; i < 32; ++i) x[i] = 4.0f;
  x[32] = 6.0f;
  for (int i = 33; i < 48; ++i) x[i] = 1.0f;
  put(x, 48, {6.0f, 0.5f, 0.5f, 4.5f});
  put(x, 64, {6.0f, 3.0f});
  for (const bool mse : {false, true}) {
    SCOPED_TRACE(mse ? "MSE" : "MAE");
    Nvfp4Quant t(1, 80, true, false);
    const lowp_quant_config cfg = four_over_six(mse);
    ASSERT_EQ(t.run(x, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(t.row_amax, 2688.0f);
    EXPECT_EQ(t.q.nvfp4_outer_max, 2688.0f);
    const uint8_t want_scales[5] = {0x7E, 0x38, 0x38, static_cast<uint8_t>(mse ? 0x3C : 0x38), 0x38};
    for (int b = 0; b < 5; ++b) EXPECT_EQ(t.row_scales[b], want_scales[b]) << "block " << b;
    EXPECT_EQ(t.row[0], 0x07);
    for (int b = 8; b < 16; ++b) EXPECT_EQ(t.row[b], 0x66) << "map-4 block byte " << b;
    EXPECT_EQ(t.row[16], 0x27);
    for (int b = 17; b < 24; ++b) EXPECT_EQ(t.row[b], 0x22) << "map-6 block byte " << b;
    EXPECT_EQ(t.row[24], mse ? 0x16 : 0x17);
    EXPECT_EQ(t.row[25], mse ? 0x51 : 0x61);
    EXPECT_EQ(t.row[32], 0x57);
  }
}

// E = 256: S_enc = fl(1536 / 1536) = 1 with A = 1536 (block 0) and x^ = ((q * fs) * 1536) / 1536.
// Block 0 {1536, 0...}: base = 256: s6 = 0x78 (m = 2^-8, 1536 -> 6, x^ 1536), s4 = E4M3(384) =
// 0x7C (m = fl(1/384), 1536 * m = fl(12 * fl(1/3)) = 4 -> x^ 4 * 384 = 1536): both exact, a tie:
// map-6, 0x78, code 7. Block 1 {4 x 16}: as above, map-4: 0x38, codes 6. q->nvfp4_outer_max =
// 1536, and dequantize uses 1/1536: 6 * (256 * 1536 * fl(1/1536)) = 6 * fl(256.0000076) = 1536,
// 4 * (1 * 1536 * fl(1/1536)) = 4 * fl(1.00000003) = 4.
TEST(Nvfp4FourOverSixHand, OuterMax256) {
  std::vector<float> x(32, 0.0f);
  x[0] = 1536.0f;
  for (int i = 16; i < 32; ++i) x[i] = 4.0f;
  Nvfp4Quant t(1, 32, true, false);
  const lowp_quant_config cfg = four_over_six(false, 256.0f);
  ASSERT_EQ(t.run(x, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(t.q.nvfp4_outer_max, 1536.0f);
  EXPECT_EQ(t.row_scales[0], 0x78);
  EXPECT_EQ(t.row_scales[1], 0x38);
  EXPECT_EQ(t.row[0], 0x07);
  for (int b = 8; b < 16; ++b) EXPECT_EQ(t.row[b], 0x66) << b;
  std::vector<float> out(32);
  lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, 1, 32};
  ASSERT_EQ(lowp_dequantize(&t.q, LOWP_ROWWISE, &o, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(out[0], 1536.0f);
  for (int i = 16; i < 32; ++i) EXPECT_EQ(out[i], 4.0f) << i;
}

// 2D, 16 x 48, A = 2688 (tile 2 holds it), S_enc = 1. Tile 0: rows 0-14 {6, 1 x 15}, row 15
// {4.5 x 16}; b = 6, s6 = 0x38, s4 = 0x3C. Row errors (MAE) as above: rows 0-14 map-6 0,
// map-4 3.75; row 15 map-6 16 * 0.5 = 8 (4.5 -> 4), map-4 0 (4.5 -> 3 -> x^ 4.5). The tree adds
// them: map-6 8, map-4 15 * 3.75 = 56.25: map-6 for the whole tile, row 15 included (1D would
// keep map-4 there): scale 0x38, row 15 codes 6 (0x66). Tile 1 {4 everywhere}: map-4 as block 1
// above, scale 0x38, codes 0x66 (map-6 would be 0x33 and 0x77). Tile 2 {2688 at (0, 32)}: 0x7E.
// Both copies: the same scales transposed, the codes transposed (every sum here is exact, so the
// columnwise copy's order, xᵀ's rows, chooses alike).
TEST(Nvfp4FourOverSixHand, TwoDimensionalTile) {
  const int64_t M = 16, K = 48;
  std::vector<float> x(M * K, 0.0f);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      x[r * K + c] = r == 15 ? 4.5f : c == 0 ? 6.0f : 1.0f;
      x[r * K + 16 + c] = 4.0f;
    }
  x[32] = 2688.0f;
  Nvfp4Quant t(M, K, true, true);
  lowp_quant_config cfg = four_over_six();
  cfg.block_2d = 1;
  ASSERT_EQ(t.run(x, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
  for (int r = 0; r < 16; ++r) {
    EXPECT_EQ(t.row_scales[r * kScaleCols + 0], 0x38) << "tile 0, row " << r;
    EXPECT_EQ(t.row_scales[r * kScaleCols + 1], 0x38) << "tile 1, row " << r;
    EXPECT_EQ(t.row_scales[r * kScaleCols + 2], 0x7E) << "tile 2, row " << r;
    for (int b = 0; b < 8; ++b) EXPECT_EQ(t.row[r * 24 + 8 + b], 0x66) << "tile 1, row " << r;
  }
  for (int b = 0; b < 8; ++b) EXPECT_EQ(t.row[15 * 24 + b], 0x66) << "tile 0 row 15 byte " << b;
  EXPECT_EQ(t.row[0], 0x27);
  for (int c = 0; c < K; ++c) {
    EXPECT_EQ(t.col_scales[c * kScaleCols], t.row_scales[c / 16]) << "columnwise scale of column " << c;
    for (int r = 0; r < M; ++r)
      EXPECT_EQ(nvfp4_oracle::code_at(t.col, M, c, r), nvfp4_oracle::code_at(t.row, K, r, c)) << r << "," << c;
  }
}

// Row-scaled with 4over6: row 0 {2688 | 4 x 16}, row 1 {1344 | 2 x 16}. Row 0 as the per-tensor
// blocks above: 0x7E, map-4 0x38 with codes 6. Row 1: A = 1344, S_enc = fl(2688 / 1344) = 2;
// block 1: base = fl(2/6) * 2 = 0.6666667: s6 = 0x33, s4 = 0x38. Map-6: m = fl(1 / (0.6875 * 0.5)),
// 2 * m = 5.82 -> 6, x^ = ((6 * 0.6875) * 1344) / 2688 = 2.0625, error 16 * 0.0625; map-4:
// m = 1 / (1 * 0.5) = 2, 2 -> 4 (code 6), x^ = (4 * 1344) / 2688 = 2, error 0: map-4, 0x38, 0x66.
// Block 0: base = 224 * 2 = 448: 0x7E, 1344 * fl(1/224) -> 6, code 7. (Per-tensor with A = 2688
// would give row 1's block 1 base fl(2/6) = 0.33: other scales.)
TEST(Nvfp4FourOverSixHand, RowScaledUsesEachRowsAmax) {
  std::vector<float> x(64, 0.0f);
  x[0] = 2688.0f;
  x[32] = 1344.0f;
  for (int i = 0; i < 16; ++i) x[16 + i] = 4.0f, x[48 + i] = 2.0f;
  RowScaledQuant t(2, 32, true, false);
  const lowp_quant_config cfg = four_over_six();
  ASSERT_EQ(t.run(x, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(t.row_amax[0], 2688.0f);
  EXPECT_EQ(t.row_amax[1], 1344.0f);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(t.row_scales[r * kScaleCols + 0], 0x7E) << r;
    EXPECT_EQ(t.row_scales[r * kScaleCols + 1], 0x38) << r;
    EXPECT_EQ(t.row[r * 16], 0x07) << r;
    for (int b = 8; b < 16; ++b) EXPECT_EQ(t.row[r * 16 + b], 0x66) << r << " byte " << b;
  }
}

}  // namespace
