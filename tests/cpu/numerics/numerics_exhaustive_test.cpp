// numerics §1: the scalar encoders in src/numerics against CUDA's own host conversion functions on
// every fp32 bit pattern (and every code / half for the decoders). A mismatch prints the first
// failing input and both outputs.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "numerics/convert.h"
#include "numerics/minifloat.h"

namespace {

using lowp::num::bits_of;
using lowp::num::float_of;

struct Mismatch {
  uint64_t count = 0;
  uint64_t first = UINT64_MAX;  // lowest failing input
  uint32_t got = 0, want = 0;
};

// Runs check(u, &got, &want) for u in [0, n) split over all cores; check returns true on match.
template <class Check>
Mismatch sweep(uint64_t n, const Check& check) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  Mismatch total;
  std::mutex mu;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      Mismatch m;
      const uint64_t lo = n * t / threads, hi = n * (t + 1) / threads;
      for (uint64_t u = lo; u < hi; ++u) {
        uint32_t got, want;
        if (!check(static_cast<uint32_t>(u), &got, &want)) {
          if (m.count++ == 0) m = {1, u, got, want};
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      total.count += m.count;
      if (m.count && m.first < total.first) {
        total.first = m.first;
        total.got = m.got;
        total.want = m.want;
      }
    });
  }
  for (auto& th : pool) th.join();
  return total;
}

std::string describe(const Mismatch& m, const char* what) {
  char buf[256];
  if (m.count == 0) return "";
  std::snprintf(buf, sizeof buf, "%s: %llu mismatches; first input bits 0x%08llx (%.9g): got 0x%x, want 0x%x",
                what, static_cast<unsigned long long>(m.count), static_cast<unsigned long long>(m.first),
                static_cast<double>(float_of(static_cast<uint32_t>(m.first))), m.got, m.want);
  return buf;
}

constexpr uint64_t kAllF32 = 1ull << 32;

TEST(NumericsExhaustive, EncodeE4M3MatchesCuda) {
  auto m = sweep(kAllF32, [](uint32_t u, uint32_t* got, uint32_t* want) {
    const float x = float_of(u);
    *got = lowp::num::encode_e4m3(x);
    *want = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    return *got == *want;
  });
  EXPECT_EQ(m.count, 0u) << describe(m, "encode_e4m3");
}

TEST(NumericsExhaustive, EncodeE5M2MatchesCuda) {
  auto m = sweep(kAllF32, [](uint32_t u, uint32_t* got, uint32_t* want) {
    const float x = float_of(u);
    *got = lowp::num::encode_e5m2(x);
    *want = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
    return *got == *want;
  });
  EXPECT_EQ(m.count, 0u) << describe(m, "encode_e5m2");
}

TEST(NumericsExhaustive, EncodeE2M1MatchesCuda) {
  auto m = sweep(kAllF32, [](uint32_t u, uint32_t* got, uint32_t* want) {
    const float x = float_of(u);
    *got = lowp::num::encode_e2m1(x);
    *want = __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest);
    return *got == *want;
  });
  EXPECT_EQ(m.count, 0u) << describe(m, "encode_e2m1");
}

uint16_t raw_of(__nv_bfloat16 h) {
  uint16_t r;
  std::memcpy(&r, &h, 2);
  return r;
}
uint16_t raw_of(__half h) {
  uint16_t r;
  std::memcpy(&r, &h, 2);
  return r;
}

// NaN inputs: CUDA canonicalises the payload, we keep it; only "is NaN" is part of the contract.
TEST(NumericsExhaustive, F32ToBf16MatchesCuda) {
  auto m = sweep(kAllF32, [](uint32_t u, uint32_t* got, uint32_t* want) {
    const float x = float_of(u);
    *got = lowp::num::f32_to_bf16(x);
    if (std::isnan(x)) {
      *want = 0x7FC0;  // any bf16 NaN passes
      return (*got & 0x7F80u) == 0x7F80u && (*got & 0x7Fu) != 0;
    }
    *want = raw_of(__float2bfloat16_rn(x));
    return *got == *want;
  });
  EXPECT_EQ(m.count, 0u) << describe(m, "f32_to_bf16");
}

TEST(NumericsExhaustive, F32ToF16MatchesCuda) {
  auto m = sweep(kAllF32, [](uint32_t u, uint32_t* got, uint32_t* want) {
    const float x = float_of(u);
    *got = lowp::num::f32_to_f16(x);
    if (std::isnan(x)) {
      *want = 0x7E00;  // any f16 NaN passes
      return (*got & 0x7C00u) == 0x7C00u && (*got & 0x3FFu) != 0;
    }
    *want = raw_of(__float2half_rn(x));
    return *got == *want;
  });
  EXPECT_EQ(m.count, 0u) << describe(m, "f32_to_f16");
}

// Same bits, or both NaN.
bool same_float(float a, float b) { return bits_of(a) == bits_of(b) || (std::isnan(a) && std::isnan(b)); }

TEST(NumericsExhaustive, F16ToF32MatchesCuda) {
  auto m = sweep(1u << 16, [](uint32_t u, uint32_t* got, uint32_t* want) {
    __half_raw r;
    r.x = static_cast<unsigned short>(u);
    const float g = lowp::num::f16_to_f32(static_cast<uint16_t>(u));
    const float w = __half2float(__half(r));
    *got = bits_of(g);
    *want = bits_of(w);
    return same_float(g, w);
  });
  EXPECT_EQ(m.count, 0u) << describe(m, "f16_to_f32");
}

TEST(NumericsExhaustive, Bf16ToF32IsUpperHalf) {
  auto m = sweep(1u << 16, [](uint32_t u, uint32_t* got, uint32_t* want) {
    *got = bits_of(lowp::num::bf16_to_f32(static_cast<uint16_t>(u)));
    *want = u << 16;
    return *got == *want;
  });
  EXPECT_EQ(m.count, 0u) << describe(m, "bf16_to_f32");
}

// Independent decode: CUDA's fp8 -> half, then half -> float (every fp8 value is a half).
float cuda_fp8_to_float(uint8_t c, __nv_fp8_interpretation_t fmt) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(c, fmt)));
}

TEST(NumericsExhaustive, DecodeFp8MatchesCuda) {
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<uint8_t>(c);
    const float g4 = lowp::num::decode_e4m3(code), w4 = cuda_fp8_to_float(code, __NV_E4M3);
    EXPECT_TRUE(same_float(g4, w4)) << "decode_e4m3(0x" << std::hex << c << ") = " << g4 << ", want " << w4;
    const float g5 = lowp::num::decode_e5m2(code), w5 = cuda_fp8_to_float(code, __NV_E5M2);
    EXPECT_TRUE(same_float(g5, w5)) << "decode_e5m2(0x" << std::hex << c << ") = " << g5 << ", want " << w5;
  }
  // NaN codes per numerics §1: E4M3 only 0x7F/0xFF; E5M2 exponent 31 with nonzero mantissa.
  int nan4 = 0, nan5 = 0;
  for (int c = 0; c < 256; ++c) {
    nan4 += std::isnan(lowp::num::decode_e4m3(static_cast<uint8_t>(c)));
    nan5 += std::isnan(lowp::num::decode_e5m2(static_cast<uint8_t>(c)));
  }
  EXPECT_EQ(nan4, 2);
  EXPECT_EQ(nan5, 6);
}

TEST(NumericsExhaustive, DecodeE2M1MatchesTableAndCuda) {
  // numerics §1 table: codes 0..7, code 8+c is -value(c).
  const float table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int c = 0; c < 16; ++c) {
    const float want = c < 8 ? table[c] : -table[c - 8];
    const float got = lowp::num::decode_e2m1(static_cast<uint8_t>(c));
    EXPECT_EQ(bits_of(got), bits_of(want)) << "decode_e2m1(" << c << ") = " << got << ", want " << want;
    const float cuda = __half2float(__half(__nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(c), __NV_E2M1)));
    EXPECT_EQ(bits_of(got), bits_of(cuda)) << "decode_e2m1(" << c << ") = " << got << ", CUDA " << cuda;
  }
}

}  // namespace
