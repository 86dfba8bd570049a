// numerics §7 RHT16: y = H16 · diag(signs) · g with H16 the Sylvester-Hadamard matrix
// H[k][j] = (-1)^popcount(k & j), computed by fp32 butterflies of stride 1, 2, 4, 8.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "numerics/rht16.h"

namespace {

using lowp::num::bits_of;
using lowp::num::rht16_unnormalized;

// float64 matrix product, independent of the butterfly order.
void reference(const float in[16], uint32_t mask, double out[16]) {
  for (int k = 0; k < 16; ++k) {
    double acc = 0;
    for (int j = 0; j < 16; ++j) {
      const double x = ((mask >> j) & 1u) ? -static_cast<double>(in[j]) : in[j];
      acc += (std::popcount(static_cast<unsigned>(k & j)) & 1) ? -x : x;
    }
    out[k] = acc;
  }
}

TEST(NumericsRht, MatchesFloat64HadamardProduct) {
  std::mt19937 gen(1234);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::uniform_int_distribution<uint32_t> masks(0, 0xFFFF);
  for (int trial = 0; trial < 2000; ++trial) {
    float v[16], in[16];
    double sum_abs = 0;
    for (int i = 0; i < 16; ++i) {
      in[i] = v[i] = dist(gen) * std::ldexp(1.0f, trial % 40 - 20);
      sum_abs += std::fabs(in[i]);
    }
    const uint32_t mask = trial == 0 ? lowp::num::kDefaultRhtSignMask : masks(gen);
    double want[16];
    reference(in, mask, want);
    rht16_unnormalized(v, mask);
    // Four rounded additions, each off by at most 2^-24 of a partial sum <= sum|g|.
    const double tol = 4.0 * std::ldexp(1.0, -24) * sum_abs;
    for (int k = 0; k < 16; ++k) {
      ASSERT_LE(std::fabs(v[k] - want[k]), tol)
          << "trial " << trial << " mask 0x" << std::hex << mask << std::dec << " k " << k << ": got " << v[k]
          << ", want " << want[k];
    }
  }
}

TEST(NumericsRht, DefaultMask) { EXPECT_EQ(lowp::num::kDefaultRhtSignMask, 0xD7E8u); }

TEST(NumericsRht, HTimesHIsSixteenIdentity) {
  float v[16];
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i * i - 7 * i + 3);  // small integers: exact
  float want[16];
  for (int i = 0; i < 16; ++i) want[i] = 16.0f * v[i];
  rht16_unnormalized(v, 0);
  rht16_unnormalized(v, 0);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(v[i], want[i]) << "element " << i;
}

TEST(NumericsRht, SignMaskBitIFlipsElementIFirst) {
  // A unit vector e_j: output is ±row j of H, sign negative iff mask bit j is set.
  for (int j = 0; j < 16; ++j) {
    for (uint32_t mask : {0u, 1u << j, 0xFFFFu ^ (1u << j), 0xFFFFu}) {
      float v[16] = {};
      v[j] = 1.0f;
      rht16_unnormalized(v, mask);
      const float s = ((mask >> j) & 1u) ? -1.0f : 1.0f;
      for (int k = 0; k < 16; ++k) {
        const float h = (std::popcount(static_cast<unsigned>(k & j)) & 1) ? -1.0f : 1.0f;
        EXPECT_EQ(v[k], s * h) << "j " << j << " mask 0x" << std::hex << mask << std::dec << " k " << k;
      }
    }
  }
}

TEST(NumericsRht, ButterflyOrderWorkedVector) {
  // g = {2^24, 1, 0, 1, 0...}. Stride 1: (2^24+1 -> 2^24 by RNE, 2^24-1), (1, -1).
  // Stride 2: (2^24 + 1 -> 2^24, 2^24 - 1), (2^24-1 + -1, 2^24-1 - -1) = (2^24-2, 2^24).
  // Strides 4 and 8 copy the 4 values (the rest is 0). Stride 8 first would give 2^24+2 for y[0]
  // (the two 1s meet before 2^24), which is also the exact value.
  const float big = 16777216.0f;
  float v[16] = {big, 1.0f, 0.0f, 1.0f};
  rht16_unnormalized(v, 0);
  const float block[4] = {big, big - 2.0f, big - 1.0f, big};
  for (int k = 0; k < 16; ++k) EXPECT_EQ(bits_of(v[k]), bits_of(block[k % 4])) << "k " << k << ": " << v[k];

  // Same vector with mask bit 3: g3 flips to -1 before the butterflies.
  // Stride 1: (2^24, 2^24-1), (-1, 1). Stride 2: (2^24-1, 2^24+1 -> 2^24), (2^24, 2^24-2).
  float w[16] = {big, 1.0f, 0.0f, 1.0f};
  rht16_unnormalized(w, 1u << 3);
  const float block_m[4] = {big - 1.0f, big, big, big - 2.0f};
  for (int k = 0; k < 16; ++k) EXPECT_EQ(bits_of(w[k]), bits_of(block_m[k % 4])) << "k " << k << ": " << w[k];
}

}  // namespace
