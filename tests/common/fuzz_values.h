// Deterministic adversarial inputs for byte-exact tests (CPU oracle vs CUDA backend).
// Header-only, no test framework. Conversions here are written independently of src/numerics
// (via double and nearbyint) so they can serve as a second opinion.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "lowp/lowp.h"

namespace lowp_test {

// splitmix64: tiny, seedable, identical on every platform.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double gaussian() {  // Box-Muller; deterministic (no std::normal_distribution)
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

inline size_t dtype_size(lowp_dtype t) {
  return t == LOWP_DTYPE_FLOAT32 ? 4 : (t == LOWP_DTYPE_FLOAT16 || t == LOWP_DTYPE_BFLOAT16) ? 2 : 1;
}

inline uint32_t f32_bits(float x) { uint32_t u; std::memcpy(&u, &x, 4); return u; }
inline float f32_from_bits(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }

// Round |x| to a grid with `man_bits` explicit mantissa bits and min normal exponent `emin`
// (RNE in double, exact since x is a float). Returns the rounded magnitude.
inline double round_to_grid(double a, int man_bits, int emin) {
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  e = std::max(e - 1, emin);
  const double quantum = std::ldexp(1.0, e - man_bits);
  return std::nearbyint(a / quantum) * quantum;  // default rounding mode: nearest-even
}

inline uint16_t float_to_bf16(float x) {  // RNE, NaN stays NaN (quiet), overflow -> inf
  const uint32_t sign = (f32_bits(x) >> 16) & 0x8000u;
  if (std::isnan(x)) return static_cast<uint16_t>(sign | 0x7FC0u);
  if (std::isinf(x) || x == 0.0f) return static_cast<uint16_t>(f32_bits(x) >> 16);
  const double v = round_to_grid(std::fabs(static_cast<double>(x)), 7, -126);
  if (v >= 0x1.0p128) return static_cast<uint16_t>(sign | 0x7F80u);
  return static_cast<uint16_t>(sign | (f32_bits(static_cast<float>(v)) >> 16));
}

inline float bf16_to_float(uint16_t h) { return f32_from_bits(static_cast<uint32_t>(h) << 16); }

inline uint16_t float_to_f16(float x) {  // RNE, NaN -> quiet NaN, overflow -> inf
  const uint16_t sign = static_cast<uint16_t>((f32_bits(x) >> 16) & 0x8000u);
  if (std::isnan(x)) return static_cast<uint16_t>(sign | 0x7E00u);
  const double v = std::isinf(x) ? INFINITY : round_to_grid(std::fabs(static_cast<double>(x)), 10, -14);
  if (v >= 65536.0) return static_cast<uint16_t>(sign | 0x7C00u);
  if (v < 0x1.0p-14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(v * 0x1.0p24));
  int e;
  const double f = std::frexp(v, &e);  // v = f * 2^e
  const uint16_t man = static_cast<uint16_t>((f * 2.0 - 1.0) * 1024.0);
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | man);
}

inline float f16_to_float(uint16_t h) {
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return static_cast<float>((h & 0x8000) ? -v : v);
}

// Element i of a bf16/fp16/fp32 buffer as float (exact).
inline float load_float(const void* data, lowp_dtype t, size_t i) {
  switch (t) {
    case LOWP_DTYPE_BFLOAT16: return bf16_to_float(static_cast<const uint16_t*>(data)[i]);
    case LOWP_DTYPE_FLOAT16: return f16_to_float(static_cast<const uint16_t*>(data)[i]);
    default: return static_cast<const float*>(data)[i];
  }
}

// Encodes floats into a dtype buffer (RNE for bf16/fp16).
inline std::vector<uint8_t> encode(const std::vector<float>& v, lowp_dtype t) {
  std::vector<uint8_t> out(v.size() * dtype_size(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == LOWP_DTYPE_FLOAT32) {
      std::memcpy(&out[4 * i], &v[i], 4);
    } else {
      const uint16_t h = t == LOWP_DTYPE_BFLOAT16 ? float_to_bf16(v[i]) : float_to_f16(v[i]);
      out[2 * i] = static_cast<uint8_t>(h & 0xFF);  // little-endian, byte by byte (GCC 13
      out[2 * i + 1] = static_cast<uint8_t>(h >> 8);  // misreads a 2-byte memcpy as an overflow)
    }
  }
  return out;
}

enum class Fill {
  kGaussian,     // N(0, 1)
  kAllZero,      // +0 everywhere: amax 0
  kSignedZeros,  // random +0 / -0
  kDenormals,    // subnormals of the dtype, random sign
  kSpecials,     // +-inf, NaN (both signs), +-0, +-max finite, mixed with N(0,1)
  kHugeRange,    // random exponent over the dtype's whole finite range
  kMixed,        // each row drawn from one of the above (all-zero rows, NaN rows, ...)
};
inline constexpr Fill kAllFills[] = {Fill::kGaussian, Fill::kAllZero,  Fill::kSignedZeros,
                                     Fill::kDenormals, Fill::kSpecials, Fill::kHugeRange,
                                     Fill::kMixed};
inline const char* fill_name(Fill f) {
  static const char* names[] = {"gaussian", "all_zero", "signed_zeros", "denormals",
                                "specials", "huge_range", "mixed"};
  return names[static_cast<int>(f)];
}

namespace detail {
// Raw bit pattern of one element. Bits are built per dtype so denormals/specials are exact.
inline uint32_t element_bits(Fill f, lowp_dtype t, Rng& rng) {
  const bool f32 = t == LOWP_DTYPE_FLOAT32, bf = t == LOWP_DTYPE_BFLOAT16;
  const int man = f32 ? 23 : bf ? 7 : 10, ebits = f32 ? 8 : bf ? 8 : 5;
  const uint32_t sign = (rng.next() & 1) << (man + ebits);
  const uint32_t exp_all = ((1u << ebits) - 1) << man;
  const uint32_t man_mask = (1u << man) - 1;
  auto from_float = [&](float x) -> uint32_t {
    return f32 ? f32_bits(x) : bf ? float_to_bf16(x) : float_to_f16(x);
  };
  switch (f) {
    case Fill::kGaussian: return from_float(static_cast<float>(rng.gaussian()));
    case Fill::kAllZero: return 0;
    case Fill::kSignedZeros: return sign;
    case Fill::kDenormals: return sign | (1 + rng.below(man_mask));
    case Fill::kSpecials:
      switch (rng.below(6)) {
        case 0: return sign | exp_all;                                  // +-inf
        case 1: return sign | exp_all | (1 + rng.below(man_mask));      // NaN, any payload
        case 2: return sign;                                            // +-0
        case 3: return sign | (exp_all - (1u << man)) | man_mask;       // +-max finite
        default: return from_float(static_cast<float>(rng.gaussian()));
      }
    case Fill::kHugeRange: {
      const uint32_t e = 1 + rng.below((1u << ebits) - 2);  // any normal exponent
      return sign | (e << man) | (static_cast<uint32_t>(rng.next()) & man_mask);
    }
    case Fill::kMixed: return 0;  // handled per row by fuzz_tensor
  }
  return 0;
}
}  // namespace detail

// rows x cols elements of dtype t (bf16/fp16/fp32), deterministic in (fill, t, shape, seed).
inline std::vector<uint8_t> fuzz_tensor(lowp_dtype t, int64_t rows, int64_t cols, Fill f, uint64_t seed) {
  Rng rng(seed ^ (static_cast<uint64_t>(f) << 56) ^ (static_cast<uint64_t>(t) << 48));
  const size_t es = dtype_size(t);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols) * es);
  for (int64_t r = 0; r < rows; ++r) {
    const Fill rf = f == Fill::kMixed ? kAllFills[rng.below(6)] : f;  // 6: all but kMixed
    for (int64_t c = 0; c < cols; ++c) {
      const uint32_t b = detail::element_bits(rf, t, rng);
      std::memcpy(&out[static_cast<size_t>(r * cols + c) * es], &b, es);  // little-endian
    }
  }
  return out;
}

}  // namespace lowp_test
