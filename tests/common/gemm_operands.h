// GEMM test operands: tensors quantized on the host by lowp_quantize (the recipes' real outputs),
// the linear-layer products, an independent dequantize-then-multiply in fp64 (through
// lowp_dequantize), and the numerics §8 accuracy check that reports its first violation.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/fuzz_values.h"
#include "lowp/gemm.h"

namespace lowp_test {

enum class GemmRecipe { kFp8Delayed, kFp8Current, kFp8PerToken, kNvfp4PerTensor, kNvfp4PerToken, kNvfp4RowScaled };
inline constexpr GemmRecipe kAllGemmRecipes[] = {GemmRecipe::kFp8Delayed,     GemmRecipe::kFp8Current,
                                                 GemmRecipe::kFp8PerToken,    GemmRecipe::kNvfp4PerTensor,
                                                 GemmRecipe::kNvfp4PerToken, GemmRecipe::kNvfp4RowScaled};
inline const char* recipe_name(GemmRecipe r) {
  static const char* names[] = {"fp8_delayed",     "fp8_current",     "fp8_per_token",
                                "nvfp4_per_tensor", "nvfp4_per_token", "nvfp4_row_scaled"};
  return names[static_cast<int>(r)];
}
inline bool is_nvfp4(GemmRecipe r) {
  return r == GemmRecipe::kNvfp4PerTensor || r == GemmRecipe::kNvfp4PerToken || r == GemmRecipe::kNvfp4RowScaled;
}
// The NVFP4 recipes with one outer amax per row of a copy.
inline bool is_nvfp4_per_row(GemmRecipe r) { return r == GemmRecipe::kNvfp4PerToken || r == GemmRecipe::kNvfp4RowScaled; }

// The three products of y = x W^T: which copy of each operand they read.
enum class Product { kFprop, kDgrad, kWgrad };
inline constexpr Product kAllProducts[] = {Product::kFprop, Product::kDgrad, Product::kWgrad};
inline const char* product_name(Product p) {
  static const char* names[] = {"fprop", "dgrad", "wgrad"};
  return names[static_cast<int>(p)];
}
inline lowp_orientation a_copy_of(Product p) { return p == Product::kWgrad ? LOWP_COLUMNWISE : LOWP_ROWWISE; }
inline lowp_orientation b_copy_of(Product p) { return p == Product::kFprop ? LOWP_ROWWISE : LOWP_COLUMNWISE; }

// Whether M x N x K suits a product and recipe: the tensors behind a columnwise copy have the
// copy's rows as their cols, and every NVFP4 tensor needs cols % 16 == 0; FP8 GEMMs need
// K % 16 == 0 and N % 16 == 0.
inline bool shape_fits(GemmRecipe r, Product p, int64_t m, int64_t n, int64_t k) {
  if (k % 16 != 0) return false;
  if (!is_nvfp4(r)) return n % 16 == 0;
  return (a_copy_of(p) == LOWP_ROWWISE || m % 16 == 0) && (b_copy_of(p) == LOWP_ROWWISE || n % 16 == 0);
}

struct QuantOptions {
  lowp_dtype fp8_dtype = LOWP_DTYPE_E4M3;
  bool rht = false;       // NVFP4: the columnwise copy in the RHT domain
  bool block_2d = false;  // NVFP4 per-tensor weights
  bool sr = false;        // NVFP4 stochastic rounding
  bool power_of_two_scale = false;  // FP8 current / per-token
  lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT;
  float delayed_scale = 0.5f;       // FP8 DELAYED: the scale the cast uses
  const float* given_amax = nullptr;  // NVFP4: amax_given with these values (per copy row, or 1)
  bool four_over_six = false;         // NVFP4 per-tensor, row-scaled: 4over6 (numerics §5c)
  float four_over_six_scale_max = 448.0f;
};

inline const uint64_t kGemmRngState[2] = {0x9E3779B97F4A7C15ull, 7};

// One quantized tensor in host memory; index 0 rowwise, 1 columnwise (empty: copy not made).
struct HostQuantized {
  lowp_dtype dtype = LOWP_DTYPE_E4M3;
  lowp_scaling scaling = LOWP_SCALING_CURRENT;
  lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> data[2], scales[2];  // scales: NVFP4 block scales or FP8 per-token scale_inv
  std::vector<float> amax[2];
  float scale = 1.0f, scale_inv = 1.0f, tensor_amax = 0.0f;  // FP8 per-tensor
  float outer_max = 0.0f;  // NVFP4: q->nvfp4_outer_max as lowp_quantize recorded it (0: 2688)

  static void* ptr(std::vector<uint8_t>& v) { return v.empty() ? nullptr : v.data(); }
  static float* ptr(std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }
  // The view lowp_gemm reads (valid while this object lives and is not moved).
  lowp_quantized_tensor view() {
    lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = dtype;
    q.scaling = scaling;
    q.scale_layout = layout;
    q.rows = rows;
    q.cols = cols;
    q.rowwise = {ptr(data[0]), ptr(scales[0]), ptr(amax[0])};
    q.columnwise = {ptr(data[1]), ptr(scales[1]), ptr(amax[1])};
    const bool per_tensor_fp8 = scaling == LOWP_SCALING_DELAYED || scaling == LOWP_SCALING_CURRENT;
    q.scale = per_tensor_fp8 ? &scale : nullptr;
    q.scale_inv = per_tensor_fp8 ? &scale_inv : nullptr;
    q.amax = per_tensor_fp8 ? &tensor_amax : nullptr;
    q.nvfp4_outer_max = outer_max;
    return q;
  }
};

// x (rows x cols fp32) quantized by lowp_quantize (CPU) with recipe r into the requested copies.
inline HostQuantized quantize_host(const std::vector<float>& x, int64_t rows, int64_t cols, GemmRecipe r,
                                   const QuantOptions& o, bool want_row, bool want_col) {
  HostQuantized h;
  h.rows = rows;
  h.cols = cols;
  h.layout = o.layout;
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  switch (r) {
    case GemmRecipe::kFp8Delayed: h.scaling = LOWP_SCALING_DELAYED; break;
    case GemmRecipe::kFp8Current: h.scaling = LOWP_SCALING_CURRENT; break;
    case GemmRecipe::kFp8PerToken: h.scaling = LOWP_SCALING_PER_TOKEN; break;
    case GemmRecipe::kNvfp4PerTensor: h.scaling = LOWP_SCALING_NVFP4_PER_TENSOR; break;
    case GemmRecipe::kNvfp4PerToken: h.scaling = LOWP_SCALING_NVFP4_PER_TOKEN; break;
    case GemmRecipe::kNvfp4RowScaled: h.scaling = LOWP_SCALING_NVFP4_ROW_SCALED; break;
  }
  h.dtype = is_nvfp4(r) ? LOWP_DTYPE_E2M1 : o.fp8_dtype;
  if (is_nvfp4(r)) {
    cfg.rht = o.rht;
    cfg.block_2d = o.block_2d;
    cfg.stochastic_rounding = o.sr;
    cfg.rng_state = o.sr ? kGemmRngState : nullptr;
    cfg.amax_given = o.given_amax != nullptr;
    cfg.four_over_six = o.four_over_six;
    cfg.four_over_six_scale_max = o.four_over_six_scale_max;
  } else {
    cfg.power_of_two_scale = o.power_of_two_scale && r != GemmRecipe::kFp8Delayed;
    h.scale = o.delayed_scale;
  }
  lowp_quantized_sizes s{};
  EXPECT_EQ(lowp_quantized_sizes_query(h.dtype, h.scaling, rows, cols, &s), LOWP_SUCCESS) << lowp_get_last_error();
  const bool want[2] = {want_row, want_col};
  for (int c = 0; c < 2; ++c) {
    if (!want[c]) continue;
    h.data[c].assign(s.data_bytes[c], 0);
    h.scales[c].assign(s.scale_inv_bytes[c], 0);
    h.amax[c].assign(s.amax_bytes[c] / 4, 0.0f);
    if (o.given_amax != nullptr) std::copy(o.given_amax, o.given_amax + h.amax[c].size(), h.amax[c].begin());
  }
  lowp_tensor t{const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, rows, cols};
  lowp_quantized_tensor q = h.view();
  EXPECT_EQ(lowp_quantize(&t, &q, &cfg, nullptr), LOWP_SUCCESS) << recipe_name(r) << ": " << lowp_get_last_error();
  h.outer_max = q.nvfp4_outer_max;
  return h;
}

enum class Bias { kNone, kBf16, kF32 };

// What an operand's unquantized values look like.
enum class Values {
  kGaussian,       // N(0, scale^2)
  kSmallIntegers,  // {-1, 0, 1} * scale: FP8 codes exact with a power-of-two scale
  kNvfp4Grid,      // E2M1 values times 2^e (e in -1..1) per 16-block along K, each block holding
                   // +-6 * 2^e: with amax 2688 every code and block scale is exact
  kAllZero,        // amax 0
  kOutliers,       // N(0, 0.1^2) * scale with one value 1e4 * scale per row: tiny (subnormal)
                   // block scales elsewhere
  kSpecials,       // Gaussian with some NaN, +-inf
};

// Rewrites an NVFP4 tensor's compact block scales (every copy it has) in the swizzled layout
// with lowp_nvfp4_swizzle_scales (CPU).
inline void swizzle_scales(HostQuantized& h) {
  for (int c = 0; c < 2; ++c) {
    if (h.data[c].empty()) continue;
    const int64_t rows = c == 0 ? h.rows : h.cols, blocks = (c == 0 ? h.cols : h.rows) / 16;
    std::vector<uint8_t> sw(h.scales[c].size());
    EXPECT_EQ(lowp_nvfp4_swizzle_scales(h.scales[c].data(), sw.data(), rows, blocks, nullptr), LOWP_SUCCESS)
        << lowp_get_last_error();
    h.scales[c] = sw;
  }
  h.layout = LOWP_SCALE_LAYOUT_SWIZZLED;
}

// A GEMM problem: recipe, product, shape and options, and the host operands it quantizes.
struct GemmProblem {
  GemmRecipe recipe = GemmRecipe::kFp8Current;
  Product product = Product::kFprop;
  int64_t m = 32, n = 32, k = 32;
  lowp_dtype d_dtype = LOWP_DTYPE_BFLOAT16;
  Bias bias = Bias::kNone;
  bool accumulate = false;
  bool fast_accumulation = false;
  QuantOptions a_opt, b_opt;
  double scale_a = 1.0, scale_b = 1.0;  // input magnitudes
  Values a_values = Values::kGaussian, b_values = Values::kGaussian;
  uint64_t seed = 1;

  bool has_bias() const { return bias != Bias::kNone; }
  lowp_dtype bias_dtype() const { return bias == Bias::kF32 ? LOWP_DTYPE_FLOAT32 : LOWP_DTYPE_BFLOAT16; }
  std::string describe() const {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s %s %lldx%lldx%lld d=%s bias=%s acc=%d fast=%d rht=%d/%d layout=%d/%d 4over6=%g/%g seed=%llu",
                  recipe_name(recipe), product_name(product), static_cast<long long>(m), static_cast<long long>(n),
                  static_cast<long long>(k), d_dtype == LOWP_DTYPE_FLOAT32 ? "f32" : "bf16",
                  !has_bias() ? "none" : bias_dtype() == LOWP_DTYPE_FLOAT32 ? "f32" : "bf16", accumulate,
                  fast_accumulation, a_opt.rht, b_opt.rht, a_opt.layout, b_opt.layout,
                  a_opt.four_over_six ? a_opt.four_over_six_scale_max : 0.0, b_opt.four_over_six ? b_opt.four_over_six_scale_max : 0.0,
                  static_cast<unsigned long long>(seed));
    return buf;
  }
};

// Every recipe x product x output dtype x bias x accumulate (accumulate into FLOAT32 only; fp32
// bias with NVFP4 only) at one shape, seeds counting up from `seed`.
inline std::vector<GemmProblem> matrix_problems(int64_t m, int64_t n, int64_t k, double scale_a, double scale_b,
                                                uint64_t& seed) {
  std::vector<GemmProblem> problems;
  for (GemmRecipe r : kAllGemmRecipes)
    for (Product p : kAllProducts)
      for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32})
        for (Bias bias : {Bias::kNone, Bias::kBf16, Bias::kF32})
          for (bool acc : {false, true}) {
            if ((acc && dt != LOWP_DTYPE_FLOAT32) || (bias == Bias::kF32 && !is_nvfp4(r))) continue;
            GemmProblem g;
            g.recipe = r, g.product = p, g.d_dtype = dt, g.bias = bias, g.accumulate = acc, g.seed = seed++;
            g.m = m, g.n = n, g.k = k;
            g.scale_a = scale_a, g.scale_b = scale_b;
            problems.push_back(g);
          }
  return problems;
}

inline std::vector<float> gaussian(int64_t n, double scale, Rng& rng) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = static_cast<float>(rng.gaussian() * scale);
  return v;
}

// Values of the copy (copy_rows x k, row-major), by kind.
inline std::vector<float> copy_values(Values v, int64_t copy_rows, int64_t k, double scale, Rng& rng) {
  static const float kGrid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  std::vector<float> x = gaussian(copy_rows * k, scale, rng);
  for (int64_t r = 0; r < copy_rows; ++r) {
    float block_exp = 1.0f;
    for (int64_t c = 0; c < k; ++c) {
      float& f = x[r * k + c];
      switch (v) {
        case Values::kGaussian: break;
        case Values::kSmallIntegers: f = static_cast<float>((static_cast<int>(rng.below(3)) - 1) * scale); break;
        case Values::kNvfp4Grid: {
          if (c % 16 == 0) block_exp = std::ldexp(1.0f, static_cast<int>(rng.below(3)) - 1);
          const float g = c % 16 == r % 16 ? 6.0f : kGrid[rng.below(8)];
          f = (rng.below(2) ? -g : g) * block_exp;
          break;
        }
        case Values::kAllZero: f = 0.0f; break;
        case Values::kOutliers: f = c == r % k ? static_cast<float>(1e4 * scale) : 0.1f * f; break;
        case Values::kSpecials: {
          const uint32_t u = rng.below(64);
          f = u == 0 ? NAN : u == 1 ? INFINITY : u == 2 ? -INFINITY : f;
          break;
        }
      }
    }
  }
  return x;
}

// The tensor behind a copy: the copy itself (rowwise) or its transpose (columnwise).
inline std::vector<float> tensor_of_copy(const std::vector<float>& c, int64_t copy_rows, int64_t k, lowp_orientation o) {
  if (o == LOWP_ROWWISE) return c;
  std::vector<float> t(c.size());
  for (int64_t r = 0; r < copy_rows; ++r)
    for (int64_t kk = 0; kk < k; ++kk) t[kk * copy_rows + r] = c[r * k + kk];
  return t;
}

// Values of a bf16 or fp32 buffer as floats.
inline std::vector<float> d_values_of(const std::vector<uint8_t>& d, lowp_dtype dt) {
  std::vector<float> v(d.size() / dtype_size(dt));
  for (size_t i = 0; i < v.size(); ++i) v[i] = load_float(d.data(), dt, i);
  return v;
}

// The operands, bias and initial D of a problem, all in host memory.
struct HostGemm {
  GemmProblem p;
  HostQuantized a, b;
  std::vector<float> xa, xb;    // the unquantized copies: M x K and N x K
  std::vector<uint8_t> bias;    // N values of the bias dtype
  std::vector<uint8_t> d_init;  // M x N values of d_dtype (D_old with accumulate, else poison)

  size_t d_bytes() const { return static_cast<size_t>(p.m * p.n) * dtype_size(p.d_dtype); }
  lowp_gemm_config config(const void* bias_ptr) const {
    lowp_gemm_config c;
    lowp_gemm_config_default(&c);
    c.bias = p.has_bias() ? bias_ptr : nullptr;
    c.bias_dtype = p.bias_dtype();
    c.accumulate = p.accumulate;
    c.fast_accumulation = p.fast_accumulation;
    c.a_columnwise_rht = p.a_opt.rht;
    c.b_columnwise_rht = p.b_opt.rht;
    return c;
  }
};

// The tensor behind a copy of `copy_rows` x k values `v` (copy coordinates), quantized into that copy.
inline HostQuantized quantize_operand(GemmRecipe r, const QuantOptions& o, lowp_orientation copy, int64_t copy_rows,
                                      int64_t k, const std::vector<float>& v) {
  const bool row = copy == LOWP_ROWWISE;
  return quantize_host(tensor_of_copy(v, copy_rows, k, copy), row ? copy_rows : k, row ? k : copy_rows, r, o, row, !row);
}

inline HostGemm make_gemm(const GemmProblem& p) {
  HostGemm g;
  g.p = p;
  Rng rng(p.seed * 0x2545F4914F6CDD1Dull + 17);
  g.xa = copy_values(p.a_values, p.m, p.k, p.scale_a, rng);
  g.xb = copy_values(p.b_values, p.n, p.k, p.scale_b, rng);
  g.a = quantize_operand(p.recipe, p.a_opt, a_copy_of(p.product), p.m, p.k, g.xa);
  g.b = quantize_operand(p.recipe, p.b_opt, b_copy_of(p.product), p.n, p.k, g.xb);
  if (p.has_bias()) g.bias = encode(gaussian(p.n, 2.0, rng), p.bias_dtype());
  g.d_init = p.accumulate ? encode(gaussian(p.m * p.n, 4.0, rng), p.d_dtype)
                          : std::vector<uint8_t>(g.d_bytes(), 0xA5);
  return g;
}

inline std::vector<float> amax_2688(int64_t n) { return std::vector<float>(static_cast<size_t>(n), 2688.0f); }

// A problem whose fp32 partial sums are all exact (numerics §8's exact cases): FP8 operands
// {-1, 0, 1} with power-of-two scales (K <= 4096: |sums| <= 2^12 * 2^16), NVFP4 operands on the
// E2M1 grid times 2^-1..2^1 with outer amax 2688 (every code and block scale exact, alpha = 1;
// |products| <= 144 in steps of 2^-4, so K <= 4096 keeps every sum within 24 bits). Bias and
// D_old are small multiples of 1/4, so FP8 epilogues in any order stay exact too.
inline GemmProblem exact_problem(GemmRecipe r, Product p, int64_t m, int64_t n, int64_t k, uint64_t seed) {
  static const std::vector<float> kAmax = amax_2688(1 << 16);
  GemmProblem g;
  g.recipe = r;
  g.product = p;
  g.m = m, g.n = n, g.k = k;
  g.seed = seed;
  g.a_values = g.b_values = is_nvfp4(r) ? Values::kNvfp4Grid : Values::kSmallIntegers;
  for (QuantOptions* o : {&g.a_opt, &g.b_opt}) {
    o->power_of_two_scale = true;
    o->delayed_scale = 64.0f;
    o->given_amax = is_nvfp4(r) ? kAmax.data() : nullptr;
  }
  return g;
}

// exact_problem with 4over6 at E = 256 on NVFP4 operands (per-tensor, row-scaled), amaxes given as
// 1536 = 6E: S_enc = 1 again, map-6 encodes every value exactly, so every block keeps it (map-4
// at best ties), and the outer scales are 1536 with denominator 1/1536^2.
inline GemmProblem exact_four_over_six_problem(GemmRecipe r, Product p, int64_t m, int64_t n, int64_t k, uint64_t seed) {
  static const std::vector<float> kAmax(static_cast<size_t>(1) << 16, 1536.0f);
  GemmProblem g = exact_problem(r, p, m, n, k, seed);
  for (QuantOptions* o : {&g.a_opt, &g.b_opt}) {
    o->given_amax = kAmax.data();
    o->four_over_six = true;
    o->four_over_six_scale_max = 256.0f;
  }
  return g;
}

// Rounds bias and D_old of an exact problem to multiples of 1/4 in [-16, 16].
inline void make_epilogue_exact(HostGemm& g) {
  auto quarter = [](std::vector<uint8_t>& bytes, lowp_dtype dt) {
    std::vector<float> v = d_values_of(bytes, dt);
    for (float& f : v) f = std::round(std::fmax(-16.0f, std::fmin(16.0f, f)) * 4.0f) / 4.0f;
    bytes = encode(v, dt);
  };
  if (g.p.has_bias()) quarter(g.bias, g.p.bias_dtype());
  if (g.p.accumulate) quarter(g.d_init, g.p.d_dtype);
}

// lowp_gemm on the host operands into a copy of d_init (status checked by the caller).
inline lowp_status run_host_gemm(HostGemm& g, std::vector<uint8_t>& d, lowp_dtype d_dtype) {
  lowp_quantized_tensor a = g.a.view(), b = g.b.view();
  lowp_tensor dt{d.data(), d_dtype, g.p.m, g.p.n};
  const lowp_gemm_config cfg = g.config(g.bias.data());
  return lowp_gemm(&a, a_copy_of(g.p.product), &b, b_copy_of(g.p.product), &dt, &cfg, nullptr, 0, nullptr);
}

// The chosen copy of an operand dequantized by lowp_dequantize (CPU): copy_rows x k floats.
inline std::vector<float> dequantized(HostQuantized& h, lowp_orientation copy) {
  const bool row = copy == LOWP_ROWWISE;
  std::vector<float> out(static_cast<size_t>(h.rows * h.cols));
  lowp_quantized_tensor q = h.view();
  lowp_tensor t{out.data(), LOWP_DTYPE_FLOAT32, row ? h.rows : h.cols, row ? h.cols : h.rows};
  EXPECT_EQ(lowp_dequantize(&q, copy, &t, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  return out;
}

// For every (i, j): sum_k a[i][k] * b[j][k] and sum_k |a[i][k] * b[j][k]| in fp64, over threads.
struct Fp64Products {
  std::vector<double> sum, abs_sum;
};
inline Fp64Products fp64_products(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n,
                                  int64_t k) {
  Fp64Products r{std::vector<double>(static_cast<size_t>(m * n)), std::vector<double>(static_cast<size_t>(m * n))};
  const int64_t threads = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), m));
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int64_t i = t; i < m; i += threads)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0.0, sa = 0.0;
          for (int64_t kk = 0; kk < k; ++kk) {
            const double v = static_cast<double>(a[i * k + kk]) * static_cast<double>(b[j * k + kk]);
            s += v;
            sa += std::fabs(v);
          }
          r.sum[i * n + j] = s;
          r.abs_sum[i * n + j] = sa;
        }
    });
  }
  for (auto& th : pool) th.join();
  return r;
}

// The spacing of floats of `dt` (bf16 or fp32) at magnitude |v| (normal range; subnormals use
// the smallest spacing).
inline double ulp_of(double v, lowp_dtype dt) {
  const int man = dt == LOWP_DTYPE_FLOAT32 ? 23 : 7;
  const double a = std::fabs(v);
  if (!(a > 0.0) || !std::isfinite(a)) return std::ldexp(1.0, -126 - man);
  int e;
  std::frexp(a, &e);
  return std::ldexp(1.0, std::max(e - 1, -126) - man);
}

// Tally of an accuracy comparison: elements checked, violations, elements without a finite
// bound (an outer scale or a dequantized value overflowing fp32), and the first violation.
struct Tally {
  int64_t checked = 0, violations = 0, unbounded = 0;
  double worst = 0.0;  // largest |d - r| / sum_k |a_k b_k| |scales| seen (finite cases)
  std::string first;
  void add(const Tally& t) {
    checked += t.checked;
    violations += t.violations;
    unbounded += t.unbounded;
    worst = std::max(worst, t.worst);
    if (first.empty()) first = t.first;
  }
};

// Accuracy contract (numerics §8): |d - r| <= 2^-22 * K * sum_k |a_k b_k| * |scales| + one ulp
// of D's dtype, with r the reference before D's rounding. NaN in r needs NaN in d; an infinite
// r needs the same infinity. `slack[i*n+j]` widens the bound where later fp32 steps (bias,
// accumulate) may round a slightly different sum the other way.
// The relative error the sums may carry on the device (numerics §8): 2^-22 K for fp32
// accumulation; FP8 on Hopper adds 2^-8, since the FP8 tensor cores keep partial sums at reduced
// precision between cuBLASLt's promotions to fp32 (docs/gemm.md gives the measured worst).
inline double device_error_factor(GemmRecipe r, int64_t k) {
  const double fp32_sums = std::ldexp(static_cast<double>(k), -22);
  return is_nvfp4(r) ? fp32_sums : fp32_sums + std::ldexp(1.0, -8);
}

inline Tally check_bound(const std::vector<float>& d, const std::vector<float>& r, const std::vector<double>& abs_sum,
                         const std::vector<double>& slack, int64_t m, int64_t n, double error_factor,
                         lowp_dtype d_dtype, const std::string& what) {
  Tally t;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const size_t at = static_cast<size_t>(i * n + j);
      const double bound = error_factor * abs_sum[at] + slack[at];
      const float got = d[at], want = r[at];
      ++t.checked;
      bool ok;
      if (std::isnan(want)) {
        ok = std::isnan(got);
      } else if (std::isinf(want)) {
        ok = got == want;
      } else if (!std::isfinite(bound)) {
        ++t.unbounded;
        continue;
      } else {
        const double err = std::fabs(static_cast<double>(got) - static_cast<double>(want));
        if (abs_sum[at] > 0) t.worst = std::max(t.worst, err / abs_sum[at]);
        ok = err <= bound + ulp_of(want, d_dtype);
      }
      if (ok) continue;
      if (t.violations++ == 0) {
        char buf[320];
        std::snprintf(buf, sizeof buf, "%s: first violation at [%lld][%lld]: got %.9g, reference %.9g, bound %.9g",
                      what.c_str(), static_cast<long long>(i), static_cast<long long>(j), static_cast<double>(got),
                      static_cast<double>(want), bound + ulp_of(want, d_dtype));
        t.first = buf;
      }
    }
  return t;
}


}  // namespace lowp_test
