// NVFP4 per-token CPU backend against the independent oracle (nvfp4_per_token_oracle.h) on
// fuzzed inputs (tests/common/fuzz_values.h: zeros, denormals, +-inf, NaN, huge range, mixed
// rows), bf16/fp16/fp32, shapes that are odd multiples of 16: rowwise and columnwise, with and
// without RHT, SR, given amaxes and K1 alone. Codes and scales byte-exact, amaxes by bits (any
// NaN matches any NaN). The post-RHT column amax is also checked against a float64 Hadamard.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <vector>

#include "nvfp4_per_token_fixture.h"

using namespace lowp_test;
namespace pto = nvfp4_per_token_oracle;

namespace {

// Runs every (shape, dtype, fill) with `cfg` (both orientations) and checks them with `check`.
template <typename Check>
int sweep(const lowp_quant_config& cfg, Check check) {
  return lowp_test::for_each_input<Nvfp4PtQuant>(cfg, 0x7e570000u, check);
}

pto::PtConfig oracle_cfg(bool columnwise, const lowp_quant_config& c) {
  pto::PtConfig o;
  o.columnwise = columnwise;
  o.rht = c.rht != 0;
  o.mask = c.rht_sign_mask;
  o.sr = c.stochastic_rounding != 0;
  if (o.sr) o.seed = c.rng_state[0], o.offset = c.rng_state[1];
  return o;
}

void expect_both_match(const Nvfp4PtQuant& t, const std::vector<float>& x, const lowp_quant_config& cfg) {
  const pto::PtResult row = pto::quantize(x, t.M, t.K, oracle_cfg(false, cfg));
  const pto::PtResult col = pto::quantize(x, t.M, t.K, oracle_cfg(true, cfg));
  EXPECT_TRUE(matches_pt_oracle(t.row.data(), t.row_scales, t.row_amax.data(), row, "rowwise"));
  EXPECT_TRUE(matches_pt_oracle(t.col.data(), t.col_scales, t.col_amax.data(), col, "columnwise"));
}

TEST(Nvfp4PerTokenOracle, RowwiseAndColumnwise) {
  const lowp_quant_config cfg = default_config();
  const int runs = sweep(cfg, [&](const Nvfp4PtQuant& t, const std::vector<float>& x) { expect_both_match(t, x, cfg); });
  std::printf("[ nvfp4 per-token ] %d fuzzed inputs, rowwise + columnwise byte-exact vs oracle\n", runs);
}

// M not a multiple of 16: the rowwise copy alone is allowed; columnwise buffers stay untouched.
TEST(Nvfp4PerTokenOracle, RowwiseOnlyAnyM) {
  const lowp_quant_config cfg = default_config();
  for_each_input<Nvfp4PtQuant>(cfg, 91, [&](const Nvfp4PtQuant& t, const std::vector<float>& x) {
    const pto::PtResult want = pto::quantize(x, t.M, t.K, oracle_cfg(false, cfg));
    EXPECT_TRUE(matches_pt_oracle(t.row.data(), t.row_scales, t.row_amax.data(), want, "rowwise"));
    EXPECT_TRUE(untouched(t.col.data(), t.col.size(), "columnwise codes"));
    EXPECT_TRUE(untouched(t.col_scales.data(), t.col_scales.size(), "columnwise scales"));
    EXPECT_TRUE(untouched(t.col_amax.data(), t.col_amax.size() * 4, "columnwise amax"));
  }, kRowwiseOnlyShapes, false);
}

// float64 Hadamard matrix product of one 16-vector (not the butterflies), unnormalised.
void rht_float64(const float* g, int64_t stride, uint32_t mask, double out[16]) {
  for (int k = 0; k < 16; ++k) {
    double acc = 0;
    for (int j = 0; j < 16; ++j) {
      const double v = ((mask >> j) & 1u) ? -static_cast<double>(g[j * stride]) : g[j * stride];
      acc += (std::popcount(static_cast<unsigned>(k & j)) & 1) ? -v : v;
    }
    out[k] = acc;
  }
}

// Column amaxes with RHT against float64: 0.25 * max |H16 g| over the column's strips. fp32's
// four rounded butterfly stages err by at most 4 * 2^-24 * sum |g| per element (first order),
// so |got - want| <= 0.25 * 4.01 * 2^-24 * max sum |g|, plus one subnormal step (2^-149) for the
// x 0.25 of a subnormal amax. Returns the columns that matched exactly.
int64_t expect_rht_amax_close(const std::vector<float>& x, int64_t M, int64_t K, uint32_t mask, const float* col_amax) {
  int64_t exact = 0;
  for (int64_t k = 0; k < K; ++k) {
    double amax64 = 0, sum_abs = 0;
    for (int64_t s = 0; s < M / 16; ++s) {
      double y[16], strip_abs = 0;
      rht_float64(&x[s * 16 * K + k], K, mask, y);
      for (int j = 0; j < 16; ++j) strip_abs += std::fabs(static_cast<double>(x[(s * 16 + j) * K + k]));
      for (double v : y) amax64 = std::fmax(amax64, std::fabs(v));
      sum_abs = std::fmax(sum_abs, strip_abs);
    }
    const double want = 0.25 * amax64, tol = 0.25 * 4.01 * 0x1p-24 * sum_abs + 0x1p-149;
    exact += static_cast<double>(col_amax[k]) == want;
    EXPECT_LE(std::fabs(static_cast<double>(col_amax[k]) - want), tol) << "column " << k << ": " << col_amax[k]
                                                                      << " vs float64 " << want;
  }
  return exact;
}

TEST(Nvfp4PerTokenOracle, RhtColumnwise) {
  for (uint32_t mask : {0xD7E8u, 0x0000u, 0x3C5Au}) {
    SCOPED_TRACE(testing::Message() << "mask 0x" << std::hex << mask);
    lowp_quant_config cfg = default_config();
    cfg.rht = 1;
    cfg.rht_sign_mask = mask;
    int64_t columns = 0, exact = 0;
    sweep(cfg, [&](const Nvfp4PtQuant& t, const std::vector<float>& x) {
      expect_both_match(t, x, cfg);  // rowwise is the plain rule: RHT is columnwise only
      for (float v : x)  // inf/NaN, or sums that can overflow fp32, have no float64 twin
        if (!(std::fabs(v) < 1e36f)) return;
      exact += expect_rht_amax_close(x, t.M, t.K, mask, t.col_amax.data());
      columns += t.K;
    });
    std::printf("[ nvfp4 per-token RHT mask 0x%04X ] post-RHT column amax equals float64 in %lld of %lld finite columns\n",
                mask, static_cast<long long>(exact), static_cast<long long>(columns));
  }
}

// Small integers: every butterfly sum is exact in fp32, so the column amax equals float64 exactly.
TEST(Nvfp4PerTokenOracle, RhtAmaxExactOnIntegers) {
  const int64_t M = 64, K = 48;
  Rng rng(17);
  std::vector<float> x(M * K);
  for (float& v : x) v = static_cast<float>(static_cast<int>(rng.below(17)) - 8);
  lowp_tensor xt{x.data(), LOWP_DTYPE_FLOAT32, M, K};
  for (uint32_t mask : {0xD7E8u, 0x0000u, 0xFFFFu}) {
    lowp_quant_config cfg = default_config();
    cfg.rht = 1;
    cfg.rht_sign_mask = mask;
    std::vector<float> col(K);
    ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, nullptr, col.data(), &cfg, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(expect_rht_amax_close(x, M, K, mask, col.data()), K) << "mask " << mask;
  }
}

TEST(Nvfp4PerTokenOracle, StochasticRounding) {
  int runs = 0;
  for (bool rht : {false, true})
    for (uint64_t seed : {0x0ull, 0x123456789ABCDEF0ull})
      for (uint64_t offset : {0x0ull, 0xFFFFFFFF00000007ull}) {
        SCOPED_TRACE(testing::Message() << "rht " << rht << " seed " << seed << " offset " << offset);
        const uint64_t state[2] = {seed, offset};
        lowp_quant_config cfg = default_config();
        cfg.rht = rht;
        cfg.stochastic_rounding = 1;
        cfg.rng_state = state;
        runs += sweep(cfg, [&](const Nvfp4PtQuant& t, const std::vector<float>& x) { expect_both_match(t, x, cfg); });
        EXPECT_EQ(state[0], seed);
        EXPECT_EQ(state[1], offset);  // read, never advanced
      }
  std::printf("[ nvfp4 per-token SR ] %d fuzzed inputs byte-exact vs the Philox oracle\n", runs);
}

// Given amaxes: read from the parts, nothing computed or written there; the codes follow them
// (some rows get an amax below their max and clip, some far above it and underflow to zero blocks).
TEST(Nvfp4PerTokenOracle, AmaxGiven) {
  const int64_t M = 48, K = 80;
  const std::vector<uint8_t> bytes = fuzz_tensor(LOWP_DTYPE_BFLOAT16, M, K, Fill::kMixed, 3);
  const std::vector<float> x = decode_all(bytes, LOWP_DTYPE_BFLOAT16);
  Rng rng(8);
  std::vector<float> row_given(M), col_given(K);
  for (float& a : row_given) a = static_cast<float>(std::ldexp(1.0 + rng.uniform(), static_cast<int>(rng.below(60)) - 30));
  for (float& a : col_given) a = static_cast<float>(std::ldexp(1.0 + rng.uniform(), static_cast<int>(rng.below(60)) - 30));
  row_given[1] = 0.0f, row_given[2] = NAN, col_given[3] = INFINITY;
  row_given[3] = f32_from_bits(0x7F800001u);  // a signaling NaN: S_enc uses 1e-12 as for any NaN
  for (bool rht : {false, true}) {
    SCOPED_TRACE(rht ? "rht" : "no rht");
    lowp_quant_config cfg = default_config();
    cfg.amax_given = 1;
    cfg.rht = rht;
    Nvfp4PtQuant t(M, K, true, true);
    t.row_amax = row_given;
    t.col_amax = col_given;
    ASSERT_EQ(t.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_TRUE(float_bits_equal(t.row_amax.data(), row_given.data(), M, "rowwise amax (read only)"));
    EXPECT_TRUE(float_bits_equal(t.col_amax.data(), col_given.data(), K, "columnwise amax (read only)"));
    pto::PtConfig r = oracle_cfg(false, cfg), c = oracle_cfg(true, cfg);
    r.given = &row_given;
    c.given = &col_given;
    EXPECT_TRUE(matches_pt_oracle(t.row.data(), t.row_scales, t.row_amax.data(), pto::quantize(x, M, K, r), "rowwise"));
    EXPECT_TRUE(matches_pt_oracle(t.col.data(), t.col_scales, t.col_amax.data(), pto::quantize(x, M, K, c), "columnwise"));
  }
}

// K1 alone against the oracle's amaxes, each output on its own and both together, any M
// without RHT (K need not be a multiple of 16 either).
TEST(Nvfp4PerTokenOracle, AmaxAlone) {
  int runs = 0;
  for (const Shape s : {Shape{16, 16}, Shape{5, 7}, Shape{144, 48}, Shape{33, 100}})
    for (lowp_dtype dt : kInputDtypes)
      for (Fill f : kAllFills)
        for (bool rht : {false, true}) {
          if (rht && s.M % 16 != 0) continue;
          SCOPED_TRACE(testing::Message() << s.M << "x" << s.K << " " << dtype_name(dt) << " " << fill_name(f) << " rht " << rht);
          const std::vector<uint8_t> bytes = fuzz_tensor(dt, s.M, s.K, f, 500 + runs++);
          const std::vector<float> x = decode_all(bytes, dt);
          // The oracle's amaxes come from its orientation values (x, x^T, RHT16 of x^T's strips);
          // K % 16 != 0 is fine for the row amaxes of x^T's transpose: build them directly.
          std::vector<float> want_row(s.M), want_col(s.K);
          for (int64_t i = 0; i < s.M; ++i) want_row[i] = nvfp4_oracle::amax_of(&x[i * s.K], s.K);
          if (!rht) {
            for (int64_t k = 0; k < s.K; ++k) want_col[k] = nvfp4_oracle::amax_of(&x[k], s.M, s.K);
          } else {
            pto::PtConfig oc;
            oc.columnwise = oc.rht = true;
            want_col = pto::quantize(x, s.M, s.K, oc).amaxes;
          }
          lowp_quant_config cfg = default_config();
          cfg.rht = rht;
          lowp_tensor xt{const_cast<uint8_t*>(bytes.data()), dt, s.M, s.K};
          std::vector<float> row(s.M), col(s.K);
          ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, row.data(), col.data(), &cfg, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          EXPECT_TRUE(amaxes_equal(row.data(), want_row, "row_amax"));
          EXPECT_TRUE(amaxes_equal(col.data(), want_col, "col_amax"));
          std::vector<float> only(std::max(s.M, s.K), -7.0f);
          ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, only.data(), nullptr, &cfg, nullptr), LOWP_SUCCESS);
          EXPECT_TRUE(float_bits_equal(only.data(), row.data(), s.M, "row_amax alone"));
          ASSERT_EQ(lowp_nvfp4_amax_per_token(&xt, nullptr, only.data(), &cfg, nullptr), LOWP_SUCCESS);
          EXPECT_TRUE(float_bits_equal(only.data(), col.data(), s.K, "col_amax alone"));
        }
}

}  // namespace
