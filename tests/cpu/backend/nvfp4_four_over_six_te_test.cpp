// 4over6 with 16x16 tiles (numerics §5c) against a model of Transformer Engine's NVFP4 reference
// quantizer, the recipe lowp must match byte for byte. The model is written from what that
// reference does, not from lowp's code: it quantizes each copy as a tensor of its own (the
// columnwise copy is x transposed, quantized with 16x16 tiles like x), so a tile's error adds
// the per-element terms along the rows of the copy being made (x's rows for the rowwise copy,
// x's columns for the columnwise one), each row in element order from 0 in fp32, then the 16 row
// sums as a tree (row r with r + 8, r + 4, r + 2, r + 1); map-4 only when its error is strictly
// smaller. Only the E4M3 rounding and decode are shared with the other oracles (CUDA's host
// conversion, nvfp4_oracle.h); the E2M1 rounding is the reference's own interval table.
//
// Wide-range input x = randn * exp(4 * randn) makes close calls common enough that the order of
// the fp32 sums decides some tiles; the test counts them (tiles where x's rows and xᵀ's rows
// choose differently) so it cannot pass vacuously.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

#include "nvfp4_fixture.h"
#include "nvfp4_oracle.h"
#include "common/wide_range.h"

using namespace lowp_test;

namespace {

// The reference's E2M1 code of a value already clamped to [-6, 6]: its closed and open
// intervals are round to nearest, ties to the even code; the sign bit from the side of zero
// (-0 gives code 0).
uint8_t te_e2m1(float x) {
  const float a = std::fabs(x);
  uint8_t mag;
  if (a <= 0.25f) mag = 0;
  else if (a < 0.75f) mag = 1;
  else if (a <= 1.25f) mag = 2;
  else if (a < 1.75f) mag = 3;
  else if (a <= 2.5f) mag = 4;
  else if (a < 3.5f) mag = 5;
  else if (a <= 5.0f) mag = 6;
  else mag = 7;
  return static_cast<uint8_t>((x < 0.0f ? 8 : 0) | mag);
}

// One copy as the reference makes it: t is rows x cols (the copy's own rows), amax its global
// amax. Codes packed two per byte (even element in the low nibble), scales [rows][cols / 16].
struct TeCopy {
  std::vector<uint8_t> codes, scales;
  int64_t choices_by_order = 0;  // tiles whose choice flips if their rows were summed as columns
};

TeCopy te_reference_2d_4over6(const std::vector<float>& t, int64_t rows, int64_t cols, float amax,
                              const WideRangeSetting& st) {
  TeCopy out;
  out.codes.assign(static_cast<size_t>(rows * cols / 2), 0);
  out.scales.assign(static_cast<size_t>(rows * (cols / 16)), 0);
  const float six_e = 6.0f * st.e;  // exact
  float genc = std::fmin(six_e / amax, FLT_MAX);
  if (genc == 0.0f) genc = 1.0f;
  const float gdec = 1.0f / genc;
  for (int64_t ti = 0; ti < rows / 16; ++ti)
    for (int64_t tj = 0; tj < cols / 16; ++tj) {
      float v[16][16];
      float b = 0.0f;
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) {
          v[r][c] = t[(ti * 16 + r) * cols + tj * 16 + c];
          b = std::fmax(b, std::fabs(v[r][c]));
        }
      const float base = (b / 6.0f) * genc;
      const uint8_t s6 = nvfp4_oracle::e4m3(std::fmin(base, 448.0f));
      const uint8_t s4 = nvfp4_oracle::e4m3(std::fmin(base * 1.5f, 448.0f));
      const auto enc = [&](uint8_t s) { return std::fmin(1.0f / (e4m3_value(s) * gdec), FLT_MAX); };
      const auto code = [&](float x, uint8_t s) { return te_e2m1(std::fmin(std::fmax(x * enc(s), -6.0f), 6.0f)); };
      const auto term = [&](float x, uint8_t s) {
        float val = nvfp4_oracle::e2m1_value(code(x, s)) * e4m3_value(s);
        val = val * amax;
        val = val / six_e;
        const float d = val - x;
        return st.mse ? d * d : std::fabs(d);
      };
      // The tile's error with its rows summed along the copy's rows (transposed: along its columns).
      const auto tile_error = [&](uint8_t s, bool transposed) {
        float row[16];
        for (int r = 0; r < 16; ++r) {
          float acc = 0.0f;
          for (int c = 0; c < 16; ++c) acc = acc + term(transposed ? v[c][r] : v[r][c], s);
          row[r] = acc;
        }
        for (int h = 8; h >= 1; h /= 2)
          for (int r = 0; r < h; ++r) row[r] = row[r] + row[r + h];
        return row[0];
      };
      const bool map4 = tile_error(s4, false) < tile_error(s6, false);
      out.choices_by_order += map4 != (tile_error(s4, true) < tile_error(s6, true));
      const uint8_t s = map4 ? s4 : s6;
      for (int r = 0; r < 16; ++r) {
        const int64_t i = ti * 16 + r;
        out.scales[i * (cols / 16) + tj] = s;
        for (int c = 0; c < 16; ++c) {
          const int64_t j = tj * 16 + c;
          out.codes[(i * cols + j) / 2] |= static_cast<uint8_t>(code(v[r][c], s) << (4 * (j & 1)));
        }
      }
    }
  return out;
}

struct Mismatch {
  int64_t scales = 0, codes = 0;
};

// One copy of lowp's against the model's: scales (compact layout, [rows][roundup(cols/16, 4)])
// and codes.
Mismatch compare_copy(const std::vector<uint8_t>& codes, const std::vector<uint8_t>& scales, const TeCopy& want,
                      int64_t rows, int64_t cols) {
  Mismatch m;
  const int64_t blocks = cols / 16, C = (blocks + 3) / 4 * 4;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t jb = 0; jb < blocks; ++jb) m.scales += scales[i * C + jb] != want.scales[i * blocks + jb];
  for (size_t k = 0; k < want.codes.size(); ++k) m.codes += codes[k] != want.codes[k];
  return m;
}

TEST(Nvfp4FourOverSixTe, TwoDimensionalCopiesMatchTransformerEngineReference) {
  int64_t row_blocks = 0, col_blocks = 0, by_order = 0, untransposed = 0;
  Mismatch row_bad, col_bad;
  for_each_wide_range_case([&](const WideRangeShape& s, lowp_dtype dt, const WideRangeSetting& st, uint64_t seed) {
    SCOPED_TRACE(testing::Message() << s.rows << "x" << s.cols << " " << dtype_name(dt) << (st.mse ? " MSE" : " MAE")
                                    << " E " << st.e);
    const int64_t M = s.rows, K = s.cols;
    const std::vector<uint8_t> bytes = wide_range_tensor(dt, M, K, seed);
    const std::vector<float> x = decode_all(bytes, dt);
    lowp_quant_config cfg;
    lowp_quant_config_default(&cfg);
    cfg.block_2d = 1;
    cfg.four_over_six = 1;
    cfg.four_over_six_error = st.mse ? LOWP_FOUR_OVER_SIX_MSE : LOWP_FOUR_OVER_SIX_MAE;
    cfg.four_over_six_scale_max = st.e;
    Nvfp4Quant q(M, K, true, true);
    ASSERT_EQ(q.run(bytes, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();

    float amax = 0.0f;
    for (float f : x) amax = std::fmax(amax, std::fabs(f));
    ASSERT_EQ(f32_bits(q.row_amax), f32_bits(amax));
    ASSERT_EQ(f32_bits(q.col_amax), f32_bits(amax));
    std::vector<float> xt(x.size());
    for (int64_t r = 0; r < M; ++r)
      for (int64_t c = 0; c < K; ++c) xt[c * M + r] = x[r * K + c];
    const TeCopy row = te_reference_2d_4over6(x, M, K, amax, st);
    const TeCopy col = te_reference_2d_4over6(xt, K, M, amax, st);
    const Mismatch r = compare_copy(q.row, q.row_scales, row, M, K);
    const Mismatch c = compare_copy(q.col, q.col_scales, col, K, M);
    EXPECT_EQ(r.scales, 0) << "rowwise block scales differ from the reference's";
    EXPECT_EQ(r.codes, 0) << "rowwise code bytes differ from the reference's";
    EXPECT_EQ(c.scales, 0) << "columnwise block scales differ from the reference's";
    EXPECT_EQ(c.codes, 0) << "columnwise code bytes differ from the reference's";
    row_bad.scales += r.scales, row_bad.codes += r.codes;
    col_bad.scales += c.scales, col_bad.codes += c.codes;
    row_blocks += M * (K / 16);
    col_blocks += K * (M / 16);
    by_order += col.choices_by_order;
    untransposed += untransposed_tiles(q.row_scales, q.col_scales, M, K);
  });
  std::printf("[ nvfp4 4over6 2D vs TE reference ] rowwise: %lld of %lld block scales, %lld code bytes differ; "
              "columnwise: %lld of %lld block scales, %lld code bytes differ; %lld columnwise tiles are decided by "
              "the order of the sums, %lld tiles differ between lowp's two copies\n",
              static_cast<long long>(row_bad.scales), static_cast<long long>(row_blocks),
              static_cast<long long>(row_bad.codes), static_cast<long long>(col_bad.scales),
              static_cast<long long>(col_blocks), static_cast<long long>(col_bad.codes),
              static_cast<long long>(by_order), static_cast<long long>(untransposed));
  EXPECT_GT(by_order, 0) << "no tile's choice depends on the order of the sums: the inputs do not test it";
}

}  // namespace
