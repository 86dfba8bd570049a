// NVFP4 per-tensor CPU backend against the independent oracle (nvfp4_oracle.h) on fuzzed
// inputs (tests/common/fuzz_values.h: zeros, denormals, +-inf, NaN, huge range, mixed rows),
// bf16/fp16/fp32, shapes that are odd multiples of 16: 1D rowwise and columnwise, RHT, 2D and
// stochastic rounding. Every comparison is byte-exact and reports the first mismatch.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <vector>

#include "nvfp4_fixture.h"

using namespace lowp_test;
namespace orc = nvfp4_oracle;

namespace {

// Runs every (shape, dtype, fill) with `cfg` (both orientations) and checks them with `check`.
template <typename Check>
int sweep(const lowp_quant_config& cfg, Check check) {
  return lowp_test::for_each_input<Nvfp4Quant>(cfg, 0x5eed0000u, check);
}

orc::Config oracle_cfg(bool columnwise, const lowp_quant_config& c) {
  orc::Config o;
  o.columnwise = columnwise;
  o.rht = c.rht != 0;
  o.mask = c.rht_sign_mask;
  o.block_2d = c.block_2d != 0;
  o.sr = c.stochastic_rounding != 0;
  if (o.sr) o.seed = c.rng_state[0], o.offset = c.rng_state[1];
  o.estimate = c.amax_estimation != 0;
  o.factor = c.amax_estimation_factor;
  return o;
}

void expect_both_match(const Nvfp4Quant& t, const std::vector<float>& x, const lowp_quant_config& cfg) {
  const orc::Result row = orc::quantize(x, t.M, t.K, oracle_cfg(false, cfg));
  const orc::Result col = orc::quantize(x, t.M, t.K, oracle_cfg(true, cfg));
  EXPECT_TRUE(matches_oracle(t.row.data(), t.row_scales, t.row_amax, row, "rowwise"));
  EXPECT_TRUE(matches_oracle(t.col.data(), t.col_scales, t.col_amax, col, "columnwise"));
}

TEST(Nvfp4Oracle, OneDimensionalRowwiseAndColumnwise) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  const int runs = sweep(cfg, [&](const Nvfp4Quant& t, const std::vector<float>& x) { expect_both_match(t, x, cfg); });
  std::printf("[ nvfp4 1D ] %d fuzzed inputs, rowwise + columnwise byte-exact vs oracle\n", runs);
}

// M not a multiple of 16: the rowwise copy alone is allowed; columnwise buffers stay untouched.
TEST(Nvfp4Oracle, RowwiseOnlyAnyM) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  for_each_input<Nvfp4Quant>(cfg, 77, [&](const Nvfp4Quant& t, const std::vector<float>& x) {
    const orc::Result want = orc::quantize(x, t.M, t.K, oracle_cfg(false, cfg));
    EXPECT_TRUE(matches_oracle(t.row.data(), t.row_scales, t.row_amax, want, "rowwise"));
    EXPECT_TRUE(untouched(t.col.data(), t.col.size(), "columnwise codes"));
    EXPECT_TRUE(untouched(t.col_scales.data(), t.col_scales.size(), "columnwise scales"));
    EXPECT_TRUE(untouched(&t.col_amax, 4, "columnwise amax"));
  }, kRowwiseOnlyShapes, false);
}

// float64 Hadamard product of one 16-vector (the matrix, not the butterflies), x 0.25.
void rht_float64(const float* g, uint32_t mask, double out[16]) {
  for (int k = 0; k < 16; ++k) {
    double acc = 0;
    for (int j = 0; j < 16; ++j) {
      const double v = ((mask >> j) & 1u) ? -static_cast<double>(g[j]) : g[j];
      acc += (std::popcount(static_cast<unsigned>(k & j)) & 1) ? -v : v;
    }
    out[k] = 0.25 * acc;
  }
}

TEST(Nvfp4Oracle, RhtColumnwise) {
  for (uint32_t mask : {0xD7E8u, 0x0000u, 0x3C5Au}) {
    SCOPED_TRACE(testing::Message() << "mask 0x" << std::hex << mask);
    lowp_quant_config cfg;
    lowp_quant_config_default(&cfg);
    cfg.rht = 1;
    cfg.rht_sign_mask = mask;
    int finite_runs = 0, exact_vs_f64 = 0;
    sweep(cfg, [&](const Nvfp4Quant& t, const std::vector<float>& x) {
      expect_both_match(t, x, cfg);  // rowwise is the plain 1D rule: RHT is columnwise only
      // Post-RHT amax against a float64 transform rounded to bf16: equal whenever fp32's four
      // rounded additions are exact; never off by more than one bf16 step.
      // Inputs that can overflow fp32 partial sums (or hold inf/NaN) have no float64 twin.
      for (float v : x)
        if (!(std::fabs(v) < 1e36f)) return;
      double amax64 = 0;
      for (int64_t k = 0; k < t.K; ++k)
        for (int64_t jb = 0; jb < t.M / 16; ++jb) {
          float g[16];
          for (int i = 0; i < 16; ++i) g[i] = x[(jb * 16 + i) * t.K + k];
          double y[16];
          rht_float64(g, mask, y);
          for (double v : y) amax64 = std::fmax(amax64, std::fabs(v));
        }
      ++finite_runs;
      const float want = bf16_to_float(float_to_bf16(static_cast<float>(amax64)));
      if (t.col_amax == want) ++exact_vs_f64;
      const float step = want > 0 ? std::fmax(std::ldexp(1.0f, std::ilogb(want) - 7), 0x1p-133f) : 0x1p-133f;
      EXPECT_LE(std::fabs(t.col_amax - want), step) << "post-RHT amax " << t.col_amax << " vs float64 " << amax64;
    });
    std::printf("[ nvfp4 RHT mask 0x%04X ] post-RHT amax equals bf16(float64 amax) in %d of %d finite inputs\n", mask,
                exact_vs_f64, finite_runs);
  }
}

TEST(Nvfp4Oracle, TwoDimensionalIsTransposed) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  cfg.block_2d = 1;
  sweep(cfg, [&](const Nvfp4Quant& t, const std::vector<float>& x) {
    expect_both_match(t, x, cfg);
    const int64_t M = t.M, K = t.K, row_c = (K / 16 + 3) / 4 * 4, col_c = (M / 16 + 3) / 4 * 4;
    int64_t bad_codes = 0, bad_scales = 0;
    for (int64_t r = 0; r < M; ++r)
      for (int64_t c = 0; c < K; ++c) {
        bad_codes += orc::code_at(t.row, K, r, c) != orc::code_at(t.col, M, c, r);
        // Tile (r/16, c/16): rowwise entry (r, c/16), columnwise entry (c, r/16).
        bad_scales += t.row_scales[r * row_c + c / 16] != t.col_scales[c * col_c + r / 16];
      }
    EXPECT_EQ(bad_codes, 0) << "columnwise codes are not the transpose of the rowwise codes";
    EXPECT_EQ(bad_scales, 0) << "columnwise tile scales are not the transpose of the rowwise ones";
    EXPECT_EQ(f32_bits(t.row_amax), f32_bits(t.col_amax));
  });
}

TEST(Nvfp4Oracle, StochasticRounding) {
  int runs = 0;
  for (bool rht : {false, true})
    for (uint64_t seed : {0x0ull, 0x123456789ABCDEF0ull})
      for (uint64_t offset : {0x0ull, 0xFFFFFFFF00000007ull}) {
        SCOPED_TRACE(testing::Message() << "rht " << rht << " seed " << seed << " offset " << offset);
        const uint64_t state[2] = {seed, offset};
        lowp_quant_config cfg;
        lowp_quant_config_default(&cfg);
        cfg.rht = rht;
        cfg.stochastic_rounding = 1;
        cfg.rng_state = state;
        runs += sweep(cfg, [&](const Nvfp4Quant& t, const std::vector<float>& x) { expect_both_match(t, x, cfg); });
        EXPECT_EQ(state[0], seed);
        EXPECT_EQ(state[1], offset);  // read, never advanced
      }
  std::printf("[ nvfp4 SR ] %d fuzzed inputs byte-exact vs the Philox oracle\n", runs);
}

}  // namespace
