// NVFP4 per-tensor recipe features through the C API (host memory): amax estimation (with the
// numerics §4 clipping report), given amax, stochastic rounding properties, scale layouts and the
// standalone swizzle, dequantize, sizes, role defaults and lowp_rng_advance.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

#include "nvfp4_fixture.h"

using namespace lowp_test;
namespace orc = nvfp4_oracle;

namespace {

lowp_quant_config defaults() {
  lowp_quant_config c;
  lowp_quant_config_default(&c);
  return c;
}

std::vector<uint8_t> gaussian_bf16(int64_t M, int64_t K, uint64_t seed) {
  return fuzz_tensor(LOWP_DTYPE_BFLOAT16, M, K, Fill::kGaussian, seed);
}

// Columnwise blocks that clip: the unrounded block scale b * S_enc / 6 exceeds 448 (so the
// scale saturates at 0x7E and the block's largest elements land above 6 and are cut).
struct ClipCount {
  int64_t blocks = 0, saturated_7e = 0, clipped = 0;
};
ClipCount count_clipped(const Nvfp4Quant& t, const std::vector<float>& x, uint32_t mask) {
  orc::Config oc;
  oc.columnwise = true;
  oc.rht = true;
  oc.mask = mask;
  const orc::Result exact = orc::quantize(x, t.M, t.K, oc);  // its values: the post-RHT blocks
  const double s_enc = orc::encode_scale(t.col_amax);
  const int64_t C = (t.M / 16 + 3) / 4 * 4;
  ClipCount n;
  for (int64_t i = 0; i < t.K; ++i)
    for (int64_t jb = 0; jb < t.M / 16; ++jb) {
      const double b = orc::amax_of(&exact.values[i * t.M + jb * 16], 16);
      const bool sat = t.col_scales[i * C + jb] == 0x7E;
      ++n.blocks;
      n.saturated_7e += sat;
      n.clipped += sat && b * s_enc / 6.0 > 448.0 * (1.0 + 1e-6);
    }
  return n;
}

// Amax estimation: A_col = A_row * c exactly, rowwise outputs unchanged; reports how many
// columnwise blocks clip under the estimate versus the exact post-RHT amax (numerics §4).
TEST(Nvfp4Features, AmaxEstimation) {
  const int64_t M = 256, K = 512;
  // Gaussian (the usual case) and an adversarial tensor: every 16-vector of a column is
  // a * (sign pattern of the mask), which the RHT folds into one output of 4a.
  std::vector<uint8_t> gauss = gaussian_bf16(M, K, 11);
  std::vector<float> adv(M * K);
  Rng rng(5);
  for (int64_t c = 0; c < K; ++c) {
    const float a = static_cast<float>(1.0 + rng.uniform());
    for (int64_t r = 0; r < M; ++r) adv[r * K + c] = ((0xD7E8u >> (r % 16)) & 1u) ? -a : a;
  }
  const std::vector<uint8_t> adv_bytes = encode(adv, LOWP_DTYPE_BFLOAT16);
  // LLM-like: Gaussian plus 4 "massive activation" channels, near-constant 50 down each column.
  std::vector<float> outl = decode_all(gauss, LOWP_DTYPE_BFLOAT16);
  for (int64_t c : {7, 100, 301, 450})
    for (int64_t r = 0; r < M; ++r) outl[r * K + c] = 50.0f + static_cast<float>(rng.gaussian());
  const std::vector<uint8_t> outl_bytes = encode(outl, LOWP_DTYPE_BFLOAT16);
  for (const auto& [name, bytes] : {std::pair<const char*, const std::vector<uint8_t>*>{"gaussian", &gauss},
                                    {"outliers", &outl_bytes},
                                    {"adversarial", &adv_bytes}}) {
    SCOPED_TRACE(name);
    const std::vector<float> x = decode_all(*bytes, LOWP_DTYPE_BFLOAT16);
    lowp_quant_config cfg = defaults();
    cfg.rht = 1;
    Nvfp4Quant exact(M, K, true, true);
    ASSERT_EQ(exact.run(*bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    const ClipCount ce = count_clipped(exact, x, cfg.rht_sign_mask);
    EXPECT_EQ(ce.clipped, 0) << "the exact post-RHT amax never clips";
    std::printf("[ nvfp4 estimation %-11s ] exact post-RHT amax %g, rowwise amax %g: %lld of %lld columnwise blocks clip\n",
                name, static_cast<double>(exact.col_amax), static_cast<double>(exact.row_amax),
                static_cast<long long>(ce.clipped), static_cast<long long>(ce.blocks));
    for (float factor : {1.0f, 2.0f}) {
      SCOPED_TRACE(factor);
      cfg.amax_estimation = 1;
      cfg.amax_estimation_factor = factor;
      Nvfp4Quant est(M, K, true, true);
      ASSERT_EQ(est.run(*bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_EQ(f32_bits(est.col_amax), f32_bits(exact.row_amax * factor));
      EXPECT_EQ(est.row, exact.row);
      EXPECT_EQ(est.row_scales, exact.row_scales);
      EXPECT_EQ(f32_bits(est.row_amax), f32_bits(exact.row_amax));
      orc::Config oc;
      oc.columnwise = oc.rht = oc.estimate = true;
      oc.factor = factor;
      EXPECT_TRUE(matches_oracle(est.col.data(), est.col_scales, est.col_amax, orc::quantize(x, M, K, oc), "columnwise"));
      const ClipCount c = count_clipped(est, x, cfg.rht_sign_mask);
      std::printf("[ nvfp4 estimation %-11s ] factor %.1f: A_col %g (%s the true post-RHT amax %g): "
                  "%lld of %lld columnwise blocks clip (%.3f%%), %lld scales at 0x7E\n",
                  name, static_cast<double>(factor), static_cast<double>(est.col_amax),
                  est.col_amax < exact.col_amax ? "below" : "not below", static_cast<double>(exact.col_amax),
                  static_cast<long long>(c.clipped), static_cast<long long>(c.blocks),
                  100.0 * static_cast<double>(c.clipped) / static_cast<double>(c.blocks),
                  static_cast<long long>(c.saturated_7e));
      ::testing::Test::RecordProperty(std::string(name) + "_clipped_blocks_factor_" + std::to_string(static_cast<int>(factor)),
                                      static_cast<int>(c.clipped));
      if (std::string(name) == "adversarial") {
        EXPECT_GT(c.clipped, 0) << "4a post-RHT peaks exceed 2a";
      }
    }
  }
}

// Given amax: read from the parts, nothing computed or written there; codes follow that amax.
TEST(Nvfp4Features, AmaxGiven) {
  const int64_t M = 48, K = 80;
  const std::vector<uint8_t> bytes = gaussian_bf16(M, K, 3);
  const std::vector<float> x = decode_all(bytes, LOWP_DTYPE_BFLOAT16);
  for (bool rht : {false, true}) {
    lowp_quant_config cfg = defaults();
    cfg.amax_given = 1;
    cfg.rht = rht;
    Nvfp4Quant t(M, K, true, true);
    t.row_amax = 10.0f;
    t.col_amax = 3.0f;  // below the real amax: blocks clip, as asked
    ASSERT_EQ(t.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(t.row_amax, 10.0f);
    EXPECT_EQ(t.col_amax, 3.0f);
    orc::Config r, c;
    r.given = c.given = true;
    r.given_amax = 10.0f;
    c.given_amax = 3.0f;
    c.columnwise = true;
    c.rht = rht;
    EXPECT_TRUE(matches_oracle(t.row.data(), t.row_scales, t.row_amax, orc::quantize(x, M, K, r), "rowwise"));
    EXPECT_TRUE(matches_oracle(t.col.data(), t.col_scales, t.col_amax, orc::quantize(x, M, K, c), "columnwise"));
  }
}

std::vector<uint8_t> sr_codes(const std::vector<uint8_t>& bytes, int64_t M, int64_t K, const uint64_t* state,
                              bool columnwise) {
  lowp_quant_config cfg = defaults();
  cfg.stochastic_rounding = 1;
  cfg.rng_state = state;
  cfg.rht = 1;
  Nvfp4Quant t(M, K, true, true);
  EXPECT_EQ(t.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
  return columnwise ? t.col : t.row;
}

TEST(Nvfp4Features, StochasticRoundingReproducible) {
  const int64_t M = 64, K = 128;
  const std::vector<uint8_t> bytes = gaussian_bf16(M, K, 9);
  const uint64_t a[2] = {42, 1000}, b[2] = {42, 1001}, c[2] = {43, 1000};
  for (bool col : {false, true}) {
    SCOPED_TRACE(col ? "columnwise" : "rowwise");
    const std::vector<uint8_t> base = sr_codes(bytes, M, K, a, col);
    EXPECT_EQ(sr_codes(bytes, M, K, a, col), base) << "same seed and offset, same bytes";
    EXPECT_NE(sr_codes(bytes, M, K, b, col), base) << "another offset draws other bits";
    EXPECT_NE(sr_codes(bytes, M, K, c, col), base) << "another seed draws other bits";
  }
}

// Dequantizes one orientation of t into fp32.
std::vector<float> dequant(const Nvfp4Quant& t, lowp_orientation w) {
  const int64_t rows = w == LOWP_ROWWISE ? t.M : t.K, cols = w == LOWP_ROWWISE ? t.K : t.M;
  std::vector<float> out(rows * cols);
  lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, rows, cols};
  EXPECT_EQ(lowp_dequantize(&t.q, w, &o, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  return out;
}

// E[x^] ~ x (numerics §7): the mean of 64 SR draws, the offset advanced by lowp_rng_advance between
// them, is closer to x than round-to-nearest is.
TEST(Nvfp4Features, StochasticRoundingIsUnbiased) {
  const int64_t M = 32, K = 256, kDraws = 64;
  const std::vector<uint8_t> bytes = gaussian_bf16(M, K, 21);
  const std::vector<float> x = decode_all(bytes, LOWP_DTYPE_BFLOAT16);
  Nvfp4Quant rn(M, K, true, false);
  ASSERT_EQ(rn.run(bytes, LOWP_DTYPE_BFLOAT16), LOWP_SUCCESS);
  const std::vector<float> x_rn = dequant(rn, LOWP_ROWWISE);
  std::vector<double> mean(M * K, 0.0);
  uint64_t state[2] = {0xC0FFEEull, 0};
  lowp_quant_config cfg = defaults();
  cfg.stochastic_rounding = 1;
  cfg.rng_state = state;
  for (int d = 0; d < kDraws; ++d) {
    Nvfp4Quant sr(M, K, true, false);
    ASSERT_EQ(sr.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS);
    const std::vector<float> v = dequant(sr, LOWP_ROWWISE);
    for (size_t i = 0; i < v.size(); ++i) mean[i] += v[i] / kDraws;
    ASSERT_EQ(lowp_rng_advance(state, 1, nullptr), LOWP_SUCCESS);
  }
  EXPECT_EQ(state[1], static_cast<uint64_t>(kDraws));
  double err_rn = 0, err_sr = 0, bias_sr = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err_rn += std::pow(x_rn[i] - x[i], 2);
    err_sr += std::pow(mean[i] - x[i], 2);
    bias_sr += mean[i] - x[i];
  }
  const double n = static_cast<double>(x.size());
  std::printf("[ nvfp4 SR ] RMS error: RN %.5f, mean of %lld SR draws %.5f; mean SR bias %.2e\n", std::sqrt(err_rn / n),
              static_cast<long long>(kDraws), std::sqrt(err_sr / n), bias_sr / n);
  EXPECT_LT(err_sr, 0.5 * err_rn);
}

// Scales: the swizzled layout equals the standalone swizzle of the compact one, and numerics §6's
// formula applied in the test; codes and amaxes do not depend on the layout; padding is zero.
TEST(Nvfp4Features, SwizzledScalesMatchStandaloneSwizzle) {
  struct Shape {
    int64_t M, K;
  };
  for (const Shape s : {Shape{48, 80}, Shape{144, 272}, Shape{256, 64}, Shape{16, 16}}) {
    SCOPED_TRACE(testing::Message() << s.M << "x" << s.K);
    const std::vector<uint8_t> bytes = fuzz_tensor(LOWP_DTYPE_BFLOAT16, s.M, s.K, Fill::kMixed, 4);
    lowp_quant_config cfg = defaults();
    cfg.rht = 1;
    Nvfp4Quant compact(s.M, s.K, true, true, LOWP_SCALE_LAYOUT_COMPACT);
    Nvfp4Quant swz(s.M, s.K, true, true, LOWP_SCALE_LAYOUT_SWIZZLED);
    ASSERT_EQ(compact.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    ASSERT_EQ(swz.run(bytes, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(compact.row, swz.row);
    EXPECT_EQ(compact.col, swz.col);
    EXPECT_EQ(f32_bits(compact.row_amax), f32_bits(swz.row_amax));
    EXPECT_EQ(f32_bits(compact.col_amax), f32_bits(swz.col_amax));
    struct Part {
      const char* name;
      const std::vector<uint8_t>& compact;
      const std::vector<uint8_t>& swizzled;
      int64_t rows, blocks;
    };
    for (const Part& p : {Part{"rowwise", compact.row_scales, swz.row_scales, s.M, s.K / 16},
                          Part{"columnwise", compact.col_scales, swz.col_scales, s.K, s.M / 16}}) {
      SCOPED_TRACE(p.name);
      std::vector<uint8_t> standalone(p.compact.size(), kPoison);
      ASSERT_EQ(lowp_nvfp4_swizzle_scales(p.compact.data(), standalone.data(), p.rows, p.blocks, nullptr),
                LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_TRUE(bytes_equal(p.swizzled, standalone, 1, static_cast<int64_t>(standalone.size()), "fused vs standalone"));
      const int64_t C = (p.blocks + 3) / 4 * 4, R = (p.rows + 127) / 128 * 128;
      ASSERT_EQ(static_cast<int64_t>(p.compact.size()), R * C);
      std::vector<uint8_t> formula(p.compact.size(), 0xEE);
      int64_t nonzero_padding = 0;
      for (int64_t i = 0; i < R; ++i)
        for (int64_t j = 0; j < C; ++j) {
          const uint8_t v = p.compact[i * C + j];
          formula[orc::swizzled_offset(i, j, C)] = v;
          nonzero_padding += (i >= p.rows || j >= p.blocks) && v != 0;
        }
      EXPECT_EQ(nonzero_padding, 0) << "compact padding must be zero";
      EXPECT_TRUE(bytes_equal(p.swizzled, formula, 1, static_cast<int64_t>(formula.size()), "fused vs numerics §6 formula"));
    }
  }
}

// The standalone swizzle reads only the valid entries: garbage in the compact padding still
// gives zero padding.
TEST(Nvfp4Features, StandaloneSwizzleZeroesPadding) {
  const int64_t rows = 130, blocks = 5, R = 256, C = 8;
  std::vector<uint8_t> compact(R * C, 0xFF), out(R * C, kPoison);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < blocks; ++j) compact[i * C + j] = static_cast<uint8_t>(1 + (i * 7 + j) % 126);
  ASSERT_EQ(lowp_nvfp4_swizzle_scales(compact.data(), out.data(), rows, blocks, nullptr), LOWP_SUCCESS);
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      const uint8_t want = (i < rows && j < blocks) ? compact[i * C + j] : 0;
      ASSERT_EQ(out[orc::swizzled_offset(i, j, C)], want) << "entry (" << i << ", " << j << ")";
    }
}

// Dequantize reads the scales in the tensor's layout: both layouts give the same values, equal
// to the oracle's x^ = e2m1(q) * (float(s) * A * (1/2688)), for fp32/bf16/fp16 outputs.
TEST(Nvfp4Features, DequantizeBothLayoutsAgree) {
  expect_dequantize_both_layouts<Nvfp4Quant>([](const Nvfp4Quant& t, bool row, int64_t, uint8_t code, uint8_t s) {
    return orc::dequantize(code, s, row ? t.row_amax : t.col_amax);
  });
}

TEST(Nvfp4Features, SizesQuery) {
  lowp_quantized_sizes s;
  poison(&s, sizeof s);
  ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, 48, 80, &s), LOWP_SUCCESS)
      << lowp_get_last_error();
  EXPECT_EQ(s.data_bytes[0], 1920u);          // 48 * 80 / 2
  EXPECT_EQ(s.data_bytes[1], 1920u);
  EXPECT_EQ(s.scale_inv_bytes[0], 128u * 8u);  // [roundup(48,128)][roundup(5,4)]
  EXPECT_EQ(s.scale_inv_bytes[1], 128u * 4u);  // [roundup(80,128)][roundup(3,4)]
  EXPECT_EQ(s.amax_bytes[0], 4u);
  EXPECT_EQ(s.amax_bytes[1], 4u);
  EXPECT_EQ(s.tensor_scale_bytes, 0u);
  poison(&s, sizeof s);
  ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, 300, 2064, &s), LOWP_SUCCESS);
  EXPECT_EQ(s.data_bytes[0], 300u * 2064u / 2);
  EXPECT_EQ(s.scale_inv_bytes[0], 384u * 132u);  // roundup(300,128) = 384, roundup(129,4) = 132
  EXPECT_EQ(s.data_bytes[1], 0u);                // 300 % 16 != 0: no columnwise copy
  EXPECT_EQ(s.scale_inv_bytes[1], 0u);
  EXPECT_EQ(s.amax_bytes[1], 0u);
}

TEST(Nvfp4Features, RoleDefaults) {
  lowp_quant_config c;
  poison(&c, sizeof c);
  lowp_quant_config_default(&c);
  EXPECT_EQ(c.amax_given, 0);
  for (lowp_tensor_role role : {LOWP_ROLE_INPUT, LOWP_ROLE_WEIGHT, LOWP_ROLE_GRADIENT}) {
    poison(&c, sizeof c);
    lowp_quant_config_nvfp4(role, &c);
    EXPECT_EQ(c.amax_epsilon, 0.0f);
    EXPECT_EQ(c.power_of_two_scale, 0);
    EXPECT_EQ(c.rht, role == LOWP_ROLE_WEIGHT ? 0 : 1) << role;
    EXPECT_EQ(c.rht_sign_mask, 0xD7E8u);
    EXPECT_EQ(c.stochastic_rounding, role == LOWP_ROLE_GRADIENT ? 1 : 0) << role;
    EXPECT_EQ(c.rng_state, nullptr);
    EXPECT_EQ(c.block_2d, role == LOWP_ROLE_WEIGHT ? 1 : 0) << role;
    EXPECT_EQ(c.amax_estimation, 0);
    EXPECT_EQ(c.amax_estimation_factor, role == LOWP_ROLE_GRADIENT ? 1.0f : 2.0f) << role;
    EXPECT_EQ(c.amax_given, 0);
  }
  lowp_quant_config_nvfp4(LOWP_ROLE_INPUT, nullptr);  // no crash
  // Each role quantizes as configured (the gradient once given its rng state).
  const std::vector<uint8_t> bytes = gaussian_bf16(32, 64, 1);
  const uint64_t state[2] = {1, 2};
  for (lowp_tensor_role role : {LOWP_ROLE_INPUT, LOWP_ROLE_WEIGHT, LOWP_ROLE_GRADIENT}) {
    lowp_quant_config_nvfp4(role, &c);
    Nvfp4Quant t(32, 64, true, true);
    if (role == LOWP_ROLE_GRADIENT) {
      EXPECT_EQ(t.run(bytes, LOWP_DTYPE_BFLOAT16, &c), LOWP_ERROR_INVALID_ARGUMENT) << "rng_state is still NULL";
      c.rng_state = state;
    }
    EXPECT_EQ(t.run(bytes, LOWP_DTYPE_BFLOAT16, &c), LOWP_SUCCESS) << role << ": " << lowp_get_last_error();
  }
}

TEST(Nvfp4Features, RngAdvance) {
  uint64_t s[2] = {7, 5};
  ASSERT_EQ(lowp_rng_advance(s, 10, nullptr), LOWP_SUCCESS);
  EXPECT_EQ(s[0], 7u);
  EXPECT_EQ(s[1], 15u);
  s[1] = ~0ull - 1;
  ASSERT_EQ(lowp_rng_advance(s, 3, nullptr), LOWP_SUCCESS);
  EXPECT_EQ(s[1], 1u);  // wraps mod 2^64
  EXPECT_EQ(s[0], 7u);
}

}  // namespace
