// The fp64 products the GEMM view measures against, from the unquantized tensors.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace lowp_cli {

// x (rows x cols, row-major) widened to double, as is (transpose false) or transposed (cols x rows).
std::vector<double> to_double(std::span<const float> x, int64_t rows, int64_t cols, bool transpose);

// D = A . B^T in double (A: m x k, B: n x k, both row-major; D: m x n), rows of D split over the
// hardware threads. Each product of two fp32 values is exact in double and the sums keep about
// 2^-50 relative error, far below any quantization error.
std::vector<double> product_abt(std::span<const double> a, std::span<const double> b, int64_t m, int64_t n, int64_t k);

}  // namespace lowp_cli
