// lowp_gemm on the CUDA backend (FP8: cuBLASLt; NVFP4: nvfp4_gemm) against the CPU reference,
// operands quantized by lowp_quantize on the CPU (row-scaled and 4over6 NVFP4 operands among them):
// numerics §8's bound on every recipe x product x
// output dtype x bias x accumulate, fuzzed shapes and adversarial scales, bit for bit where every
// partial sum is exact in fp32, the seed identities, CUDA-graph capture, and device-side errors.
// Each test prints its number of cases and violations.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "gemm_gpu.h"

namespace lowp_test {
namespace {

constexpr GemmRecipe kFp8Recipes[] = {GemmRecipe::kFp8Delayed, GemmRecipe::kFp8Current, GemmRecipe::kFp8PerToken};
constexpr GemmRecipe kNvfp4Recipes[] = {GemmRecipe::kNvfp4PerTensor, GemmRecipe::kNvfp4PerToken,
                                        GemmRecipe::kNvfp4RowScaled};

// Runs every problem against the reference and expects no violation; NVFP4 problems run with the
// workspace (two-stage kernel) and without (fused or simple kernel).
void expect_within_bound(const char* test, const std::vector<GemmProblem>& problems) {
  Tally total;
  int64_t cases = 0;
  for (const GemmProblem& p : problems) {
    HostGemm g = make_gemm(p);
    total.add(check_device_against_reference(g));
    ++cases;
    if (is_nvfp4(p.recipe)) {
      total.add(check_device_against_reference(g, true));
      ++cases;
    }
  }
  print_tally(test, cases, total);
  EXPECT_EQ(total.violations, 0) << total.first;
}

TEST(GemmGpu, EveryRecipeProductOutputBiasAccumulate) {
  LOWP_REQUIRE_GPU();
  uint64_t seed = 1;
  std::vector<GemmProblem> problems = matrix_problems(80, 96, 208, 2.0, 0.05, seed);
  // The recipes' defaults and layouts: RHT on both wgrad copies (gradient with SR), 2D weights,
  // swizzled scales, E5M2 operands on either side.
  for (GemmRecipe r : kNvfp4Recipes) {
    GemmProblem g;
    g.recipe = r, g.product = Product::kWgrad, g.m = 96, g.n = 64, g.k = 256, g.seed = seed++;
    g.a_opt.rht = g.b_opt.rht = true;
    g.a_opt.sr = true;
    problems.push_back(g);
    g.a_opt.layout = g.b_opt.layout = LOWP_SCALE_LAYOUT_SWIZZLED, g.d_dtype = LOWP_DTYPE_FLOAT32, g.seed = seed++;
    problems.push_back(g);
  }
  for (Product p : {Product::kFprop, Product::kDgrad}) {
    GemmProblem g;
    g.recipe = GemmRecipe::kNvfp4PerTensor, g.product = p, g.m = 48, g.n = 80, g.k = 160, g.seed = seed++;
    g.b_opt.block_2d = true;
    problems.push_back(g);
  }
  // 4over6 operands (per-tensor 1D and 2D, row-scaled): E 448 or 256 on either side, so the
  // denominator 1 / (6E_a * 6E_b) takes every form.
  for (GemmRecipe r : {GemmRecipe::kNvfp4PerTensor, GemmRecipe::kNvfp4RowScaled})
    for (Product p : kAllProducts)
      for (int e = 0; e < 3; ++e) {
        GemmProblem g;
        g.recipe = r, g.product = p, g.m = 80, g.n = 48, g.k = 208, g.seed = seed++;
        g.a_opt.four_over_six = g.b_opt.four_over_six = true;
        g.a_opt.four_over_six_scale_max = e == 1 ? 448.0f : 256.0f;
        g.b_opt.four_over_six_scale_max = e == 2 ? 448.0f : 256.0f;
        g.b_opt.block_2d = r == GemmRecipe::kNvfp4PerTensor && p == Product::kFprop;
        g.d_dtype = e == 0 ? LOWP_DTYPE_FLOAT32 : LOWP_DTYPE_BFLOAT16;
        g.bias = e == 0 ? Bias::kF32 : Bias::kNone;
        problems.push_back(g);
      }
  for (GemmRecipe r : kFp8Recipes) {
    GemmProblem g;
    g.recipe = r, g.product = Product::kDgrad, g.m = 48, g.n = 80, g.k = 160, g.seed = seed++;
    g.a_opt.fp8_dtype = LOWP_DTYPE_E5M2;
    problems.push_back(g);
    g.a_opt.fp8_dtype = LOWP_DTYPE_E4M3, g.b_opt.fp8_dtype = LOWP_DTYPE_E5M2, g.product = Product::kWgrad;
    g.bias = Bias::kBf16, g.seed = seed++;
    problems.push_back(g);
  }
  expect_within_bound("matrix", problems);
}

TEST(GemmGpu, FuzzedShapes) {
  LOWP_REQUIRE_GPU();
  struct Shape {
    int64_t m, n, k;
  };
  std::vector<Shape> shapes = {{1, 16, 16},    {1, 1, 16},     {17, 1, 32},    {3, 48, 16},   {1, 80, 144},
                               {130, 70, 208}, {200, 96, 48},  {64, 33, 64},   {96, 112, 400}, {48, 16, 1040},
                               {300, 272, 96}, {16, 16, 4096}, {257, 129, 16}, {5, 7, 4096}};
  if (!quick_mode()) shapes.push_back({2048, 2048, 4096});
  std::vector<GemmProblem> problems;
  uint64_t seed = 1000;
  for (const Shape& s : shapes)
    for (GemmRecipe r : kAllGemmRecipes)
      for (Product p : kAllProducts) {
        if (!shape_fits(r, p, s.m, s.n, s.k)) continue;
        const bool large = s.m * s.n * s.k > (int64_t{1} << 28);
        if (large && p != Product::kFprop) continue;  // one large product per recipe
        GemmProblem g;
        g.recipe = r, g.product = p, g.m = s.m, g.n = s.n, g.k = s.k, g.seed = seed++;
        g.d_dtype = seed % 2 ? LOWP_DTYPE_FLOAT32 : LOWP_DTYPE_BFLOAT16;
        g.accumulate = g.d_dtype == LOWP_DTYPE_FLOAT32 && seed % 3 == 0;
        g.bias = seed % 4 == 0 ? Bias::kBf16 : (seed % 4 == 1 && is_nvfp4(r)) ? Bias::kF32 : Bias::kNone;
        g.a_opt.layout = seed % 5 == 0 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        problems.push_back(g);
      }
  expect_within_bound("fuzzed shapes", problems);
}

// amax 0, tiny and huge amaxes, outliers that leave subnormal block scales elsewhere, NaN and
// +-inf inputs. FP8 keeps one operand at a normal magnitude so (sa * sb) stays finite: cuBLASLt
// multiplies the scales in an order of its own, so an overflowing product need not give the
// reference's Inf or NaN there.
TEST(GemmGpu, AdversarialScales) {
  LOWP_REQUIRE_GPU();
  struct Adversary {
    Values a, b;
    double scale_a, scale_b;
    bool nvfp4_only;
  };
  const Adversary adversaries[] = {
      {Values::kAllZero, Values::kGaussian, 1.0, 1.0, false},  {Values::kAllZero, Values::kAllZero, 1.0, 1.0, false},
      {Values::kGaussian, Values::kGaussian, 1e-30, 1.0, false}, {Values::kGaussian, Values::kGaussian, 1e30, 1.0, false},
      {Values::kGaussian, Values::kGaussian, 1e-30, 1e-30, true}, {Values::kGaussian, Values::kGaussian, 1e30, 1e30, true},
      {Values::kOutliers, Values::kOutliers, 1.0, 1.0, false},   {Values::kOutliers, Values::kGaussian, 1e-20, 1.0, false},
      {Values::kSpecials, Values::kGaussian, 1.0, 1.0, false},   {Values::kSpecials, Values::kSpecials, 1.0, 1.0, false},
  };
  std::vector<GemmProblem> problems;
  uint64_t seed = 2000;
  for (const Adversary& adv : adversaries)
    for (GemmRecipe r : kAllGemmRecipes)
      for (Product p : {Product::kFprop, Product::kWgrad}) {
        if (adv.nvfp4_only && !is_nvfp4(r)) continue;
        GemmProblem g;
        g.recipe = r, g.product = p, g.m = 64, g.n = 48, g.k = 96, g.seed = seed++;
        g.a_values = adv.a, g.b_values = adv.b, g.scale_a = adv.scale_a, g.scale_b = adv.scale_b;
        g.d_dtype = seed % 2 ? LOWP_DTYPE_FLOAT32 : LOWP_DTYPE_BFLOAT16;
        g.bias = seed % 3 == 0 ? Bias::kBf16 : Bias::kNone;
        problems.push_back(g);
      }
  expect_within_bound("adversarial scales", problems);
}

// Every partial sum exact in fp32 (exact_problem): the device result equals the reference byte
// for byte, whatever the accumulation order; FP8 also with fast accumulation (sums below 2^9
// steps at K = 256).
TEST(GemmGpu, ExactCasesBitForBit) {
  LOWP_REQUIRE_GPU();
  int64_t cases = 0, mismatching = 0;
  std::string first;
  uint64_t seed = 3000;
  auto run = [&](GemmProblem p) {
    HostGemm g = make_gemm(p);
    make_epilogue_exact(g);
    std::vector<uint8_t> want = g.d_init;
    ASSERT_EQ(run_host_gemm(g, want, p.d_dtype), LOWP_SUCCESS) << lowp_get_last_error();
    for (bool no_workspace : {false, true}) {
      if (no_workspace && !is_nvfp4(p.recipe)) continue;
      DeviceGemm dev(g, no_workspace);
      ASSERT_EQ(dev.run(), LOWP_SUCCESS) << p.describe() << ": " << dev.error;
      const ::testing::AssertionResult same =
          bytes_equal(dev.result(), want, p.m, p.n, p.describe().c_str(), dtype_size(p.d_dtype));
      ++cases;
      if (!same && mismatching++ == 0) first = same.message();
    }
  };
  for (GemmRecipe r : kAllGemmRecipes)
    for (Product p : kAllProducts)
      for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32})
        for (int64_t k : {16, 272, 4096}) {
          GemmProblem g = exact_problem(r, p, 48, 64, k, seed++);
          g.d_dtype = dt;
          g.accumulate = dt == LOWP_DTYPE_FLOAT32 && k == 272;
          g.bias = k == 4096 ? (is_nvfp4(r) && dt == LOWP_DTYPE_FLOAT32 ? Bias::kF32 : Bias::kBf16) : Bias::kNone;
          if (!is_nvfp4(r) && p == Product::kDgrad) g.b_opt.fp8_dtype = LOWP_DTYPE_E5M2;
          run(g);
        }
  for (GemmRecipe r : kFp8Recipes) {
    GemmProblem g = exact_problem(r, Product::kFprop, 64, 64, 256, seed++);
    g.fast_accumulation = true;
    run(g);
  }
  // 4over6 at E 256 (outer scales 1536, denominator 1/1536^2).
  for (GemmRecipe r : {GemmRecipe::kNvfp4PerTensor, GemmRecipe::kNvfp4RowScaled})
    for (Product p : kAllProducts) {
      GemmProblem g = exact_four_over_six_problem(r, p, 48, 64, 1120, seed++);
      g.d_dtype = LOWP_DTYPE_FLOAT32;
      g.bias = Bias::kF32;
      g.a_opt.layout = g.b_opt.layout = LOWP_SCALE_LAYOUT_SWIZZLED;
      run(g);
    }
  // Shapes and layouts the fused NVFP4 kernel takes (swizzled scales, K % 32, N % 8), with M, N
  // and K tails across its 128 x 256 x 64 tiles.
  for (GemmRecipe r : kNvfp4Recipes)
    for (Product p : kAllProducts)
      for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32}) {
        GemmProblem g = exact_problem(r, p, 144, 272, 1120, seed++);
        g.d_dtype = dt;
        g.a_opt.layout = g.b_opt.layout = LOWP_SCALE_LAYOUT_SWIZZLED;
        g.accumulate = dt == LOWP_DTYPE_FLOAT32 && seed % 2 == 0;
        g.bias = dt == LOWP_DTYPE_FLOAT32 ? Bias::kF32 : Bias::kNone;
        run(g);
      }
  std::printf("[gemm gpu exact] %lld cases, %lld not bit-identical\n", static_cast<long long>(cases),
              static_cast<long long>(mismatching));
  EXPECT_EQ(mismatching, 0) << first;
}

// On the device, same codes and block scales: per-token with every outer amax 1 == per-tensor
// with amax 1 (alpha = 1/2688^2), and swizzled scales == compact scales, bit for bit.
TEST(GemmGpu, SeedIdentities) {
  LOWP_REQUIRE_GPU();
  int64_t cases = 0, mismatching = 0;
  std::string first;
  auto same = [&](const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, const GemmProblem& p, const char* what) {
    const ::testing::AssertionResult r =
        bytes_equal(x, y, p.m, p.n, (p.describe() + " " + what).c_str(), dtype_size(p.d_dtype));
    ++cases;
    if (!r && mismatching++ == 0) first = r.message();
  };
  uint64_t seed = 4000;
  for (Product p : kAllProducts)
    for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32}) {
      GemmProblem prob;
      prob.recipe = GemmRecipe::kNvfp4PerTensor, prob.product = p, prob.d_dtype = dt;
      prob.m = 144, prob.n = 80, prob.k = 320, prob.seed = seed++;
      HostGemm g = make_gemm(prob);
      for (HostQuantized* h : {&g.a, &g.b})
        for (std::vector<float>& a : h->amax) std::fill(a.begin(), a.end(), 1.0f);
      DeviceGemm tensor_run(g);
      ASSERT_EQ(tensor_run.run(), LOWP_SUCCESS) << tensor_run.error;
      const std::vector<uint8_t> per_tensor = tensor_run.result();

      HostGemm t = g;
      for (HostQuantized* h : {&t.a, &t.b}) {
        h->scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
        for (int c = 0; c < 2; ++c)
          if (!h->data[c].empty()) h->amax[c].assign(static_cast<size_t>(c == 0 ? h->rows : h->cols), 1.0f);
      }
      DeviceGemm token_run(t);
      ASSERT_EQ(token_run.run(), LOWP_SUCCESS) << token_run.error;
      same(token_run.result(), per_tensor, prob, "per-token amax 1 vs per-tensor amax 1");

      swizzle_scales(g.a);
      swizzle_scales(g.b);
      for (bool no_workspace : {false, true}) {
        DeviceGemm swizzled_run(g, no_workspace);
        ASSERT_EQ(swizzled_run.run(), LOWP_SUCCESS) << swizzled_run.error;
        same(swizzled_run.result(), per_tensor, prob, no_workspace ? "swizzled (no workspace) vs compact" : "swizzled vs compact");
      }
    }
  std::printf("[gemm gpu seeds] %lld cases, %lld not bit-identical\n", static_cast<long long>(cases),
              static_cast<long long>(mismatching));
  EXPECT_EQ(mismatching, 0) << first;
}

// A GEMM captured in a CUDA graph and replayed writes the bytes of the eager call.
TEST(GemmGpu, GraphCaptureReplay) {
  LOWP_REQUIRE_GPU();
  int64_t cases = 0;
  cudaStream_t stream;
  LOWP_CUDA_OK(cudaStreamCreate(&stream));
  for (GemmRecipe r : kAllGemmRecipes) {
    GemmProblem p;
    p.recipe = r, p.product = Product::kDgrad, p.m = 128, p.n = 96, p.k = 512, p.bias = Bias::kBf16, p.seed = 5000 + cases;
    HostGemm g = make_gemm(p);
    DeviceGemm dev(g);
    ASSERT_EQ(dev.run(stream), LOWP_SUCCESS) << p.describe() << ": " << dev.error;  // eager, warms the caches
    const std::vector<uint8_t> eager = dev.result();
    poison_device(dev.d.get(), dev.d.bytes());
    cudaGraph_t graph;
    LOWP_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const lowp_status s = dev.run(stream);
    LOWP_CUDA_OK(cudaStreamEndCapture(stream, &graph));
    ASSERT_EQ(s, LOWP_SUCCESS) << p.describe() << " (captured): " << dev.error;
    cudaGraphExec_t exec;
    LOWP_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    EXPECT_TRUE(untouched(dev.result().data(), dev.d.bytes(), "D before the replay"));
    LOWP_CUDA_OK(cudaGraphLaunch(exec, stream));
    LOWP_CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_TRUE(bytes_equal(dev.result(), eager, p.m, p.n, p.describe().c_str(), dtype_size(p.d_dtype)));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    ++cases;
  }
  cudaStreamDestroy(stream);
  std::printf("[gemm gpu graph] %lld cases\n", static_cast<long long>(cases));
}

// Errors only the device path can meet leave D untouched: too little workspace, an FP8 operand
// or D not 16-byte aligned, a host bias with device operands.
TEST(GemmGpu, DeviceErrorsWriteNothing) {
  LOWP_REQUIRE_GPU();
  GemmProblem p;
  p.recipe = GemmRecipe::kFp8Current, p.m = 64, p.n = 64, p.k = 128, p.bias = Bias::kBf16;
  HostGemm g = make_gemm(p);
  DeviceGemm dev(g);
  ASSERT_EQ(dev.run(), LOWP_SUCCESS) << dev.error;  // sizes the workspace
  poison_device(dev.d.get(), dev.d.bytes());
  lowp_quantized_tensor qa = dev.a.view(), qb = dev.b.view();
  lowp_tensor dt = dev.d_view();
  lowp_gemm_config cfg = dev.config();
  int64_t cases = 0;
  auto expect_error = [&](lowp_status got, const char* mentions, const char* what) {
    EXPECT_EQ(got, LOWP_ERROR_INVALID_ARGUMENT) << what << ": " << lowp_get_last_error();
    EXPECT_NE(std::string(lowp_get_last_error()).find(mentions), std::string::npos) << what << ": " << lowp_get_last_error();
    EXPECT_TRUE(untouched(dev.result().data(), dev.d.bytes(), what));
    ++cases;
  };
  if (dev.workspace_bytes > 0)
    expect_error(lowp_gemm(&qa, LOWP_ROWWISE, &qb, LOWP_ROWWISE, &dt, &cfg, dev.workspace->get(), dev.workspace_bytes - 1,
                           nullptr),
                 "workspace_bytes", "workspace one byte short");
  else
    std::printf("[gemm gpu errors] cuBLASLt asks no workspace for %s: short-workspace case not run\n", p.describe().c_str());
  DeviceBuffer shifted(dev.d.bytes(), 8);
  lowp_tensor dt_shifted{shifted.get(), p.d_dtype, p.m, p.n};
  expect_error(lowp_gemm(&qa, LOWP_ROWWISE, &qb, LOWP_ROWWISE, &dt_shifted, &cfg, dev.workspace->get(),
                         dev.workspace_bytes, nullptr),
               "16 bytes", "FP8 D 8 bytes off");
  EXPECT_TRUE(untouched(shifted.download().data(), shifted.bytes(), "shifted D"));
  lowp_gemm_config host_bias = cfg;
  host_bias.bias = g.bias.data();
  expect_error(lowp_gemm(&qa, LOWP_ROWWISE, &qb, LOWP_ROWWISE, &dt, &host_bias, dev.workspace->get(), dev.workspace_bytes,
                         nullptr),
               "memory space", "host bias with device operands");
  std::printf("[gemm gpu errors] %lld cases\n", static_cast<long long>(cases));
}

}  // namespace
}  // namespace lowp_test
