// Activation derivatives (numerics §2, backward cast with activation gradient): exp_f32 against
// double std::exp on a dense sweep, dgelu_tanh / dsilu against float64 evaluations of the same
// formulas, and hand-picked exact values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>

#include "numerics/activation_grad.h"

namespace {

using namespace lowp::num;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr uint32_t kCanonicalNaN = 0x7FFFFFFFu;

// Spacing of fp32 at |ref| (subnormal spacing below 2^-126).
double ulp_at(double ref) {
  const double a = std::fabs(ref);
  if (a < 0x1p-126) return 0x1p-149;
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 24);
}

// Error of got against the exact value ref in fp32 ulps; over/underflow must match the
// rounded reference exactly (reported as 1e9 ulp otherwise).
double ulp_error(float got, double ref) {
  const float rf = static_cast<float>(ref);
  if (std::isinf(rf) || std::isinf(got)) return (got == rf) ? 0.0 : 1e9;
  return std::fabs(static_cast<double>(got) - ref) / ulp_at(ref);
}

// Every 97th float bit pattern in [lo, hi] (both signs walked by magnitude).
template <class F>
void sweep(float lo, float hi, uint32_t stride, F f) {
  for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += stride) {
    const float x = float_of(static_cast<uint32_t>(b));
    if (is_nan(x) || x < lo || x > hi) continue;
    f(x);
  }
}

TEST(ActivationGrad, ExpSweepWithinTwoUlp) {
  double max_ulp = 0.0;
  float worst = 0.0f;
  int64_t n = 0;
  auto check = [&](float x) {
    const double e = ulp_error(exp_f32(x), std::exp(static_cast<double>(x)));
    if (e > max_ulp) {
      max_ulp = e;
      worst = x;
    }
    ++n;
  };
  sweep(-104.0f, 89.0f, 97, check);
  // Dense around the overflow / underflow thresholds, the subnormal range and zero.
  for (uint32_t b = 0x42B17200u; b < 0x42B17240u; ++b) check(float_of(b));  // ~88.72
  for (uint32_t b = 0xC2CFF180u; b < 0xC2CFF1F0u; ++b) check(float_of(b));  // ~-103.97
  for (uint32_t b = 0xC2AE0000u; b < 0xC2D00000u; b += 7) check(float_of(b));  // results < 2^-126
  for (uint32_t b = 0; b < 0x34000000u; b += 1021) {  // |x| tiny: exp = 1 +- x
    check(float_of(b));
    check(float_of(b | 0x80000000u));
  }
  std::printf("exp_f32: max ulp error %.4f at x = %.9g over %lld inputs\n", max_ulp, worst,
              static_cast<long long>(n));
  EXPECT_LE(max_ulp, 2.0) << "worst x = " << worst;
}

TEST(ActivationGrad, ExpEdgeCases) {
  EXPECT_EQ(exp_f32(0.0f), 1.0f);
  EXPECT_EQ(exp_f32(-0.0f), 1.0f);
  EXPECT_EQ(exp_f32(kInf), kInf);
  EXPECT_EQ(bits_of(exp_f32(-kInf)), 0u);
  EXPECT_EQ(bits_of(exp_f32(kNaN)), kCanonicalNaN);
  EXPECT_EQ(bits_of(exp_f32(float_of(0xFFC00001u))), kCanonicalNaN);
  // Overflow threshold: 0x42B17217 is the last float with a finite exp.
  EXPECT_FALSE(std::isinf(exp_f32(float_of(0x42B17217u))));
  EXPECT_EQ(exp_f32(float_of(0x42B17218u)), kInf);
  EXPECT_EQ(exp_f32(1000.0f), kInf);
  // Underflow: 0xC2CFF1B4 gives the smallest subnormal 2^-149, 0xC2CFF1B5 gives 0.
  EXPECT_EQ(bits_of(exp_f32(float_of(0xC2CFF1B4u))), 1u);
  EXPECT_EQ(bits_of(exp_f32(float_of(0xC2CFF1B5u))), 0u);
  EXPECT_EQ(bits_of(exp_f32(-1000.0f)), 0u);
  // Subnormal results (x around -100 and -90).
  for (float x : {-90.0f, -95.5f, -100.0f, -103.0f, -103.9f}) {
    const float g = exp_f32(x);
    EXPECT_GT(g, 0.0f);
    EXPECT_LT(g, 0x1p-126f);
    EXPECT_LE(ulp_error(g, std::exp(static_cast<double>(x))), 1.0) << x;
  }
  // Exact powers: exp(ln2 * k) is not exact in fp32, but exp(0) and small exact cases are.
  EXPECT_EQ(exp_f32(float_of(0x00000001u)), 1.0f);  // exp(2^-149) rounds to 1
  EXPECT_EQ(exp_f32(float_of(0x80000001u)), 1.0f);
}

// float64 references of the same formulas (exact tanh/exp).
double dgelu_ref(double x) {
  const double k = std::sqrt(2.0 / std::numbers::pi);
  const double c = 0.044715;
  const double t = std::tanh(k * (x + c * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * c * x * x);
}
double dsilu_ref(double x) {
  const double s = 1.0 / (1.0 + std::exp(-x));
  return s * (1.0 + x * (1.0 - s));
}

struct ErrStats {
  double max_rel_far = 0.0;  // relative, over |ref| >= 0.05 (away from zero crossings)
  double max_rel = 0.0;      // relative, over |ref| >= 1e-3
  double max_abs = 0.0;      // absolute, over all inputs
  float worst_rel_far_x = 0.0f;
  float worst_rel_x = 0.0f;
  float worst_abs_x = 0.0f;
  int64_t fails = 0;
  float first_fail = 0.0f;
};

template <class F, class R>
ErrStats compare(F f, R ref, float lo, float hi) {
  ErrStats st;
  auto one = [&](float x) {
    const float g = f(x);
    const double r = ref(static_cast<double>(x));
    const double err = std::fabs(static_cast<double>(g) - r);
    const double rel = err / std::fabs(r);
    if (std::fabs(r) >= 0.05 && rel > st.max_rel_far) {
      st.max_rel_far = rel;
      st.worst_rel_far_x = x;
    }
    if (std::fabs(r) >= 1e-3 && rel > st.max_rel) {
      st.max_rel = rel;
      st.worst_rel_x = x;
    }
    if (err > st.max_abs) {
      st.max_abs = err;
      st.worst_abs_x = x;
    }
    // Pass: relative 1e-5, or absolute 1e-6 (near zero crossings / tiny results).
    if (!(err <= 1e-5 * std::fabs(r) || err <= 1e-6)) {
      if (st.fails++ == 0) st.first_fail = x;
    }
  };
  sweep(lo, hi, 97, one);
  // Dense over the interesting region.
  for (float x = -12.0f; x <= 12.0f; x += 1.0f / 4096) one(x);
  return st;
}

void report(const char* name, const ErrStats& st) {
  std::printf("%s: max rel error %.3g (x = %.9g) where |ref| >= 0.05, %.3g (x = %.9g) where "
              "|ref| >= 1e-3; max abs error %.3g (x = %.9g)\n",
              name, st.max_rel_far, st.worst_rel_far_x, st.max_rel, st.worst_rel_x, st.max_abs,
              st.worst_abs_x);
}

TEST(ActivationGrad, DgeluAgainstFloat64) {
  const ErrStats st = compare(dgelu_tanh, dgelu_ref, -1e4f, 1e4f);
  report("dgelu_tanh", st);
  EXPECT_EQ(st.fails, 0) << "first failing x = " << st.first_fail;
}

TEST(ActivationGrad, DsiluAgainstFloat64) {
  const ErrStats st = compare(dsilu, dsilu_ref, -1e4f, 1e4f);
  report("dsilu", st);
  EXPECT_EQ(st.fails, 0) << "first failing x = " << st.first_fail;
}

TEST(ActivationGrad, TanhSmallBranchIsAccurate) {
  // |u| < 0.625 uses the odd polynomial; check it and the branch seam against double tanh.
  double max_ulp = 0.0;
  for (float u = -1.0f; u <= 1.0f; u += 1.0f / 65536) {
    max_ulp = std::fmax(max_ulp, ulp_error(tanh_f32(u), std::tanh(static_cast<double>(u))));
  }
  for (float u : {1e-30f, -1e-30f, 1e-6f, 0.6249999f, 0.625f, 9.0f, 9.49f, 9.5f, 20.0f}) {
    max_ulp = std::fmax(max_ulp, ulp_error(tanh_f32(u), std::tanh(static_cast<double>(u))));
  }
  std::printf("tanh_f32 on [-1, 1]: max ulp error %.4f\n", max_ulp);
  EXPECT_LE(max_ulp, 3.0);
  EXPECT_EQ(bits_of(tanh_f32(0.0f)), 0u);
  EXPECT_EQ(bits_of(tanh_f32(-0.0f)), 0x80000000u);
  EXPECT_EQ(tanh_f32(9.5f), 1.0f);
  EXPECT_EQ(tanh_f32(-kInf), -1.0f);
}

TEST(ActivationGrad, HandPickedValues) {
  // ReLU: 1 for x > 0, else 0 (both zeros, NaN and -inf give 0).
  EXPECT_EQ(bits_of(drelu(0.0f)), 0u);
  EXPECT_EQ(bits_of(drelu(-0.0f)), 0u);
  EXPECT_EQ(drelu(2.0f), 1.0f);
  EXPECT_EQ(drelu(float_of(1u)), 1.0f);
  EXPECT_EQ(drelu(kInf), 1.0f);
  EXPECT_EQ(bits_of(drelu(-3.0f)), 0u);
  EXPECT_EQ(bits_of(drelu(-kInf)), 0u);
  EXPECT_EQ(bits_of(drelu(kNaN)), 0u);

  // SiLU'(0) = 0.5, saturation at +-large.
  EXPECT_EQ(dsilu(0.0f), 0.5f);
  EXPECT_EQ(dsilu(-0.0f), 0.5f);
  EXPECT_EQ(dsilu(50.0f), 1.0f);
  EXPECT_EQ(dsilu(kInf), 1.0f);
  EXPECT_LE(std::fabs(dsilu(-100.0f)), 1e-30f);
  EXPECT_EQ(bits_of(dsilu(-100.0f)), 0x80000000u);  // exp(100) = inf -> s = 0 -> -0
  EXPECT_EQ(bits_of(dsilu(-kInf)), 0x80000000u);
  EXPECT_EQ(bits_of(dsilu(kNaN)), kCanonicalNaN);

  // GELU'(0) = 0.5, limits 1 and +0 once tanh saturates.
  EXPECT_EQ(dgelu_tanh(0.0f), 0.5f);
  EXPECT_EQ(dgelu_tanh(-0.0f), 0.5f);
  EXPECT_EQ(dgelu_tanh(20.0f), 1.0f);
  EXPECT_EQ(bits_of(dgelu_tanh(-20.0f)), 0u);
  EXPECT_EQ(dgelu_tanh(1e30f), 1.0f);  // x*x overflows: the |t| == 1 shortcut avoids 0*inf
  EXPECT_EQ(bits_of(dgelu_tanh(-1e30f)), 0u);
  EXPECT_EQ(dgelu_tanh(kInf), 1.0f);
  EXPECT_EQ(bits_of(dgelu_tanh(-kInf)), 0u);
  EXPECT_EQ(bits_of(dgelu_tanh(kNaN)), kCanonicalNaN);
  EXPECT_EQ(bits_of(dgelu_tanh(float_of(0xFF800123u))), kCanonicalNaN);

  // A few mid-range values against the float64 formula (1e-6 relative).
  for (float x : {-3.0f, -1.0f, -0.5f, 0.25f, 1.0f, 1.5f, 3.0f}) {
    EXPECT_NEAR(dgelu_tanh(x), dgelu_ref(x), 1e-6 * std::fabs(dgelu_ref(x)) + 1e-7) << x;
    EXPECT_NEAR(dsilu(x), dsilu_ref(x), 1e-6 * std::fabs(dsilu_ref(x)) + 1e-7) << x;
  }
}

}  // namespace
