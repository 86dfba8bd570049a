// Activation derivatives for the backward cast with activation gradient (numerics §2, "dact"):
// q = fp8(mul_rn(mul_rn(dact(x), grad), scale)); the caller does the multiplies.
//
// Written only with IEEE basic operations (add/sub/mul/div round-to-nearest through the *_rn
// helpers, comparisons, bit manipulation): never libm or CUDA math functions, whose expf/tanhf
// differ between host glibc and the GPU by an ulp. The CPU and CUDA backends both call these
// functions, so the evaluation order written here IS the spec for both of them; do not
// reassociate, fuse or "simplify" any step.
//
// NaN inputs return the canonical NaN 0x7FFFFFFF (see canonical_nan in host_device.h) for
// exp_f32, dgelu_tanh and dsilu; drelu maps NaN to 0.
#pragma once
#include "host_device.h"

namespace lowp::num {

namespace act_detail {

// 2^k for k in [-126, 127], built from the exponent bits (exact).
LOWP_HD float pow2_normal(int k) { return float_of(static_cast<uint32_t>(k + 127) << 23); }

}  // namespace act_detail

// expf from basic operations: < 1 ulp from exact exp on every fp32 input (max 0.987 ulp,
// measured exhaustively against double exp; over/underflow thresholds exact).
//
//   NaN                      -> canonical NaN
//   x >= 88.72283935546875   -> +inf   (0x42B17218, the first float whose exp rounds past FLT_MAX)
//   x <= -103.97208404541016 -> +0     (0xC2CFF1B5, the first float whose exp rounds to 0)
//   otherwise:
//     n  = rint(x * log2e)            RNE via (v + 1.5*2^23) - 1.5*2^23, |v| < 2^22
//     r  = (x - n*ln2_hi) - n*ln2_lo   ln2_hi = 0x3F317200 (9 trailing zero bits: n*ln2_hi exact)
//     p  = ((((( P0*r + P1)*r + P2)*r + P3)*r + P4)*r + P5)      (Horner, mul_rn/add_rn;
//                                                     P0..P5: Cephes expf, literals below)
//     y  = (p*(r*r) + r) + 1                                       ~ e^r, |r| <= ~0.35
//     result = (y * 2^n1) * 2^n2,  n1 = floor(n/2), n2 = n - n1   (both in [-75, 64]: the first
//              product is exact, the second rounds once, also into the subnormal range)
LOWP_HD float exp_f32(float x) {
  if (is_nan(x)) return float_of(0x7FFFFFFFu);
  if (x >= 88.72283935546875f) return float_of(0x7F800000u);
  if (x <= -103.97208404541016f) return 0.0f;
  constexpr float kLog2e = 1.44269502163f;            // 0x3FB8AA3B
  constexpr float kRoundMagic = 12582912.0f;          // 1.5 * 2^23
  constexpr float kLn2Hi = 0.693145751953125f;        // 0x3F317200
  constexpr float kLn2Lo = 1.428606765330187045e-06f; // ln2 - kLn2Hi
  const float nf = sub_rn(add_rn(mul_rn(x, kLog2e), kRoundMagic), kRoundMagic);
  const float r = sub_rn(sub_rn(x, mul_rn(nf, kLn2Hi)), mul_rn(nf, kLn2Lo));
  float p = 1.9875691500e-4f;
  p = add_rn(mul_rn(p, r), 1.3981999507e-3f);
  p = add_rn(mul_rn(p, r), 8.3334519073e-3f);
  p = add_rn(mul_rn(p, r), 4.1665795894e-2f);
  p = add_rn(mul_rn(p, r), 1.6666665459e-1f);
  p = add_rn(mul_rn(p, r), 5.0000001201e-1f);
  const float y = add_rn(add_rn(mul_rn(p, mul_rn(r, r)), r), 1.0f);
  const int n = static_cast<int>(nf);  // exact: nf is an integer in [-150, 128]
  const int n1 = (n >= 0) ? n / 2 : -((1 - n) / 2);  // floor(n / 2)
  const int n2 = n - n1;
  return mul_rn(mul_rn(y, act_detail::pow2_normal(n1)), act_detail::pow2_normal(n2));
}

// tanh from exp_f32 (u not NaN; callers check), computed on a = |u| with the sign of u copied
// onto the result (so tanh_f32(-u) == -tanh_f32(u) bit for bit, and tanh_f32(-0) = -0):
//   a <  0.625 : z = a*a; t = (((((Q0*z + Q1)*z + Q2)*z + Q3)*z + Q4) * z) * a + a
//                (Q0..Q4: Cephes tanhf, literals below)
//   a >= 9.5   : t = 1   (the formula below already rounds to exactly 1 from a ~ 9.011 on)
//   otherwise  : e = exp_f32(a + a); t = 1 - 2/(e + 1)
LOWP_HD float tanh_f32(float u) {
  const float a = abs_f(u);
  float t;
  if (a < 0.625f) {
    const float z = mul_rn(a, a);
    float q = -5.70498872745e-3f;
    q = add_rn(mul_rn(q, z), 2.06390887954e-2f);
    q = add_rn(mul_rn(q, z), -5.37397155531e-2f);
    q = add_rn(mul_rn(q, z), 1.33314422036e-1f);
    q = add_rn(mul_rn(q, z), -3.33332819422e-1f);
    t = add_rn(mul_rn(mul_rn(q, z), a), a);
  } else if (a >= 9.5f) {
    t = 1.0f;
  } else {
    const float e = exp_f32(add_rn(a, a));
    t = sub_rn(1.0f, div_rn(2.0f, add_rn(e, 1.0f)));
  }
  return float_of(bits_of(t) | (bits_of(u) & 0x80000000u));
}

// d/dx GELU(x), tanh approximation, in the evaluation order of TE's dgelu (k = sqrt(2/pi),
// c = 0.044715, 3ck = 0.1070322243):
//   u  = (k*x) * (1 + (c*x)*x)                     [= k*(x + c*x^3)]
//   t  = tanh_f32(u)
//   if |t| == 1: return 0.5*(1 + t)                [1 or +0; 1 - t*t is 0 there, so this equals
//                                                   the formula below wherever that is finite and
//                                                   also covers |x| -> inf, where 0*inf = NaN]
//   d  = (0.5*x) * ((1 - t*t) * (k + (3ck*x)*x))
//   return d + 0.5*(1 + t)
LOWP_HD float dgelu_tanh(float x) {
  if (is_nan(x)) return float_of(0x7FFFFFFFu);
  constexpr float kK = 0.7978845608f;
  constexpr float kC = 0.044715f;
  constexpr float k3CK = 0.1070322243f;
  const float u = mul_rn(mul_rn(kK, x), add_rn(1.0f, mul_rn(mul_rn(kC, x), x)));
  const float t = tanh_f32(u);
  const float half_one_plus_t = mul_rn(0.5f, add_rn(1.0f, t));
  if (abs_f(t) == 1.0f) return half_one_plus_t;
  const float one_minus_t2 = sub_rn(1.0f, mul_rn(t, t));
  const float poly = add_rn(kK, mul_rn(mul_rn(k3CK, x), x));
  const float d = mul_rn(mul_rn(0.5f, x), mul_rn(one_minus_t2, poly));
  return add_rn(d, half_one_plus_t);
}

// d/dx SiLU(x) = d/dx x*sigmoid(x):
//   s = 1 / (1 + exp_f32(-x))
//   if s == 1: return 1      [then 1 - s = 0; equal to the formula for finite x, and x = +inf]
//   if s == 0: return -0.0   [x <= ~-88.7: the formula gives 0 * (1 + x) = -0; also x = -inf]
//   return s * (1 + x*(1 - s))
LOWP_HD float dsilu(float x) {
  if (is_nan(x)) return float_of(0x7FFFFFFFu);
  const float s = div_rn(1.0f, add_rn(1.0f, exp_f32(float_of(bits_of(x) ^ 0x80000000u))));
  if (s == 1.0f) return 1.0f;
  if (s == 0.0f) return -0.0f;
  return mul_rn(s, add_rn(1.0f, mul_rn(x, sub_rn(1.0f, s))));
}

// d/dx ReLU(x) = x > 0 ? 1 : 0. ReLU'(0) is taken as 0 (both zeros); NaN gives 0 (the
// comparison is false).
LOWP_HD float drelu(float x) { return x > 0.0f ? 1.0f : 0.0f; }

// The value a backward cast encodes (numerics §2): dact(x) * grad, one RN product, NaN results
// canonicalised (a NaN grad's payload would otherwise survive on the CPU only).
// kAct is a lowp_activation value: 0 GELU (tanh), 1 SiLU, 2 ReLU.
template <int kAct>
LOWP_HD float dact_times_grad(float x, float grad) {
  const float d = kAct == 0 ? dgelu_tanh(x) : kAct == 1 ? dsilu(x) : drelu(x);
  return canonical_nan(mul_rn(d, grad));
}

LOWP_HD float dact_times_grad(int act, float x, float grad) {
  return act == 0 ? dact_times_grad<0>(x, grad) : act == 1 ? dact_times_grad<1>(x, grad) : dact_times_grad<2>(x, grad);
}

}  // namespace lowp::num
