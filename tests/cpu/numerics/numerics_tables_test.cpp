// Hand-worked tables from numerics §1 (formats), §2 (FP8 scales), §3/§5 (NVFP4 scale math).
// Expected values are literals worked out from docs/numerics.md; fp32 quotients that are not exact
// are written as bit patterns (checked once with numpy float32 arithmetic, step by step).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "numerics/convert.h"
#include "numerics/fp8_cast.h"
#include "numerics/fp8_scaling.h"
#include "numerics/minifloat.h"
#include "numerics/nvfp4_scaling.h"

namespace {

using namespace lowp::num;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMax = 3.402823466e+38f;  // FLT_MAX
float F(uint32_t bits) { return float_of(bits); }

struct Case {
  float x;
  int code;
};

template <class Enc>
void check_codes(const char* name, Enc enc, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(static_cast<int>(enc(c.x)), c.code)
        << name << "(" << c.x << " = bits 0x" << std::hex << bits_of(c.x) << ")";
  }
}

// Bit-exact float compare with both values in the message.
#define EXPECT_BITS(got, want)                                                                  \
  EXPECT_EQ(bits_of(got), bits_of(want)) << #got << " = " << (got) << " (0x" << std::hex        \
                                         << bits_of(got) << "), want " << (want) << " (0x"       \
                                         << bits_of(want) << ")"

// ---- numerics §1 -------------------------------------------------------------------------------

TEST(NumericsTables, E2M1RoundToNearestEven) {
  // Codes 0..7 = 0, 0.5, 1, 1.5, 2, 3, 4, 6; ties go to the even code.
  check_codes("encode_e2m1", encode_e2m1,
              {{0.25f, 0}, {0.75f, 2}, {1.25f, 2}, {1.75f, 4}, {2.5f, 4}, {3.5f, 6}, {5.0f, 6},
               {0.2499f, 0}, {0.2501f, 1}, {2.501f, 5}, {5.001f, 7},
               {0.5f, 1}, {1.0f, 2}, {1.5f, 3}, {2.0f, 4}, {3.0f, 5}, {4.0f, 6}, {6.0f, 7},
               // saturation, NaN, signed zero
               {6.5f, 7}, {1e30f, 7}, {kInf, 7}, {-6.5f, 15}, {-kInf, 15}, {kNaN, 7}, {-kNaN, 7},
               {0.0f, 0}, {-0.0f, 8}, {-0.1f, 8}, {F(1), 0}, {-1.75f, 12}, {-3.5f, 14}});
}

TEST(NumericsTables, PackE2M1NibbleOrder) {
  // Element 2j in bits 3:0, element 2j+1 in bits 7:4.
  EXPECT_EQ(pack_e2m1(0x3, 0xA), 0xA3);
  EXPECT_EQ(pack_e2m1(0xF, 0x0), 0x0F);
  EXPECT_EQ(pack_e2m1(0x0, 0xF), 0xF0);
  EXPECT_EQ(pack_e2m1(0x73, 0x95), 0x53);  // only the low nibble of each code is used
}

TEST(NumericsTables, E4M3) {
  check_codes("encode_e4m3", encode_e4m3,
              {{448.0f, 0x7E}, {-448.0f, 0xFE}, {464.0f, 0x7E}, {465.0f, 0x7E}, {1e10f, 0x7E},
               {kInf, 0x7E}, {-kInf, 0xFE}, {kNaN, 0x7F}, {-kNaN, 0x7F},
               // binade 256..512, spacing 32: 384 = 0x7C, 416 = 0x7D; ties go to the even mantissa
               {400.0f, 0x7C}, {416.0f, 0x7D}, {420.0f, 0x7D}, {432.0f, 0x7E}, {440.0f, 0x7E},
               {1.0f, 0x38}, {-2.0f, 0xC0}, {0.5f, 0x30}, {256.0f, 0x78}, {240.0f, 0x77},
               {1.0625f, 0x38}, {1.1875f, 0x3A},  // ties 1|1.125 -> 1, 1.125|1.25 -> 1.25
               {0.015625f, 0x08},                 // 2^-6 smallest normal
               {0.001953125f, 0x01},              // 2^-9 smallest denormal
               {0.0009765625f, 0x00},             // 2^-10: tie 0|2^-9 -> 0
               {0.00097656256f, 0x01},            // just above the tie
               {0.0029296875f, 0x02},             // 3*2^-10: tie 1|2 -> 2
               {0.013671875f, 0x07},              // 7*2^-9 largest denormal
               {0.0f, 0x00}, {-0.0f, 0x80}, {-0.0009765625f, 0x80}});
}

TEST(NumericsTables, E5M2) {
  check_codes("encode_e5m2", encode_e5m2,
              {{57344.0f, 0x7B}, {-57344.0f, 0xFB}, {61440.0f, 0x7B}, {1e10f, 0x7B},
               {kInf, 0x7B}, {-kInf, 0xFB}, {kNaN, 0x7F},
               {1.0f, 0x3C}, {1.125f, 0x3C}, {1.375f, 0x3E}, {-2.0f, 0xC0},
               {6.103515625e-05f, 0x04},                // 2^-14 smallest normal
               {1.52587890625e-05f, 0x01},              // 2^-16 smallest denormal
               {7.62939453125e-06f, 0x00},              // 2^-17: tie -> 0
               {0.0f, 0x00}, {-0.0f, 0x80}});
}

TEST(NumericsTables, DecodeSpecialCodes) {
  EXPECT_BITS(decode_e4m3(0x7E), 448.0f);
  EXPECT_BITS(decode_e4m3(0x01), 0.001953125f);
  EXPECT_BITS(decode_e4m3(0x80), -0.0f);
  EXPECT_TRUE(std::isnan(decode_e4m3(0x7F)));
  EXPECT_TRUE(std::isnan(decode_e4m3(0xFF)));
  EXPECT_BITS(decode_e5m2(0x7B), 57344.0f);
  EXPECT_BITS(decode_e5m2(0x7C), kInf);
  EXPECT_BITS(decode_e5m2(0xFC), -kInf);
  EXPECT_TRUE(std::isnan(decode_e5m2(0x7D)));
  EXPECT_BITS(decode_e2m1(7), 6.0f);
  EXPECT_BITS(decode_e2m1(8), -0.0f);
  EXPECT_BITS(decode_e2m1(13), -3.0f);
}

TEST(NumericsTables, AmaxFoldPropagatesNaN) {
  // numerics §0: amax = max|x|, any NaN makes it NaN, whatever the order.
  uint32_t acc = 0;
  for (float x : {1.0f, -5.0f, 2.0f, -0.0f}) acc = amax_bits_fold(acc, x);
  EXPECT_BITS(float_of(acc), 5.0f);
  acc = amax_bits_fold(acc, -kInf);
  EXPECT_BITS(float_of(acc), kInf);
  uint32_t a = 0, b = 0;
  for (float x : {1.0f, kNaN, kInf}) a = amax_bits_fold(a, x);
  for (float x : {kInf, 1.0f, -kNaN}) b = amax_bits_fold(b, x);
  EXPECT_TRUE(std::isnan(float_of(a)) && std::isnan(float_of(b))) << std::hex << a << " " << b;
}

// ---- numerics §2 -------------------------------------------------------------------------------

TEST(NumericsTables, Fp8ScaleFromAmax) {
  const float third = F(0x43155555);  // RN(448/3) = 149.333328
  EXPECT_BITS(fp8_scale_from_amax(0.0f, 448.0f, 0.0f, false), 1.0f);
  EXPECT_BITS(fp8_scale_from_amax(kInf, 448.0f, 0.0f, false), 1.0f);
  EXPECT_BITS(fp8_scale_from_amax(kNaN, 448.0f, 0.0f, false), 1.0f);
  EXPECT_BITS(fp8_scale_from_amax(2.0f, 448.0f, 0.0f, false), 224.0f);
  EXPECT_BITS(fp8_scale_from_amax(3.0f, 448.0f, 0.0f, false), third);
  EXPECT_BITS(fp8_scale_from_amax(57344.0f, 57344.0f, 0.0f, false), 1.0f);
  // eps clamp: a = max(amax, eps)
  EXPECT_BITS(fp8_scale_from_amax(0.0f, 448.0f, 2.0f, false), 224.0f);
  EXPECT_BITS(fp8_scale_from_amax(1e-30f, 448.0f, 1.0f, false), 448.0f);
  EXPECT_BITS(fp8_scale_from_amax(3.0f, 448.0f, 1.0f, false), third);
  EXPECT_BITS(fp8_scale_from_amax(kNaN, 448.0f, 1.0f, false), 1.0f);  // a stays NaN -> 1
  // overflow -> FLT_MAX: 448 / 2^-149 and 448 * 2^120 are both beyond fp32
  EXPECT_BITS(fp8_scale_from_amax(F(1), 448.0f, 0.0f, false), kMax);
  EXPECT_BITS(fp8_scale_from_amax(std::ldexp(1.0f, -120), 448.0f, 0.0f, false), kMax);
  // power-of-two: bits & 0xFF800000
  EXPECT_BITS(fp8_scale_from_amax(3.0f, 448.0f, 0.0f, true), 128.0f);
  EXPECT_BITS(fp8_scale_from_amax(2.0f, 448.0f, 0.0f, true), 128.0f);
  EXPECT_BITS(fp8_scale_from_amax(500.0f, 448.0f, 0.0f, true), 0.5f);  // 0.896 -> 0.5
  EXPECT_BITS(fp8_scale_from_amax(0.0f, 448.0f, 0.0f, true), 1.0f);
  EXPECT_BITS(fp8_scale_from_amax(F(1), 448.0f, 0.0f, true), std::ldexp(1.0f, 127));  // FLT_MAX masked
}

struct Delayed {
  std::vector<float> h;
  float scale;
};

Delayed run_update(std::vector<float> h, float old_scale, int margin, bool most_recent) {
  const float s = fp8_delayed_update(h.data(), static_cast<int64_t>(h.size()), old_scale, 448.0f, margin,
                                     most_recent);
  return {h, s};
}

void expect_history(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(bits_of(got[i]), bits_of(want[i])) << "h'[" << i << "] = " << got[i] << ", want " << want[i];
  }
}

TEST(NumericsTables, Fp8DelayedUpdate) {
  // h = {3, 7, 2, 5}: roll gives {7, 2, 5, 3}, then h'[0] = 0.
  auto r = run_update({3, 7, 2, 5}, 9.0f, 0, false);
  EXPECT_BITS(r.scale, 64.0f);  // max = 7
  expect_history(r.h, {0, 2, 5, 3});
  r = run_update({3, 7, 2, 5}, 9.0f, 0, true);
  EXPECT_BITS(r.scale, F(0x43155555));  // most_recent = h[0] = 3: RN(448/3)
  expect_history(r.h, {0, 2, 5, 3});
  // margin m: 448 * 2^-m / a
  EXPECT_BITS(run_update({3, 7, 2, 5}, 9.0f, 1, false).scale, 32.0f);
  EXPECT_BITS(run_update({3, 7, 2, 5}, 9.0f, 2, false).scale, 16.0f);
  EXPECT_BITS(run_update({3, 7, 2, 5}, 9.0f, -1, false).scale, 128.0f);
  // a not finite or not > 0 keeps the old scale; the history still rolls
  r = run_update({0, 0, 0}, 9.0f, 0, false);
  EXPECT_BITS(r.scale, 9.0f);
  expect_history(r.h, {0, 0, 0});
  r = run_update({1, kNaN, 2}, 9.0f, 0, false);
  EXPECT_BITS(r.scale, 9.0f);
  expect_history(r.h, {0, 2, 1});  // the NaN rolled to h'[0] and was zeroed
  EXPECT_BITS(run_update({1, kInf, 2}, 9.0f, 0, false).scale, 9.0f);
  EXPECT_BITS(run_update({kNaN, 1, 2}, 9.0f, 0, true).scale, 9.0f);
  EXPECT_BITS(run_update({kNaN, 1, 2}, 9.0f, 0, false).scale, 9.0f);  // NaN propagates through max
  EXPECT_BITS(run_update({0, 1, 2}, 9.0f, 0, true).scale, 9.0f);
  EXPECT_BITS(run_update({4, kNaN, kInf}, 9.0f, 0, true).scale, 112.0f);  // only h[0] is read
  // overflow -> FLT_MAX; L = 1
  EXPECT_BITS(run_update({F(1)}, 9.0f, 0, false).scale, kMax);
  r = run_update({6}, 9.0f, 0, false);
  EXPECT_BITS(r.scale, F(0x42955555));  // RN(448/6)
  expect_history(r.h, {0});
}

TEST(NumericsTables, Fp8ElementCast) {
  // q = fp8(x * scale): 400 is the tie 384|416 (E4M3) -> 384; E5M2 grid 384|448 -> 384.
  EXPECT_EQ(fp8_quantize_element<true>(100.0f, 4.0f), 0x7C);
  EXPECT_EQ(fp8_quantize_element<false>(100.0f, 4.0f), 0x5E);
  // One fp32 RN product: (1.0625 + 2^-23) * (1 - 2^-24) rounds to exactly 1.0625 in fp32, the
  // E4M3 tie 1|1.125 -> 1 (0x38). An exact (wider) product would land above the tie -> 0x39.
  EXPECT_EQ(fp8_quantize_element<true>(F(0x3F880001), F(0x3F7FFFFF)), 0x38);
  EXPECT_BITS(fp8_dequantize_element<true>(0x7C, 0.25f), 96.0f);
  EXPECT_BITS(fp8_dequantize_element<false>(0xFB, 2.0f), -114688.0f);
  EXPECT_BITS(reciprocal_rn(3.0f), F(0x3EAAAAAB));
}

// ---- numerics §3, §5 ---------------------------------------------------------------------------

TEST(NumericsTables, Nvfp4EncodeScale) {
  EXPECT_BITS(nvfp4_encode_scale(0.0f), 1.0f);
  EXPECT_BITS(nvfp4_encode_scale(-0.0f), 1.0f);
  EXPECT_BITS(nvfp4_encode_scale(kInf), 1.0f);  // 2688 / inf = 0 -> 1
  EXPECT_BITS(nvfp4_encode_scale(kNaN), kMax);  // fminf drops the NaN quotient
  EXPECT_BITS(nvfp4_encode_scale(2688.0f), 1.0f);
  EXPECT_BITS(nvfp4_encode_scale(1.0f), 2688.0f);
  EXPECT_BITS(nvfp4_encode_scale(448.0f), 6.0f);
  EXPECT_BITS(nvfp4_encode_scale(7.0f), 384.0f);
  EXPECT_BITS(nvfp4_encode_scale(100.5f), F(0x41D5F85C));  // RN(2688 / 100.5)
  EXPECT_BITS(nvfp4_encode_scale(F(1)), kMax);             // 2688 / 2^-149 overflows
}

TEST(NumericsTables, Nvfp4EncodeScalePerTokenFloor) {
  const float floor_scale = F(0x5918CB8C);  // RN(2688 / fp32(1e-12)) = 2.688e15
  EXPECT_BITS(nvfp4_encode_scale_per_token(0.0f), floor_scale);  // zero row does not get 1.0
  EXPECT_BITS(nvfp4_encode_scale_per_token(kNaN), floor_scale);  // NaN amax -> 1e-12
  EXPECT_BITS(nvfp4_encode_scale_per_token(1e-13f), floor_scale);
  EXPECT_BITS(nvfp4_encode_scale_per_token(2.0f), 1344.0f);
  EXPECT_BITS(nvfp4_encode_scale_per_token(kInf), 1.0f);
}

TEST(NumericsTables, Nvfp4BlockScale) {
  // S_enc = 2688 (A = 1): 2688 * fp32(1/6) = 448 exactly in fp32.
  EXPECT_EQ(nvfp4_block_scale(1.0f, 2688.0f), 0x7E);
  EXPECT_EQ(nvfp4_block_scale(0.5f, 2688.0f), 0x76);  // 224 = 1.75 * 2^7
  EXPECT_EQ(nvfp4_block_scale(0.0f, 2688.0f), 0x00);
  // S_enc = 1 (A = 2688), b = 1e-3: 1.67e-4 < 2^-10 -> the scale underflows to 0.
  EXPECT_EQ(nvfp4_block_scale(1e-3f, 1.0f), 0x00);
  // NaN and inf block amax: fminf(NaN, FLT_MAX) = FLT_MAX -> E4M3 satfinite 448.
  EXPECT_EQ(nvfp4_block_scale(kNaN, 2688.0f), 0x7E);
  EXPECT_EQ(nvfp4_block_scale(kInf, 2688.0f), 0x7E);
  EXPECT_EQ(nvfp4_block_scale(3.0f, kMax), 0x7E);  // product overflows to inf -> FLT_MAX
  // Order: S_enc * (1/6) first. A = 100.5, S_enc = 0x41D5F85C, b = 0x4016C000:
  // b * (S_enc * (1/6)) = 0x41280001 (just above the E4M3 tie 10|11 -> 11 = 0x53);
  // (b * S_enc) * (1/6) and (b * S_enc) / 6 give 0x41280000 = 10.5 -> tie to even 10 = 0x52.
  EXPECT_EQ(nvfp4_block_scale(F(0x4016C000), F(0x41D5F85C)), 0x53);
}

TEST(NumericsTables, Nvfp4Multipliers) {
  // Exact cases: S_enc = 4, s = 2.0 (0x40): 1 / (2 * 0.25) = 2 and 4 / 2 = 2.
  EXPECT_BITS(nvfp4_multiplier_per_tensor(0x40, 4.0f), 2.0f);
  EXPECT_BITS(nvfp4_multiplier_per_token(0x40, 4.0f), 2.0f);
  EXPECT_BITS(nvfp4_multiplier_per_tensor(0x38, 1.0f), 1.0f);
  // S_enc = 2688, s = 448: S_dec = RN(1/2688) = 0x39C30C31; 1 / (448 * S_dec) = 6.
  EXPECT_BITS(nvfp4_multiplier_per_tensor(0x7E, 2688.0f), 6.0f);
  EXPECT_BITS(nvfp4_multiplier_per_token(0x7E, 2688.0f), 6.0f);
  // The variants differ: S_enc = 384 (A = 7), s = 0x05 = 5 * 2^-9.
  // per-tensor: S_dec = RN(1/384), 1 / RN(s * S_dec) = 0x47199999; per-token: RN(384 / s) = 0x4719999A.
  EXPECT_BITS(nvfp4_multiplier_per_tensor(0x05, 384.0f), F(0x47199999));
  EXPECT_BITS(nvfp4_multiplier_per_token(0x05, 384.0f), F(0x4719999A));
  // s = 0: per-tensor 1 / 0 = inf -> FLT_MAX; per-token 0.
  EXPECT_BITS(nvfp4_multiplier_per_tensor(0x00, 384.0f), kMax);
  EXPECT_BITS(nvfp4_multiplier_per_token(0x00, 384.0f), 0.0f);
}

// The division-free per-token multiplier (the CUDA encode's) == the division it replaces, and
// the block scale factor from the shifted S_enc == the direct one. Every step is normal for every
// S_enc and scale code, so rounding depends on the mantissas alone: all 2^23 S_enc mantissas
// against the 8 mantissas a UE4M3 scale can have; then every scale code at the extreme and
// sample S_enc the per-token recipe can produce.
TEST(NumericsTables, Nvfp4PreparedPerTokenMultiplierEqualsDivision) {
  const auto prepared = [](float s_enc, float fs) {
    return nvfp4_multiplier_per_token_prepared(nvfp4_token_scale_prepared(s_enc), nvfp4_token_reciprocal_prepared(fs),
                                               nvfp4_token_divisor_prepared(fs));
  };
  uint64_t mismatches = 0;
  for (uint32_t m = 0; m < 8; ++m) {
    const float fs = 1.0f + static_cast<float>(m) / 8.0f;
    for (uint32_t mant = 0; mant < (1u << 23); ++mant) {
      const float s_enc = float_of(0x3F800000u | mant);
      mismatches += bits_of(prepared(s_enc, fs)) != bits_of(nvfp4_multiplier_per_token_of(fs, s_enc));
      if (m == 0)  // the encode also recovers S_enc * (1/6) from the shifted S_enc
        mismatches += bits_of(nvfp4_block_scale_factor_prepared(nvfp4_token_scale_prepared(s_enc))) !=
                      bits_of(nvfp4_block_scale_factor(s_enc));
    }
  }
  EXPECT_EQ(mismatches, 0u);
  const float amaxes[] = {0.0f, 1e-12f, 1e-30f, 3e-7f, 1.0f, 6.0f, 1000.0f, 1e30f, 3e34f, kMax, kInf, kNaN};
  for (const float amax : amaxes) {
    const float s_enc = nvfp4_encode_scale_per_token(amax);
    EXPECT_BITS(nvfp4_block_scale_factor_prepared(nvfp4_token_scale_prepared(s_enc)), nvfp4_block_scale_factor(s_enc));
    for (uint32_t s = 0; s < 0x7F; ++s)
      EXPECT_BITS(prepared(s_enc, decode_e4m3(static_cast<uint8_t>(s))), nvfp4_multiplier_per_token(static_cast<uint8_t>(s), s_enc))
          << "amax " << amax << ", scale code " << s;
  }
}

TEST(NumericsTables, Nvfp4DequantizeOrder) {
  // e2m1(q) * ((float(s) * A) * fp32(1/2688)).
  EXPECT_BITS(nvfp4_dequantize(7, 0x7E, 2688.0f), 2688.0f);  // 6 * 448 * 2688 / 2688
  EXPECT_BITS(nvfp4_dequantize(15, 0x7E, 2688.0f), -2688.0f);
  EXPECT_BITS(nvfp4_dequantize(0, 0x7E, 2688.0f), 0.0f);
  EXPECT_BITS(nvfp4_dequantize(8, 0x7E, 2688.0f), -0.0f);
  // A = 7, s = 0x07 (7 * 2^-9), q = 1.5: the numerics order gives 0x38600001, ((q*s)*A)*(1/2688) 0x38600000.
  EXPECT_BITS(nvfp4_dequantize(3, 0x07, 7.0f), F(0x38600001));
  // A = 5, s = 0x07, q = 0.5: the numerics order gives 0x37555556, q*(s*(A/2688)) gives 0x37555555.
  EXPECT_BITS(nvfp4_dequantize(1, 0x07, 5.0f), F(0x37555556));
}

}  // namespace
