// Shared qualifiers and bit casts for the scalar rules in src/numerics/.
// Everything here compiles as plain C++ (g++) and as CUDA device code.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define LOWP_HD __host__ __device__ __forceinline__
#else
#define LOWP_HD inline
#endif
// Only the device pass knows the pragma (the host compiler would warn about it).
#if defined(__CUDA_ARCH__)
#define LOWP_UNROLL _Pragma("unroll")
#else
#define LOWP_UNROLL
#endif

namespace lowp::num {

LOWP_HD uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
#endif
}

LOWP_HD float float_of(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, 4);
  return x;
#endif
}

constexpr float kFltMax = 3.402823466e+38f;

LOWP_HD bool is_nan(float x) { return (bits_of(x) & 0x7FFFFFFFu) > 0x7F800000u; }
LOWP_HD bool is_inf(float x) { return (bits_of(x) & 0x7FFFFFFFu) == 0x7F800000u; }
LOWP_HD float abs_f(float x) { return float_of(bits_of(x) & 0x7FFFFFFFu); }

// IEEE minNum/maxNum (fminf/fmaxf): a NaN operand is dropped.
LOWP_HD float fmin_num(float a, float b) {
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return a < b ? a : b;
}
LOWP_HD float fmax_num(float a, float b) {
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return a > b ? a : b;
}

// NaN results of arithmetic differ between CPU and GPU (payload kept vs 0x7FFFFFFF); outputs
// that can carry a NaN from arithmetic are canonicalised so the backends agree bit for bit.
LOWP_HD float canonical_nan(float x) { return is_nan(x) ? float_of(0x7FFFFFFFu) : x; }

// Products and quotients with explicit round-to-nearest so nvcc cannot contract them into FMAs.
LOWP_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
LOWP_HD float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
LOWP_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
LOWP_HD float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
LOWP_HD float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

}  // namespace lowp::num
