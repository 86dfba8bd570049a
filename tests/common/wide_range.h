// Wide-range inputs for 4over6 with 16x16 tiles (numerics §5c), shared by the CPU test against
// Transformer Engine's reference rule (cpu_nvfp4_four_over_six_te_test) and the GPU == CPU test
// (nvfp4_quantize_gpu_test), so the GPU runs the very inputs whose columnwise choices the CPU test
// shows to depend on summing each tile in xᵀ's rows.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/fuzz_values.h"

namespace lowp_test {

// x = randn * exp(4 * randn), rounded to t (fp32 or bf16; fp16 would overflow): many tiles whose
// two 4over6 errors are within rounding of each other.
inline std::vector<uint8_t> wide_range_tensor(lowp_dtype t, int64_t rows, int64_t cols, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (float& f : v) {
    const double g = rng.gaussian();
    f = static_cast<float>(g * std::exp(4.0 * rng.gaussian()));
  }
  return encode(v, t);
}

// The cases: every shape x dtype x (error measure, E), seeds kWideRangeSeed + n in this order.
struct WideRangeShape {
  int64_t rows, cols;
};
struct WideRangeSetting {
  bool mse;
  float e;  // four_over_six_scale_max: 448 or 256
};
inline constexpr WideRangeShape kWideRangeShapes[] = {{512, 512}, {1024, 1536}};
inline constexpr lowp_dtype kWideRangeDtypes[] = {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_BFLOAT16};
inline constexpr WideRangeSetting kWideRangeSettings[] = {{false, 448.0f}, {true, 448.0f}, {false, 256.0f}, {true, 256.0f}};
inline constexpr uint64_t kWideRangeSeed = 0x7e4f6u;

// Calls f(shape, dtype, setting, seed) for every case.
template <typename F>
void for_each_wide_range_case(F f) {
  uint64_t seed = kWideRangeSeed;
  for (const WideRangeShape& s : kWideRangeShapes)
    for (lowp_dtype dt : kWideRangeDtypes)
      for (const WideRangeSetting& st : kWideRangeSettings) f(s, dt, st, seed++);
}

// Tiles of a 2D copy pair (compact scale layouts) whose columnwise scale is not the rowwise one
// transposed: the tiles where the two copies chose differently.
inline int64_t untransposed_tiles(const std::vector<uint8_t>& row_s, const std::vector<uint8_t>& col_s, int64_t rows,
                                  int64_t cols) {
  const int64_t row_c = (cols / 16 + 3) / 4 * 4, col_c = (rows / 16 + 3) / 4 * 4;
  int64_t n = 0;
  for (int64_t ti = 0; ti < rows / 16; ++ti)
    for (int64_t tj = 0; tj < cols / 16; ++tj) n += row_s[ti * 16 * row_c + tj] != col_s[tj * 16 * col_c + ti];
  return n;
}

}  // namespace lowp_test
