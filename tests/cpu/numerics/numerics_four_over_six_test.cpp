// numerics §5c: the encoders' shortcut to a 4over6 candidate's decoded values
// (nvfp4_four_over_six_bases / _value_of_bases) against the rule itself
// (nvfp4_four_over_six_value), bit for bit, over every block scale code and outer amaxes of every
// exponent, wherever the shortcut says it is exact.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "numerics/convert.h"
#include "numerics/minifloat.h"
#include "numerics/nvfp4_four_over_six.h"

namespace {

using namespace lowp::num;

// Outer amaxes: every exponent (subnormals included) with mantissas 0, all ones and random, plus
// 0, inf and NaN.
std::vector<float> outer_amaxes() {
  std::vector<float> a = {0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
  std::mt19937 rng(43);
  for (uint32_t e = 0; e < 255; ++e)
    for (const uint32_t m : {uint32_t{0}, uint32_t{0x7FFFFF}, static_cast<uint32_t>(rng() & 0x7FFFFFu),
                             static_cast<uint32_t>(rng() & 0x7FFFFFu)})
      if (e != 0 || m != 0) a.push_back(float_of((e << 23) | m));
  return a;
}

// The encoders' b / 6 for 16-bit inputs is div_rn's on every bf16 and fp16 value, bit for bit
// (NaNs: both NaN).
TEST(NumericsFourOverSix, SixthOf16BitEqualsTheDivisionOnEveryValue) {
  int64_t differ = 0, fast = 0;
  for (uint32_t h = 0; h < 0x10000; ++h)
    for (const float b : {bf16_to_f32(static_cast<uint16_t>(h)), f16_to_f32(static_cast<uint16_t>(h))}) {
      const float got = nvfp4_four_over_six_sixth_of_16bit(b), want = div_rn(b, 6.0f);
      fast += b >= 0x1p-100f && b <= 0x1p126f;
      if (want != want ? got == got : bits_of(got) != bits_of(want)) ++differ;
    }
  EXPECT_EQ(differ, 0);
  EXPECT_GT(fast, 60000);  // most values take the product, not the division
}

TEST(NumericsFourOverSix, ValuesFromBasesEqualTheRuleWhereExact) {
  int64_t exact = 0, differs_outside = 0;
  for (const float outer_max : {kNvfp4OuterMax, 1536.0f})
    for (uint32_t s = 0; s < 0x7F; ++s)  // every finite non-negative E4M3 scale code
      for (const float amax : outer_amaxes()) {
        const float fs = decode_e4m3(static_cast<uint8_t>(s));
        const Nvfp4FourOverSixBases b = nvfp4_four_over_six_bases(fs, amax, outer_max);
        bool all_equal = true;
        for (uint32_t code = 0; code < 8; ++code) {
          const float rule = nvfp4_four_over_six_value(static_cast<uint8_t>(code), fs, amax, outer_max);
          const float fast = nvfp4_four_over_six_value_of_bases(code, b);
          all_equal = all_equal && bits_of(fast) == bits_of(rule);
          if (b.exact) {
            ASSERT_EQ(bits_of(fast), bits_of(rule))
                << "code " << code << " fs " << fs << " amax " << amax << " (0x" << std::hex << bits_of(amax)
                << ") outer_max " << outer_max;
          }
        }
        exact += b.exact;
        differs_outside += !b.exact && !all_equal;
        // Every ordinary block is exact: a normal scale code and an amax far from the range's ends.
        if (s >= 8 && amax >= 0x1p-90f && amax <= 0x1p90f) {
          EXPECT_TRUE(b.exact) << fs << " " << amax;
        }
      }
  EXPECT_GT(exact, 0);
  EXPECT_GT(differs_outside, 0) << "the guard excludes cases the shortcut gets wrong";
}

}  // namespace
