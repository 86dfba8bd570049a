// numerics §6 scale-factor layouts: padded compact sizes and the swizzled byte offset
// ((i/128)*(C/4) + j/4)*512 + (i%32)*16 + ((i%128)/32)*4 + (j%4), C = roundup(B,4).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "numerics/swizzle.h"

namespace {

using namespace lowp::num;

TEST(NumericsSwizzle, RoundUpAndPaddedSizes) {
  EXPECT_EQ(round_up(0, 4), 0);
  EXPECT_EQ(round_up(1, 4), 4);
  EXPECT_EQ(round_up(4, 4), 4);
  EXPECT_EQ(round_up(5, 128), 128);
  EXPECT_EQ(round_up(129, 128), 256);
  EXPECT_EQ(scale_rows_padded(1), 128);
  EXPECT_EQ(scale_rows_padded(128), 128);
  EXPECT_EQ(scale_rows_padded(129), 256);
  EXPECT_EQ(scale_cols_padded(0), 0);
  EXPECT_EQ(scale_cols_padded(1), 4);
  EXPECT_EQ(scale_cols_padded(4), 4);
  EXPECT_EQ(scale_cols_padded(5), 8);
  EXPECT_EQ(scale_rows_padded(int64_t{1} << 40), int64_t{1} << 40);  // 64-bit sizes
}

TEST(NumericsSwizzle, HandComputedEntries) {
  struct C {
    int64_t i, j, cols, want;
  } cases[] = {
      {0, 0, 4, 0},
      {1, 0, 4, 16},      // (i%32)*16
      {32, 0, 4, 4},      // ((i%128)/32)*4
      {33, 2, 4, 22},     // 16 + 4 + 2
      {127, 3, 4, 511},   // 31*16 + 3*4 + 3: last byte of the first 512-byte tile
      {128, 0, 4, 512},   // next row tile
      {0, 4, 8, 512},     // next column tile
      {130, 5, 8, 1569},  // (1*2 + 1)*512 + 2*16 + 0 + 1
      {255, 7, 8, 2047},
      {200, 9, 12, 2697},  // (1*3 + 2)*512 + 8*16 + 2*4 + 1
  };
  for (const C& c : cases) {
    EXPECT_EQ(swizzled_offset(c.i, c.j, c.cols), c.want) << "(" << c.i << ", " << c.j << "), C " << c.cols;
  }
}

TEST(NumericsSwizzle, BijectionOnPaddedArray) {
  for (int64_t rows : {1, 127, 128, 129, 300}) {
    for (int64_t blocks : {1, 3, 4, 5, 17}) {
      const int64_t R = scale_rows_padded(rows), C = scale_cols_padded(blocks);
      std::vector<int> hits(static_cast<size_t>(R * C), 0);
      for (int64_t i = 0; i < R; ++i) {
        for (int64_t j = 0; j < C; ++j) {
          const int64_t o = swizzled_offset(i, j, C);
          ASSERT_TRUE(o >= 0 && o < R * C) << "(" << i << ", " << j << ") -> " << o << ", size " << R * C;
          ASSERT_EQ(hits[static_cast<size_t>(o)]++, 0)
              << "(" << i << ", " << j << ") -> " << o << " already taken; R " << R << " C " << C;
        }
      }
    }
  }
}

}  // namespace
