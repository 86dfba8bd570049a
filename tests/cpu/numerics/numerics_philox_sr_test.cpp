// numerics §7 stochastic rounding: Philox4x32-10 against Random123's known answers, the
// seed/offset/block -> key/counter mapping, the byte order, and the E2M1 SR rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>


#include "numerics/minifloat.h"
#include "numerics/stochastic_rounding.h"

namespace {

using namespace lowp::num;

// Random123 tests/kat_vectors, "philox4x32 10" lines: counter[4], key[2] -> output[4].
struct Kat {
  uint32_t ctr[4], key[2], out[4];
};
constexpr Kat kKats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

void expect_words(const uint4& got, const uint32_t want[4], const char* what) {
  const uint32_t g[4] = {got.x, got.y, got.z, got.w};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(g[i], want[i]) << what << " word " << i << std::hex << ": got 0x" << g[i] << ", want 0x" << want[i];
  }
}

TEST(NumericsPhilox, CurandMatchesRandom123KnownAnswers) {
  for (const Kat& k : kKats) {
    const uint4 ctr = make_uint4(k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]);
    expect_words(curand_Philox4x32_10(ctr, make_uint2(k.key[0], k.key[1])), k.out, "curand_Philox4x32_10");
  }
}

uint64_t join(uint32_t lo, uint32_t hi) { return (static_cast<uint64_t>(hi) << 32) | lo; }

TEST(NumericsPhilox, BlockBitsKeyCounterMapping) {
  // key = (lo32 seed, hi32 seed); counter = (lo32 b, hi32 b | col << 31, lo32 offset, hi32 offset).
  for (const Kat& k : kKats) {
    const uint64_t seed = join(k.key[0], k.key[1]);
    const uint64_t offset = join(k.ctr[2], k.ctr[3]);
    const uint64_t block = join(k.ctr[0], k.ctr[1]);
    expect_words(sr_block_bits(seed, offset, block, false), k.out, "rowwise");
    if (k.ctr[1] & 0x80000000u) {  // the same counter reached through the columnwise bit
      expect_words(sr_block_bits(seed, offset, block & ~(1ull << 63), true), k.out, "columnwise");
    }
  }
  // The columnwise bit changes the stream.
  const uint4 a = sr_block_bits(0, 0, 0, false), b = sr_block_bits(0, 0, 0, true);
  EXPECT_FALSE(a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w);
}

TEST(NumericsPhilox, ByteJIsByteJMod4OfWordJDiv4) {
  const uint4 r = make_uint4(0x03020100u, 0x07060504u, 0x0b0a0908u, 0x0f0e0d0cu);
  for (int j = 0; j < 16; ++j) EXPECT_EQ(sr_byte(r, j), static_cast<uint32_t>(j)) << "j " << j;
  // End to end on the pi vector: first word 0xd16cfe09 gives bytes 09 fe 6c d1.
  const uint4 pi = sr_block_bits(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull, false);
  const uint32_t want[16] = {0x09, 0xfe, 0x6c, 0xd1, 0xeb, 0xcc, 0xfd, 0x94,
                             0x20, 0xe4, 0x01, 0x50, 0xa1, 0x6e, 0x12, 0x24};
  for (int j = 0; j < 16; ++j) EXPECT_EQ(sr_byte(pi, j), want[j]) << "j " << j;
}

// ---- encode_e2m1_sr ------------------------------------------------------------------------

const float kE2M1[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

TEST(NumericsSr, HandCases) {
  struct C {
    float v;
    uint32_t r;
    int code;
  } cases[] = {
      // step 0.5 below 2: t = a + r/256 * 0.5
      {0.3f, 0, 0}, {0.3f, 255, 1}, {0.25f, 127, 0}, {0.25f, 128, 1}, {1.5f, 255, 3}, {1.99f, 255, 4},
      // step 1 in [2, 4)
      {2.0f, 255, 4}, {2.5f, 127, 4}, {2.5f, 128, 5}, {3.99f, 255, 6},
      // step 2 from 4, capped at 6
      {4.5f, 191, 6}, {4.5f, 192, 7}, {5.9f, 255, 7}, {7.0f, 0, 7}, {1e30f, 0, 7},
      {std::numeric_limits<float>::infinity(), 0, 7}, {-std::numeric_limits<float>::infinity(), 0, 15},
      // sign from v, zero magnitude keeps the sign
      {-0.3f, 255, 9}, {-0.3f, 0, 8}, {-0.0f, 255, 8}, {0.0f, 255, 0}, {-4.5f, 192, 15},
      // NaN as RN (code 7)
      {std::numeric_limits<float>::quiet_NaN(), 0, 7}, {-std::numeric_limits<float>::quiet_NaN(), 255, 7},
  };
  for (const C& c : cases) {
    EXPECT_EQ(static_cast<int>(encode_e2m1_sr(c.v, c.r)), c.code) << "v " << c.v << " r " << c.r;
  }
}

TEST(NumericsSr, RZeroTruncatesTowardZero) {
  for (int i = -1700; i <= 1700; ++i) {
    const float v = static_cast<float>(i) / 256.0f;  // [-6.64, 6.64], exact
    int mag = 0;
    for (int c = 0; c < 8; ++c) {
      if (kE2M1[c] <= std::fabs(v)) mag = c;
    }
    const int want = (i < 0 ? 8 : 0) | mag;
    EXPECT_EQ(static_cast<int>(encode_e2m1_sr(v, 0)), want) << "v " << v;
  }
}

// Over r = 0..255 the rounding-up count is floor(256 f) for v = g + f * step, so on the grid of
// step/256 the mean of the SR decodes equals v exactly, and elsewhere it is within step/256.
TEST(NumericsSr, MeanOverAllRIsUnbiased) {
  double sr_err = 0, rn_err = 0;
  int n = 0;
  for (int sign : {1, -1}) {
    for (int i = 0; i < 6 * 512; ++i) {
      const float a = static_cast<float>(i) / 512.0f;  // on the step/256 grid below 2, half of it in [2,4), a quarter in [4,6)
      const float v = static_cast<float>(sign) * a;
      const double step = a < 2 ? 0.5 : (a < 4 ? 1.0 : 2.0);
      double sum = 0;
      for (uint32_t r = 0; r < 256; ++r) sum += decode_e2m1(encode_e2m1_sr(v, r));
      const double mean = sum / 256.0;
      const double grid = step / 256.0;
      const bool on_grid = std::fmod(a, grid) == 0.0;
      if (on_grid) {
        ASSERT_EQ(mean, static_cast<double>(v)) << "v " << v;
      } else {
        ASSERT_LT(std::fabs(mean - v), grid) << "v " << v;
      }
      sr_err += std::fabs(mean - v);
      rn_err += std::fabs(decode_e2m1(encode_e2m1(v)) - v);
      ++n;
    }
  }
  EXPECT_LT(sr_err / n, rn_err / n / 10) << "mean |E[SR] - x| " << sr_err / n << " vs RN " << rn_err / n;
}

}  // namespace
