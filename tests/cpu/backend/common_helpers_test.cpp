// tests/common helpers checked against CUDA's host conversions, so the GPU tests can trust them.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"

using namespace lowp_test;

namespace {
template <typename T>
uint16_t raw16(T h) {
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
}  // namespace

TEST(CommonHelpers, EncodeMatchesCudaOnSampledFp32) {
  // Every 509th fp32 pattern (~8.4M) plus the 2^16 patterns around each half/bf16 boundary.
  int64_t bad_bf = 0, bad_h = 0;
  auto check = [&](uint32_t u) {
    const float x = f32_from_bits(u);
    const uint16_t b = float_to_bf16(x), h = float_to_f16(x);
    if (std::isnan(x)) {
      bad_bf += !std::isnan(bf16_to_float(b));
      bad_h += !std::isnan(f16_to_float(h));
      return;
    }
    if (b != raw16(__float2bfloat16_rn(x)) && bad_bf++ == 0) ADD_FAILURE() << "bf16 of " << std::hex << u;
    if (h != raw16(__float2half_rn(x)) && bad_h++ == 0) ADD_FAILURE() << "f16 of " << std::hex << u;
  };
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 509) check(static_cast<uint32_t>(u));
  for (uint32_t hi : {0x3F80u, 0x4780u, 0x3880u, 0x3300u, 0x0000u, 0x7F7Fu, 0x477Fu})  // ties, fp16 overflow/subnormal edges
    for (uint32_t lo = 0; lo < 0x10000; ++lo) check((hi << 16) | lo);
  EXPECT_EQ(bad_bf, 0);
  EXPECT_EQ(bad_h, 0);
}

TEST(CommonHelpers, DecodeMatchesCudaOnAll16BitPatterns) {
  for (uint32_t u = 0; u < 0x10000; ++u) {
    const uint16_t p = static_cast<uint16_t>(u);
    __half_raw hr;
    hr.x = p;
    const float wh = __half2float(__half(hr));
    __nv_bfloat16_raw br;
    br.x = p;
    const float wb = __bfloat162float(__nv_bfloat16(br));
    ASSERT_TRUE(std::isnan(wh) ? std::isnan(f16_to_float(p)) : f32_bits(f16_to_float(p)) == f32_bits(wh)) << u;
    ASSERT_TRUE(std::isnan(wb) ? std::isnan(bf16_to_float(p)) : f32_bits(bf16_to_float(p)) == f32_bits(wb)) << u;
  }
}

TEST(CommonHelpers, FuzzTensorIsDeterministicAndAdversarial) {
  for (lowp_dtype t : {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16}) {
    for (Fill f : kAllFills) {
      const auto a = fuzz_tensor(t, 16, 64, f, 7), b = fuzz_tensor(t, 16, 64, f, 7);
      EXPECT_EQ(a, b) << fill_name(f);
      if (f != Fill::kAllZero) {
        EXPECT_NE(a, fuzz_tensor(t, 16, 64, f, 8)) << fill_name(f);
      }
    }
    int nan = 0, inf = 0, zero = 0, neg_zero = 0;
    auto count = [&](Fill f) {
      const auto v = fuzz_tensor(t, 16, 64, f, 3);
      for (size_t i = 0; i < 16 * 64; ++i) {
        const float x = load_float(v.data(), t, i);
        nan += std::isnan(x);
        inf += std::isinf(x);
        zero += x == 0.0f;
        neg_zero += x == 0.0f && std::signbit(x);
      }
    };
    count(Fill::kSpecials);
    EXPECT_GT(nan, 0);
    EXPECT_GT(inf, 0);
    EXPECT_GT(zero, 0);
    const auto d = fuzz_tensor(t, 4, 64, Fill::kDenormals, 3);
    for (size_t i = 0; i < 4 * 64; ++i) {
      const float x = std::fabs(load_float(d.data(), t, i));
      const float min_normal = t == LOWP_DTYPE_FLOAT16 ? 0x1p-14f : 0x1p-126f;
      ASSERT_TRUE(x > 0 && x < min_normal) << "element " << i << " = " << x;
    }
    neg_zero = 0;
    count(Fill::kSignedZeros);
    EXPECT_GT(neg_zero, 0);
    const auto z = fuzz_tensor(t, 3, 5, Fill::kAllZero, 1);
    EXPECT_EQ(z, std::vector<uint8_t>(z.size(), 0));
  }
}

TEST(CommonHelpers, BytesEqualReportsFirstMismatch) {
  const std::vector<uint8_t> want = {1, 2, 3, 4, 5, 6}, same = want;
  std::vector<uint8_t> got = want;
  EXPECT_TRUE(bytes_equal(got, same, 2, 3));
  got[5] = 0xAB;
  got[4] = 0x07;
  const ::testing::AssertionResult r = bytes_equal(got.data(), want.data(), 2, 3, 1, "codes",
                                                   [](int64_t rr, int64_t cc) { return "x[" + std::to_string(rr) + "][" + std::to_string(cc) + "]"; });
  ASSERT_FALSE(r);
  const std::string m = r.message();
  EXPECT_NE(m.find("2 of 6"), std::string::npos) << m;
  EXPECT_NE(m.find("[1][1]"), std::string::npos) << m;
  EXPECT_NE(m.find("got 0x07, want 0x05"), std::string::npos) << m;
  EXPECT_NE(m.find("input x[1][1]"), std::string::npos) << m;
  const uint16_t g16[2] = {0x3F80, 0x1234}, w16[2] = {0x3F80, 0x1235};
  const std::string m16 = bytes_equal(g16, w16, 1, 2, 2).message();
  EXPECT_NE(m16.find("[0][1]"), std::string::npos) << m16;
  EXPECT_NE(m16.find("got 0x1234, want 0x1235"), std::string::npos) << m16;
  std::vector<uint8_t> buf(8);
  poison(buf.data(), 8);
  EXPECT_TRUE(untouched(buf.data(), 8));
  buf[6] = 0;
  EXPECT_FALSE(untouched(buf.data(), 8));
}
