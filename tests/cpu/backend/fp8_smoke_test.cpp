#include <gtest/gtest.h>

#include <vector>

#include "lowp/lowp.h"

TEST(Fp8Smoke, CurrentScalingRoundTrip) {
  std::vector<float> x = {1.0f, -2.0f, 448.0f, 0.0f};
  std::vector<uint8_t> row(4), col(4);
  float scale = 0, scale_inv = 0, amax = 0;
  lowp_tensor t{x.data(), LOWP_DTYPE_FLOAT32, 2, 2};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = LOWP_SCALING_CURRENT;
  q.rows = 2;
  q.cols = 2;
  q.rowwise.data = row.data();
  q.columnwise.data = col.data();
  q.scale = &scale;
  q.scale_inv = &scale_inv;
  q.amax = &amax;
  ASSERT_EQ(lowp_quantize(&t, &q, nullptr, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(amax, 448.0f);
  EXPECT_EQ(scale, 1.0f);
  EXPECT_EQ(row[2], 0x7E);
  EXPECT_EQ(col[1], 0x7E);  // x[1][0] = 448 lands at xT[0][1]
}
