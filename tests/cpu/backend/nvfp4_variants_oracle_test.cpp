// Row-scaled NVFP4 (numerics §5b) and 4over6 (§5c) on the CPU backend against the independent
// oracle (nvfp4_variants_oracle.h) on fuzzed inputs (tests/common/fuzz_values.h: zeros,
// denormals, +-inf, NaN, huge range, mixed rows, and values on a quarter grid that tie the two
// 4over6 candidates), bf16/fp16/fp32, shapes that are odd multiples of 16: both copies, every
// knob each variant takes, given amaxes, the recorded outer maximum, and dequantize. Every
// comparison is byte-exact and reports the first mismatch.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "nvfp4_per_token_fixture.h"
#include "nvfp4_variants_oracle.h"

using namespace lowp_test;
namespace vo = nvfp4_variants_oracle;

namespace {

// A per-row quant fixture whose q says row-scaled.
struct RowScaledQuant : Nvfp4PtQuant {
  RowScaledQuant(int64_t m, int64_t k, bool want_row, bool want_col, lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT)
      : Nvfp4PtQuant(m, k, want_row, want_col, layout) {
    q.scaling = LOWP_SCALING_NVFP4_ROW_SCALED;
  }
};

vo::FourOverSix four_over_six_of(const lowp_quant_config& c) {
  vo::FourOverSix f;
  f.on = c.four_over_six != 0;
  f.mse = c.four_over_six_error == LOWP_FOUR_OVER_SIX_MSE;
  f.six_e = 6.0f * c.four_over_six_scale_max;
  return f;
}

vo::VariantConfig oracle_cfg(bool columnwise, bool row_scaled, const lowp_quant_config& c) {
  vo::VariantConfig o;
  o.columnwise = columnwise;
  o.row_scaled = row_scaled;
  o.rht = c.rht != 0;
  o.mask = c.rht_sign_mask;
  o.block_2d = c.block_2d != 0;
  o.sr = c.stochastic_rounding != 0;
  if (o.sr) o.seed = c.rng_state[0], o.offset = c.rng_state[1];
  o.fos = four_over_six_of(c);
  return o;
}

// One orientation's codes, compact scales and amaxes (n of them) against the oracle's.
::testing::AssertionResult matches(const uint8_t* codes, const std::vector<uint8_t>& scales, const float* amax,
                                   const vo::VariantResult& want, const char* what) {
  auto r = codes_and_scales_match(codes, scales, want, what);
  if (!r) return r;
  return amaxes_equal(amax, want.amaxes, what);
}

// Both orientations of a row-scaled call; returns the map-4 blocks of both.
int64_t expect_row_scaled(const RowScaledQuant& t, const std::vector<float>& x, const lowp_quant_config& cfg,
                          bool want_col = true) {
  const vo::VariantResult row = vo::quantize(x, t.M, t.K, oracle_cfg(false, true, cfg));
  EXPECT_TRUE(matches(t.row.data(), t.row_scales, t.row_amax.data(), row, "rowwise"));
  if (!want_col) return row.map4_blocks;
  const vo::VariantResult col = vo::quantize(x, t.M, t.K, oracle_cfg(true, true, cfg));
  EXPECT_TRUE(matches(t.col.data(), t.col_scales, t.col_amax.data(), col, "columnwise"));
  return row.map4_blocks + col.map4_blocks;
}

int64_t expect_per_tensor(const Nvfp4Quant& t, const std::vector<float>& x, const lowp_quant_config& cfg) {
  const vo::VariantResult row = vo::quantize(x, t.M, t.K, oracle_cfg(false, false, cfg));
  const vo::VariantResult col = vo::quantize(x, t.M, t.K, oracle_cfg(true, false, cfg));
  EXPECT_TRUE(matches(t.row.data(), t.row_scales, &t.row_amax, row, "rowwise"));
  EXPECT_TRUE(matches(t.col.data(), t.col_scales, &t.col_amax, col, "columnwise"));
  return row.map4_blocks + col.map4_blocks;
}

// Values (k - 32) / 4 for k in [0, 64], one 16-block in three scaled by 2^-20: the candidates'
// codes often land on the grid exactly, so their errors tie (at 0 or above).
std::vector<uint8_t> quarter_grid(lowp_dtype dt, int64_t rows, int64_t cols, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = (static_cast<float>(rng.below(65)) - 32.0f) * 0.25f * ((i / 16) % 3 == 2 ? 0x1p-20f : 1.0f);
  return encode(v, dt);
}

// Every shape and dtype of the oracle sweep on the quarter grid, as for_each_input does with fills.
template <typename Quant, typename Check>
int for_each_grid_input(const lowp_quant_config& cfg, uint64_t seed, Check check) {
  int runs = 0;
  for (const Shape& s : kOracleShapes)
    for (lowp_dtype dt : kInputDtypes) {
      SCOPED_TRACE(testing::Message() << s.M << "x" << s.K << " " << dtype_name(dt) << " quarter grid");
      const std::vector<uint8_t> bytes = quarter_grid(dt, s.M, s.K, seed + static_cast<uint64_t>(runs));
      Quant t(s.M, s.K, true, true);
      const lowp_status st = t.run(bytes, dt, &cfg);
      EXPECT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
      if (st == LOWP_SUCCESS) check(t, decode_all(bytes, dt));
      ++runs;
    }
  return runs;
}

TEST(Nvfp4RowScaledOracle, EveryKnob) {
  const uint64_t state[2] = {0x123456789ABCDEF0ull, 0xFFFFFFFF00000007ull};
  struct Knobs {
    bool rht, sr;
    uint32_t mask;
  };
  int runs = 0;
  for (const Knobs k : {Knobs{false, false, 0xD7E8u}, Knobs{true, false, 0xD7E8u}, Knobs{true, false, 0x3C5Au},
                        Knobs{false, true, 0xD7E8u}, Knobs{true, true, 0x0000u}}) {
    SCOPED_TRACE(testing::Message() << "rht " << k.rht << " sr " << k.sr << " mask 0x" << std::hex << k.mask);
    lowp_quant_config cfg = default_config();
    cfg.rht = k.rht;
    cfg.rht_sign_mask = k.mask;
    cfg.stochastic_rounding = k.sr;
    cfg.rng_state = k.sr ? state : nullptr;
    runs += for_each_input<RowScaledQuant>(cfg, 0x5eed1000u + runs, [&](const RowScaledQuant& t, const std::vector<float>& x) {
      expect_row_scaled(t, x, cfg);
    });
  }
  std::printf("[ nvfp4 row-scaled ] %d fuzzed inputs, both copies byte-exact vs oracle\n", runs);
}

TEST(Nvfp4RowScaledOracle, RowwiseOnlyAnyM) {
  const lowp_quant_config cfg = default_config();
  for_each_input<RowScaledQuant>(cfg, 91, [&](const RowScaledQuant& t, const std::vector<float>& x) {
    expect_row_scaled(t, x, cfg, false);
    EXPECT_TRUE(untouched(t.col.data(), t.col.size(), "columnwise codes"));
    EXPECT_TRUE(untouched(t.col_amax.data(), t.col_amax.size() * 4, "columnwise amax"));
  }, kRowwiseOnlyShapes, false);
}

// K1 alone (lowp_nvfp4_amax_per_row) then the encode with the amaxes given gives the composite's
// bytes; the RHT column amaxes are per-token's rounded to bf16 (equal without RHT); arbitrary
// given amaxes encode as the oracle does with them.
TEST(Nvfp4RowScaledOracle, AmaxPassAndGivenAmaxes) {
  int rounded = 0, differ = 0;
  for (bool rht : {false, true}) {
    lowp_quant_config cfg = default_config();
    cfg.rht = rht;
    for_each_input<RowScaledQuant>(cfg, 300 + rht, [&](const RowScaledQuant& t, const std::vector<float>& x) {
      std::vector<float> row(t.M), col(t.K), token_col(t.K);
      lowp_tensor xt{const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, t.M, t.K};
      ASSERT_EQ(lowp_nvfp4_amax_per_row(&xt, LOWP_SCALING_NVFP4_ROW_SCALED, row.data(), col.data(), &cfg, nullptr),
                LOWP_SUCCESS) << lowp_get_last_error();
      // (x is the decoded input: NaN payloads may differ from the composite's input's.)
      EXPECT_TRUE(amaxes_equal(row.data(), t.row_amax, "K1 row amax"));
      EXPECT_TRUE(amaxes_equal(col.data(), t.col_amax, "K1 col amax"));
      ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, nullptr, token_col.data(), &cfg, nullptr), LOWP_SUCCESS);
      for (int64_t k = 0; k < t.K; ++k) {
        const float want = rht ? bf16_to_float(float_to_bf16(token_col[k])) : token_col[k];
        EXPECT_TRUE(amax_equal(col[k], want, "row-scaled col amax vs per-token's rounded"));
        rounded += rht && f32_bits(col[k]) != f32_bits(token_col[k]);
        differ += !rht && f32_bits(col[k]) != f32_bits(token_col[k]);
      }
      lowp_quant_config given = cfg;
      given.amax_given = 1;
      RowScaledQuant k2(t.M, t.K, true, true);
      std::copy(row.begin(), row.end(), k2.row_amax.begin());
      std::copy(col.begin(), col.end(), k2.col_amax.begin());
      ASSERT_EQ(k2.run(x, &given), LOWP_SUCCESS) << lowp_get_last_error();
      const int64_t half = t.M * t.K / 2;
      EXPECT_TRUE(bytes_equal(k2.row, t.row, 1, half, "K1 + K2 rowwise codes"));
      EXPECT_TRUE(bytes_equal(k2.col, t.col, 1, half, "K1 + K2 columnwise codes"));
      EXPECT_TRUE(bytes_equal(k2.row_scales, t.row_scales, 1, static_cast<int64_t>(t.row_scales.size()), "K1 + K2 rowwise scales"));
      EXPECT_TRUE(bytes_equal(k2.col_scales, t.col_scales, 1, static_cast<int64_t>(t.col_scales.size()),
                              "K1 + K2 columnwise scales"));
      // Scaled given amaxes (x 0.7 and x 3): blocks saturate or lose range, as the oracle says.
      RowScaledQuant g(t.M, t.K, true, true);
      std::vector<float> grow(t.M), gcol(t.K);
      for (int64_t i = 0; i < t.M; ++i) grow[i] = g.row_amax[i] = row[i] * (i % 2 ? 0.7f : 3.0f);
      for (int64_t k = 0; k < t.K; ++k) gcol[k] = g.col_amax[k] = col[k] * (k % 2 ? 3.0f : 0.7f);
      ASSERT_EQ(g.run(x, &given), LOWP_SUCCESS) << lowp_get_last_error();
      vo::VariantConfig orow = oracle_cfg(false, true, cfg), ocol = oracle_cfg(true, true, cfg);
      orow.given = &grow;
      ocol.given = &gcol;
      EXPECT_TRUE(matches(g.row.data(), g.row_scales, g.row_amax.data(), vo::quantize(x, t.M, t.K, orow), "given rowwise"));
      EXPECT_TRUE(matches(g.col.data(), g.col_scales, g.col_amax.data(), vo::quantize(x, t.M, t.K, ocol), "given columnwise"));
    });
  }
  std::printf("[ nvfp4 row-scaled K1 ] %d RHT column amaxes changed by the bf16 rounding, %d without RHT (must be 0)\n",
              rounded, differ);
  EXPECT_GT(rounded, 0);
  EXPECT_EQ(differ, 0);
}

TEST(Nvfp4RowScaledOracle, DequantizeBothLayouts) {
  expect_dequantize_both_layouts<RowScaledQuant>(
      [](const RowScaledQuant& t, bool row, int64_t i, uint8_t code, uint8_t s) {
        return nvfp4_oracle::dequantize(code, s, row ? t.row_amax[i] : t.col_amax[i]);
      });
}

// Every 4over6 setting: error MAE / MSE, E 448 / 256.
struct FourOverSixCase {
  bool mse;
  float e;
};
constexpr FourOverSixCase kFourOverSixCases[] = {{false, 448.0f}, {true, 448.0f}, {false, 256.0f}, {true, 256.0f}};

lowp_quant_config four_over_six_cfg(const FourOverSixCase& c) {
  lowp_quant_config cfg = default_config();
  cfg.four_over_six = 1;
  cfg.four_over_six_error = c.mse ? LOWP_FOUR_OVER_SIX_MSE : LOWP_FOUR_OVER_SIX_MAE;
  cfg.four_over_six_scale_max = c.e;
  return cfg;
}

// The sweeps of one 4over6 variant: fuzzed fills and the quarter grid, each case. `check`
// returns the map-4 blocks of an input; both choices must occur.
template <typename Quant, typename Check>
void four_over_six_sweep(const char* name, bool block_2d, Check check) {
  int runs = 0;
  int64_t map4 = 0, blocks = 0;
  for (const FourOverSixCase& c : kFourOverSixCases) {
    SCOPED_TRACE(testing::Message() << (c.mse ? "MSE" : "MAE") << " E " << c.e << (block_2d ? " 2D" : ""));
    lowp_quant_config cfg = four_over_six_cfg(c);
    cfg.block_2d = block_2d;
    const auto run_one = [&](const Quant& t, const std::vector<float>& x) {
      map4 += check(t, x, cfg);
      blocks += t.M * t.K / 8;  // both copies
      EXPECT_EQ(t.q.nvfp4_outer_max, 6.0f * c.e) << "recorded 6E";
    };
    runs += for_each_input<Quant>(cfg, 0x4f36u + runs, run_one);
    runs += for_each_grid_input<Quant>(cfg, 0x9e1du + runs, run_one);
  }
  std::printf("[ nvfp4 4over6 %s ] %d inputs byte-exact vs oracle; %lld of %lld blocks kept map-4\n", name, runs,
              static_cast<long long>(map4), static_cast<long long>(blocks));
  EXPECT_GT(map4, 0);
  EXPECT_LT(map4, blocks);
}

TEST(Nvfp4FourOverSixOracle, PerTensor1D) {
  four_over_six_sweep<Nvfp4Quant>("per-tensor 1D", false,
                                  [](const Nvfp4Quant& t, const std::vector<float>& x, const lowp_quant_config& cfg) {
                                    return expect_per_tensor(t, x, cfg);
                                  });
}

// 2D: one choice per 16x16 tile and copy, each copy measuring the tile in its own rows (the
// columnwise copy in xᵀ's), so the copies need not be transposes where the errors are close.
TEST(Nvfp4FourOverSixOracle, PerTensor2D) {
  four_over_six_sweep<Nvfp4Quant>("per-tensor 2D", true,
                                  [](const Nvfp4Quant& t, const std::vector<float>& x, const lowp_quant_config& cfg) {
                                    return expect_per_tensor(t, x, cfg);
                                  });
}

TEST(Nvfp4FourOverSixOracle, RowScaled) {
  four_over_six_sweep<RowScaledQuant>("row-scaled", false,
                                      [](const RowScaledQuant& t, const std::vector<float>& x,
                                         const lowp_quant_config& cfg) { return expect_row_scaled(t, x, cfg); });
}

// lowp_dequantize of 4over6 copies uses the recorded 6E: e2m1(q) * (float(s) * A * (1/6E)).
TEST(Nvfp4FourOverSixOracle, DequantizeWithRecordedOuterMax) {
  const int64_t M = 48, K = 272;
  for (const FourOverSixCase& c : kFourOverSixCases)
    for (bool row_scaled : {false, true}) {
      SCOPED_TRACE(testing::Message() << "E " << c.e << (row_scaled ? " row-scaled" : " per-tensor"));
      const lowp_quant_config cfg = four_over_six_cfg(c);
      const std::vector<uint8_t> bytes = fuzz_tensor(LOWP_DTYPE_FLOAT32, M, K, Fill::kMixed, 17);
      RowScaledQuant rs(M, K, true, true);
      Nvfp4Quant pt(M, K, true, true);
      lowp_quantized_tensor& q = row_scaled ? rs.q : pt.q;
      ASSERT_EQ(row_scaled ? rs.run(bytes, LOWP_DTYPE_FLOAT32, &cfg) : pt.run(bytes, LOWP_DTYPE_FLOAT32, &cfg), LOWP_SUCCESS)
          << lowp_get_last_error();
      for (lowp_orientation w : {LOWP_ROWWISE, LOWP_COLUMNWISE}) {
        const bool row = w == LOWP_ROWWISE;
        const int64_t rows = row ? M : K, cols = row ? K : M, C = (cols / 16 + 3) / 4 * 4;
        const std::vector<uint8_t>& codes = row_scaled ? (row ? rs.row : rs.col) : (row ? pt.row : pt.col);
        const std::vector<uint8_t>& scales = row_scaled ? (row ? rs.row_scales : rs.col_scales) : (row ? pt.row_scales : pt.col_scales);
        std::vector<float> out(rows * cols);
        lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, rows, cols};
        ASSERT_EQ(lowp_dequantize(&q, w, &o, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
        int64_t bad = 0;
        for (int64_t i = 0; i < rows; ++i) {
          const float a = row_scaled ? (row ? rs.row_amax[i] : rs.col_amax[i]) : (row ? pt.row_amax : pt.col_amax);
          for (int64_t j = 0; j < cols; ++j) {
            const float want = vo::dequantize_e(nvfp4_oracle::code_at(codes, cols, i, j), scales[i * C + j / 16], a, 6.0f * c.e);
            const float got = out[i * cols + j];
            bad += !((std::isnan(got) && std::isnan(want)) || f32_bits(got) == f32_bits(want));
          }
        }
        EXPECT_EQ(bad, 0) << (row ? "rowwise" : "columnwise") << " dequantize differs from the oracle's";
      }
    }
}

}  // namespace
