#include "columnwise.h"

#include <cmath>
#include <stdexcept>

namespace lowp_cli {
namespace {

constexpr int64_t kBlock = 16;

// numerics §7: flip element i when bit i of the mask is set, then butterflies of stride 1, 2, 4, 8.
// In double: its rounding error (about 2^-50 relative) is far below any FP4 error.
void rht16_times_quarter(double v[kBlock], uint32_t sign_mask) {
  for (int i = 0; i < kBlock; ++i)
    if ((sign_mask >> i) & 1u) v[i] = -v[i];
  for (int h = 1; h < kBlock; h <<= 1)
    for (int i = 0; i < kBlock; ++i)
      if ((i & h) == 0) {
        const double a = v[i], b = v[i + h];
        v[i] = a + b;
        v[i + h] = a - b;
      }
  for (int i = 0; i < kBlock; ++i) v[i] *= 0.25;
}

}  // namespace

std::vector<double> columnwise_reference(std::span<const float> x, int64_t rows, int64_t cols, bool rht,
                                         uint32_t sign_mask) {
  if (static_cast<int64_t>(x.size()) != rows * cols) throw std::logic_error("columnwise_reference: size mismatch");
  if (rht && rows % kBlock != 0) throw std::logic_error("columnwise_reference: RHT needs rows % 16 == 0");
  std::vector<double> t(x.size());
  for (int64_t c = 0; c < cols; ++c) {
    double* row_t = t.data() + c * rows;
    for (int64_t r = 0; r < rows; ++r) row_t[r] = x[static_cast<size_t>(r * cols + c)];
    if (rht)
      for (int64_t r = 0; r < rows; r += kBlock) rht16_times_quarter(row_t + r, sign_mask);
  }
  return t;
}

double clipped_block_fraction(std::span<const double> ref, int64_t ref_cols, double outer_amax) {
  if (ref_cols <= 0 || ref_cols % kBlock != 0 || ref.size() % static_cast<size_t>(ref_cols) != 0)
    throw std::logic_error("clipped_block_fraction: bad shape");
  const size_t blocks = ref.size() / kBlock;
  if (blocks == 0) return 0;
  size_t clipped = 0;
  for (size_t k = 0; k < blocks; ++k) {
    double b = 0;
    for (size_t i = 0; i < kBlock; ++i) b = std::fmax(b, std::fabs(ref[k * kBlock + i]));
    clipped += b > outer_amax;
  }
  return static_cast<double>(clipped) / static_cast<double>(blocks);
}

}  // namespace lowp_cli
