// The CPU reference of lowp_gemm (lowp/gemm.h, numerics §8): hand-worked cases with exact
// expected values (row-scaled's raw amaxes and 4over6's recorded outer maximum among them), every
// recipe x product x output dtype x bias x accumulate (4over6 operands too) against an
// independent fp64 dequantize-then-multiply (lowp_dequantize), the seed identities (per-token
// with every outer amax 1 == per-tensor with amax 1; swizzled scales == compact scales), and
// IEEE propagation of NaN and Inf codes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/compare.h"
#include "common/gemm_operands.h"

using namespace lowp_test;

namespace {

constexpr uint8_t kE4m3One = 0x38, kE4m3Two = 0x40, kE4m3Half = 0x30, kE4m3Nan = 0x7F;
constexpr uint8_t kE5m2Two = 0x40, kE5m2Inf = 0x7C;

HostQuantized fp8_rowwise(lowp_dtype dt, lowp_scaling s, int64_t rows, int64_t cols, std::vector<uint8_t> codes) {
  HostQuantized h;
  h.dtype = dt;
  h.scaling = s;
  h.rows = rows;
  h.cols = cols;
  h.data[0] = std::move(codes);
  return h;
}

void set_scale_inv(HostQuantized& h, const std::vector<float>& v) {  // FP8 per-token
  h.scales[0].resize(v.size() * 4);
  std::memcpy(h.scales[0].data(), v.data(), h.scales[0].size());
}

// NVFP4 rowwise copy rows x k with compact scales [roundup(rows,128)][roundup(k/16,4)].
HostQuantized nvfp4_rowwise(lowp_scaling s, int64_t rows, int64_t k) {
  HostQuantized h;
  h.dtype = LOWP_DTYPE_E2M1;
  h.scaling = s;
  h.rows = rows;
  h.cols = k;
  h.data[0].assign(static_cast<size_t>(rows * k / 2), 0);
  h.scales[0].assign(static_cast<size_t>((rows + 127) / 128 * 128 * ((k / 16 + 3) / 4 * 4)), 0);
  return h;
}
uint8_t& scale_at(HostQuantized& h, int64_t r, int64_t block) { return h.scales[0][r * ((h.cols / 16 + 3) / 4 * 4) + block]; }

std::vector<float> run(HostQuantized& a, HostQuantized& b, int64_t m, int64_t n, lowp_dtype dt = LOWP_DTYPE_FLOAT32,
                       const lowp_gemm_config* cfg = nullptr, std::vector<uint8_t> d = {}) {
  if (d.empty()) d.assign(static_cast<size_t>(m * n) * dtype_size(dt), 0xA5);
  lowp_quantized_tensor qa = a.view(), qb = b.view();
  lowp_tensor t{d.data(), dt, m, n};
  EXPECT_EQ(lowp_gemm(&qa, LOWP_ROWWISE, &qb, LOWP_ROWWISE, &t, cfg, nullptr, 0, nullptr), LOWP_SUCCESS)
      << lowp_get_last_error();
  return d_values_of(d, dt);
}

// A = 2 x 16 E4M3 (row i all i + 1), B = 16 x 16 identity (E4M3 1.0 on the diagonal): D[i][j] =
// (sa * sb) * (i + 1) = 2 (i + 1), plus bias j, plus D_old.
TEST(GemmCpuHand, Fp8PerTensor) {
  std::vector<uint8_t> ac(32), bc(256, 0);
  for (int k = 0; k < 16; ++k) ac[k] = kE4m3One, ac[16 + k] = kE4m3Two, bc[k * 16 + k] = kE4m3One;
  HostQuantized a = fp8_rowwise(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 2, 16, ac);
  HostQuantized b = fp8_rowwise(LOWP_DTYPE_E4M3, LOWP_SCALING_DELAYED, 16, 16, bc);
  a.scale_inv = 0.5f;
  b.scale_inv = 4.0f;
  for (lowp_dtype dt : {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_BFLOAT16}) {
    const std::vector<float> d = run(a, b, 2, 16, dt);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 16; ++j) EXPECT_EQ(d[i * 16 + j], 2.0f * (i + 1)) << i << "," << j;
  }
  std::vector<float> bias(16), old(32, 100.0f);
  for (int j = 0; j < 16; ++j) bias[j] = static_cast<float>(j);
  const std::vector<uint8_t> bias_bf16 = encode(bias, LOWP_DTYPE_BFLOAT16);
  lowp_gemm_config cfg;
  lowp_gemm_config_default(&cfg);
  cfg.bias = bias_bf16.data();
  cfg.accumulate = 1;
  const std::vector<float> d = run(a, b, 2, 16, LOWP_DTYPE_FLOAT32, &cfg, encode(old, LOWP_DTYPE_FLOAT32));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 16; ++j) EXPECT_EQ(d[i * 16 + j], 100.0f + 2.0f * (i + 1) + j) << i << "," << j;
}

// E4M3 x E5M2 per-token: A = 2 x 32 all 1.0 with sa = {1, 0.25}; B[j] = 2.0 at k = 0 with
// sb[j] = j + 1: D[i][j] = (sa[i] * sb[j]) * 2.
TEST(GemmCpuHand, Fp8PerTokenE4m3xE5m2) {
  std::vector<uint8_t> bc(16 * 32, 0);
  for (int j = 0; j < 16; ++j) bc[j * 32] = kE5m2Two;
  HostQuantized a = fp8_rowwise(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 2, 32, std::vector<uint8_t>(64, kE4m3One));
  HostQuantized b = fp8_rowwise(LOWP_DTYPE_E5M2, LOWP_SCALING_PER_TOKEN, 16, 32, bc);
  set_scale_inv(a, {1.0f, 0.25f});
  std::vector<float> sb(16);
  for (int j = 0; j < 16; ++j) sb[j] = static_cast<float>(j + 1);
  set_scale_inv(b, sb);
  const std::vector<float> d = run(a, b, 2, 16);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 16; ++j) EXPECT_EQ(d[i * 16 + j], (i ? 0.25f : 1.0f) * (j + 1) * 2.0f) << i << "," << j;
}

// NVFP4 3 x 32 by 2 x 32. A rows: every code 1.0 (row 2: -1.0), block scales 1.0 and 2.0, so row
// sums against B row 0 (every code 1.0, scales 1.0) are 16 + 32 = 48; B row 1 holds 6.0 at k = 0
// with scale 0.5, so its sums are 3. amax 2688 and 5376 give alpha = 2.
void fill_nvfp4_hand(HostQuantized& a, HostQuantized& b) {
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t c = 0; c < 16; ++c) a.data[0][i * 16 + c] = i == 2 ? 0xAA : 0x22;
    scale_at(a, i, 0) = kE4m3One;
    scale_at(a, i, 1) = kE4m3Two;
  }
  for (int64_t c = 0; c < 16; ++c) b.data[0][c] = 0x22;
  scale_at(b, 0, 0) = scale_at(b, 0, 1) = kE4m3One;
  b.data[0][16] = 0x07;
  scale_at(b, 1, 0) = kE4m3Half;
  scale_at(b, 1, 1) = kE4m3One;
}

TEST(GemmCpuHand, Nvfp4PerTensor) {
  HostQuantized a = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TENSOR, 3, 32);
  HostQuantized b = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TENSOR, 2, 32);
  fill_nvfp4_hand(a, b);
  a.amax[0] = {2688.0f};
  b.amax[0] = {5376.0f};
  const float want[6] = {96, 6, 96, 6, -96, -6};
  EXPECT_EQ(run(a, b, 3, 2), std::vector<float>(want, want + 6));
  swizzle_scales(a);  // the same through swizzled scales
  swizzle_scales(b);
  EXPECT_EQ(run(a, b, 3, 2), std::vector<float>(want, want + 6));
}

// Per-token: r = (1/2688^2) * (A_b[j] * (A_a[i] * acc)), a zero row amax floored to 1e-12.
TEST(GemmCpuHand, Nvfp4PerToken) {
  HostQuantized a = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TOKEN, 3, 32);
  HostQuantized b = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TOKEN, 2, 32);
  fill_nvfp4_hand(a, b);
  a.amax[0] = {2688.0f, 1344.0f, 0.0f};
  b.amax[0] = {2688.0f, 5376.0f};
  const std::vector<float> d = run(a, b, 3, 2);
  EXPECT_EQ(d[0], 48.0f);
  EXPECT_EQ(d[1], 6.0f);
  EXPECT_EQ(d[2], 24.0f);
  EXPECT_EQ(d[3], 3.0f);
  const volatile float inv = 1.0f / 7225344.0f, floor_amax = 1e-12f;  // numerics §5's floor, by hand
  EXPECT_EQ(d[4], inv * (2688.0f * (floor_amax * -48.0f)));
  EXPECT_EQ(d[5], inv * (5376.0f * (floor_amax * -3.0f)));
  EXPECT_NE(d[4], 0.0f);
}

// Row-scaled: r = (1/2688^2) * (A_b[j] * (A_a[i] * acc)) with the raw amaxes: a zero row amax
// gives (1/2688^2) * (A_b * (0 * acc)) = -0 for the negative sums of row 2 (per-token floors it).
TEST(GemmCpuHand, Nvfp4RowScaledRawAmax) {
  HostQuantized a = nvfp4_rowwise(LOWP_SCALING_NVFP4_ROW_SCALED, 3, 32);
  HostQuantized b = nvfp4_rowwise(LOWP_SCALING_NVFP4_ROW_SCALED, 2, 32);
  fill_nvfp4_hand(a, b);
  a.amax[0] = {2688.0f, 1344.0f, 0.0f};
  b.amax[0] = {2688.0f, 5376.0f};
  const std::vector<float> d = run(a, b, 3, 2);
  const float want[4] = {48.0f, 6.0f, 24.0f, 3.0f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d[i], want[i]) << i;
  EXPECT_EQ(f32_bits(d[4]), 0x80000000u);
  EXPECT_EQ(f32_bits(d[5]), 0x80000000u);
}

// 4over6 with E = 256 records 6E = 1536: alpha = (A_a * A_b) * fl(1 / (1536 * 2688)). With
// A_a = 1536, A_b = 2688 the product is 4128768 = 63 * 2^16 and alpha = fl(63 * fl(1/63)) = 1
// (fl(1/63) is within 2^-24 of 1/63), so D is the sums of the hand operands: 48, 3 and -48, -3
// (read as 2688 both, alpha would be 1536 / 2688).
TEST(GemmCpuHand, Nvfp4OuterMaxOfFourOverSix) {
  HostQuantized a = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TENSOR, 3, 32);
  HostQuantized b = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TENSOR, 2, 32);
  fill_nvfp4_hand(a, b);
  a.amax[0] = {1536.0f};
  b.amax[0] = {2688.0f};
  a.outer_max = 1536.0f;
  const float want[6] = {48, 3, 48, 3, -48, -3};
  EXPECT_EQ(run(a, b, 3, 2), std::vector<float>(want, want + 6));
  a.outer_max = 1000.0f;  // not a 6E lowp_quantize records
  std::vector<uint8_t> d(3 * 2 * 4);
  lowp_quantized_tensor qa = a.view(), qb = b.view();
  lowp_tensor t{d.data(), LOWP_DTYPE_FLOAT32, 3, 2};
  EXPECT_EQ(lowp_gemm(&qa, LOWP_ROWWISE, &qb, LOWP_ROWWISE, &t, nullptr, nullptr, 0, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("a->nvfp4_outer_max"), std::string::npos) << lowp_get_last_error();
}

// NaN codes and scales give NaN; E5M2 inf times a nonzero gives inf, times zero NaN.
TEST(GemmCpuHand, IeeePropagation) {
  std::vector<uint8_t> ac(2 * 16, kE4m3One), bc(16 * 16, 0);
  ac[3] = kE4m3Nan;             // row 0 holds a NaN
  ac[16 + 5] = 0;               // row 1: zero at k = 5
  bc[1 * 16 + 5] = kE5m2Inf;    // b row 1: +inf at k = 5
  bc[2 * 16 + 6] = kE5m2Inf;    // b row 2: +inf at k = 6
  bc[3 * 16 + 0] = kE5m2Two;
  HostQuantized a = fp8_rowwise(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 2, 16, ac);
  HostQuantized b = fp8_rowwise(LOWP_DTYPE_E5M2, LOWP_SCALING_CURRENT, 16, 16, bc);
  const std::vector<float> d = run(a, b, 2, 16);
  for (int j = 0; j < 16; ++j) EXPECT_TRUE(std::isnan(d[j])) << j;
  EXPECT_TRUE(std::isnan(d[16 + 1]));  // 0 * inf
  EXPECT_EQ(d[16 + 2], INFINITY);
  EXPECT_EQ(d[16 + 3], 2.0f);
  EXPECT_EQ(d[16 + 0], 0.0f);

  HostQuantized na = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TENSOR, 3, 32), nb = nvfp4_rowwise(LOWP_SCALING_NVFP4_PER_TENSOR, 2, 32);
  fill_nvfp4_hand(na, nb);
  na.amax[0] = {2688.0f};
  nb.amax[0] = {2688.0f};
  scale_at(na, 1, 1) = kE4m3Nan;  // row 1's second block scale is NaN
  const std::vector<float> nd = run(na, nb, 3, 2);
  EXPECT_EQ(nd[0], 48.0f);
  EXPECT_TRUE(std::isnan(nd[2]) && std::isnan(nd[3]));  // b row 1 is 0 there: NaN * 0 is NaN
}

// Every recipe x product x output dtype x bias x accumulate, plus RHT wgrad, 2D weights,
// swizzled scales, E5M2 operands and SR, against sum_k deq(a) deq(b) in fp64 (+ bias + D_old).
TEST(GemmCpuReference, AgainstDequantizeThenMultiply) {
  uint64_t seed = 1;
  std::vector<GemmProblem> problems = matrix_problems(48, 32, 80, 3.0, 0.02, seed);
  auto variant = [&](GemmRecipe r, Product p, auto&& tweak) {
    GemmProblem g;
    g.recipe = r;
    g.product = p;
    g.m = 32, g.n = 48, g.k = 64;
    g.seed = seed++;
    tweak(g);
    problems.push_back(g);
  };
  for (GemmRecipe r : {GemmRecipe::kNvfp4PerTensor, GemmRecipe::kNvfp4PerToken, GemmRecipe::kNvfp4RowScaled}) {
    variant(r, Product::kWgrad, [](GemmProblem& g) { g.a_opt.rht = g.b_opt.rht = true; g.a_opt.sr = true; });
    variant(r, Product::kFprop, [](GemmProblem& g) { g.a_opt.layout = g.b_opt.layout = LOWP_SCALE_LAYOUT_SWIZZLED; });
    variant(r, Product::kFprop, [](GemmProblem& g) { g.m = 7, g.n = 5; g.bias = Bias::kF32; });
  }
  // 4over6 operands: E 448 or 256 on either side (the denominator 1 / (6E_a * 6E_b)).
  for (GemmRecipe r : {GemmRecipe::kNvfp4PerTensor, GemmRecipe::kNvfp4RowScaled})
    for (Product p : kAllProducts)
      for (float e_a : {448.0f, 256.0f}) {
        variant(r, p, [&](GemmProblem& g) {
          g.a_opt.four_over_six = g.b_opt.four_over_six = true;
          g.a_opt.four_over_six_scale_max = e_a;
          g.b_opt.four_over_six_scale_max = 256.0f;
          g.d_dtype = LOWP_DTYPE_FLOAT32;
        });
        variant(r, p, [&](GemmProblem& g) { g.a_opt.four_over_six = true, g.a_opt.four_over_six_scale_max = e_a; });
      }
  for (Product p : {Product::kFprop, Product::kDgrad})
    variant(GemmRecipe::kNvfp4PerTensor, p, [](GemmProblem& g) {
      g.b_opt.block_2d = g.b_opt.four_over_six = true;
      g.b_opt.four_over_six_scale_max = 256.0f;
    });
  for (Product p : {Product::kFprop, Product::kDgrad})
    variant(GemmRecipe::kNvfp4PerTensor, p, [](GemmProblem& g) { g.b_opt.block_2d = true; });
  for (GemmRecipe r : {GemmRecipe::kFp8Current, GemmRecipe::kFp8PerToken, GemmRecipe::kFp8Delayed}) {
    variant(r, Product::kDgrad, [](GemmProblem& g) { g.a_opt.fp8_dtype = LOWP_DTYPE_E5M2; });
    variant(r, Product::kWgrad, [](GemmProblem& g) { g.b_opt.fp8_dtype = LOWP_DTYPE_E5M2; g.fast_accumulation = true; });
    variant(r, Product::kFprop, [](GemmProblem& g) { g.m = 1; g.k = 16; });
  }

  Tally total;
  for (const GemmProblem& p : problems) {
    SCOPED_TRACE(p.describe());
    HostGemm g = make_gemm(p);
    std::vector<uint8_t> d = g.d_init;
    ASSERT_EQ(run_host_gemm(g, d, p.d_dtype), LOWP_SUCCESS) << lowp_get_last_error();
    const std::vector<float> av = dequantized(g.a, a_copy_of(p.product)), bv = dequantized(g.b, b_copy_of(p.product));
    const Fp64Products prod = fp64_products(av, bv, p.m, p.n, p.k);
    const std::vector<float> got = d_values_of(d, p.d_dtype);
    const std::vector<float> old = p.accumulate ? d_values_of(g.d_init, p.d_dtype) : std::vector<float>(got.size(), 0.0f);
    const std::vector<float> bias = p.has_bias() ? d_values_of(g.bias, p.bias_dtype()) : std::vector<float>(p.n, 0.0f);
    Tally t;
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const size_t at = static_cast<size_t>(i * p.n + j);
        const double want = prod.sum[at] + bias[j] + old[at];
        // Both sides round the outer scales and the decoded values a few times (2^-20 of the
        // sum of |products| bounds them together), bias and D_old once each.
        const double tol = std::ldexp(prod.abs_sum[at], -19) + std::ldexp(std::fabs(bias[j]) + std::fabs(old[at]), -22) +
                           ulp_of(want, p.d_dtype);
        ++t.checked;
        if (std::fabs(got[at] - want) <= tol) continue;
        if (t.violations++ == 0) {
          char buf[256];
          std::snprintf(buf, sizeof buf, "%s: [%lld][%lld] got %.9g, dequantize-then-multiply %.9g, tolerance %.3g",
                        p.describe().c_str(), static_cast<long long>(i), static_cast<long long>(j),
                        static_cast<double>(got[at]), want, tol);
          t.first = buf;
        }
      }
    total.add(t);
  }
  std::printf("[gemm cpu reference] %zu problems, %lld elements, %lld violations\n", problems.size(),
              static_cast<long long>(total.checked), static_cast<long long>(total.violations));
  EXPECT_EQ(total.violations, 0) << total.first;
}

// The premise of the GPU's bit-exact cases (exact_problem, exact_four_over_six_problem): every
// code and scale is exact and the sum of the unquantized x_a x_b fits fp32 exactly, so the
// reference is that sum through the outer scales (1 for these amaxes and scales, but the per-row
// NVFP4 fp32 chain (1/6E^2) * (6E * (6E * acc)) rounds), then + bias, then + D_old, in fp32.
TEST(GemmCpuReference, ExactProblemsAreExact) {
  int cases = 0;
  uint64_t seed = 100;
  for (GemmRecipe r : kAllGemmRecipes)
    for (Product p : kAllProducts)
      for (int variant = 0; variant < 3; ++variant) {
        const bool epilogue = variant == 1, four_over_six = variant == 2;
        if (four_over_six && (r == GemmRecipe::kNvfp4PerToken || !is_nvfp4(r))) continue;
        GemmProblem ep = four_over_six ? exact_four_over_six_problem(r, p, 32, 48, 4096, seed++)
                                       : exact_problem(r, p, 32, 48, 4096, seed++);
        ep.d_dtype = LOWP_DTYPE_FLOAT32;
        ep.bias = epilogue ? (is_nvfp4(r) ? Bias::kF32 : Bias::kBf16) : Bias::kNone;
        ep.accumulate = epilogue;
        if (r == GemmRecipe::kFp8PerToken && p == Product::kDgrad) ep.b_opt.fp8_dtype = LOWP_DTYPE_E5M2;
        SCOPED_TRACE(ep.describe());
        HostGemm g = make_gemm(ep);
        make_epilogue_exact(g);
        std::vector<uint8_t> d = g.d_init;
        ASSERT_EQ(run_host_gemm(g, d, ep.d_dtype), LOWP_SUCCESS) << lowp_get_last_error();
        const Fp64Products prod = fp64_products(g.xa, g.xb, ep.m, ep.n, ep.k);
        const std::vector<float> got = d_values_of(d, ep.d_dtype), old = d_values_of(g.d_init, ep.d_dtype);
        const std::vector<float> bias = epilogue ? d_values_of(g.bias, ep.bias_dtype()) : std::vector<float>(ep.n, 0.0f);
        int64_t mismatches = 0;
        for (int64_t i = 0; i < ep.m; ++i)
          for (int64_t j = 0; j < ep.n; ++j) {
            const double sum = prod.sum[i * ep.n + j];
            volatile float want = static_cast<float>(sum);
            if (static_cast<double>(want) != sum && mismatches++ == 0) ADD_FAILURE() << "sum " << sum << " is not exact in fp32";
            // The outer scales by hand: 6E = A = 2688, or 1536 with 4over6 (E = 256).
            const float a = four_over_six ? 1536.0f : 2688.0f, inv = 1.0f / (a * a);
            if (is_nvfp4_per_row(r)) want = inv * (a * (a * want));
            if (r == GemmRecipe::kNvfp4PerTensor) want = ((a * a) * inv) * want;
            want = want + bias[j];
            if (epilogue) want = old[i * ep.n + j] + want;
            if (got[i * ep.n + j] != want && mismatches++ == 0)
              ADD_FAILURE() << "[" << i << "][" << j << "] got " << got[i * ep.n + j] << ", exact " << want;
          }
        EXPECT_EQ(mismatches, 0);
        ++cases;
      }
  std::printf("[gemm cpu exact premise] %d cases\n", cases);
}

// Same codes and block scales: per-token with every outer amax 1 gives (1/2688^2) * (1 * (1 * acc)),
// per-tensor with amax 1 gives ((1 * 1) * (1/2688^2)) * acc: equal bit for bit. And a swizzled
// copy of the scales gives the compact result bit for bit.
TEST(GemmCpuReference, SeedIdentities) {
  GemmProblem p;
  p.recipe = GemmRecipe::kNvfp4PerTensor;
  p.m = 40, p.n = 24, p.k = 96;
  p.d_dtype = LOWP_DTYPE_FLOAT32;
  HostGemm g = make_gemm(p);
  std::vector<uint8_t> tensor_d(g.d_bytes()), token_d(g.d_bytes()), swizzled_d(g.d_bytes());
  g.a.amax[0] = {1.0f};
  g.b.amax[0] = {1.0f};
  ASSERT_EQ(run_host_gemm(g, tensor_d, p.d_dtype), LOWP_SUCCESS) << lowp_get_last_error();
  HostGemm t = g;
  t.a.scaling = t.b.scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
  t.a.amax[0].assign(p.m, 1.0f);
  t.b.amax[0].assign(p.n, 1.0f);
  ASSERT_EQ(run_host_gemm(t, token_d, p.d_dtype), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_TRUE(bytes_equal(token_d, tensor_d, p.m, p.n, "per-token amax 1 vs per-tensor amax 1", 4));

  swizzle_scales(g.a);
  swizzle_scales(g.b);
  ASSERT_EQ(run_host_gemm(g, swizzled_d, p.d_dtype), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_TRUE(bytes_equal(swizzled_d, tensor_d, p.m, p.n, "swizzled vs compact", 4));
}

}  // namespace
