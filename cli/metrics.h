// Error metrics of a dequantized tensor against its original values.
#pragma once
#include <cstdint>
#include <span>

#include "lowp/lowp.h"

namespace lowp_cli {

struct ErrorStats {
  double snr_db = 0;       // 10 log10(sum x^2 / sum (x - xhat)^2); +inf when exact
  double rel_l2 = 0;       // sqrt(sum (x - xhat)^2 / sum x^2); 0 when exact
  double max_abs_err = 0;  // max |x - xhat|
};

// Sums in double so the metric's own rounding is far below any FP8 error. NaN inputs give NaN.
ErrorStats error_stats(std::span<const float> x, std::span<const float> xhat);
// The same against a double-precision reference (an exact transform of the input).
ErrorStats error_stats(std::span<const double> x, std::span<const float> xhat);

// max|x| / rms(x), the crest factor: about sqrt(2 ln n) for n Gaussian values (4.6 for 64K,
// 5.8 for 16M), far more with outliers. 0 for an all-zero tensor; NaN inputs give NaN.
double peak_to_rms(std::span<const float> x);

// Percent of the elements that clipped: coded at +-(the format's largest value: 448, 57344, 6)
// while |x| exceeds what that code dequantizes to, i.e. beyond the largest value their scale
// could represent. Rounding to the largest value is not clipping; NaN inputs never count.
// codes: rowwise codes of x (E4M3, E5M2; E2M1 packed two per byte); xhat: their dequantized values.
double clipped_percent(std::span<const uint8_t> codes, lowp_dtype code_dtype, std::span<const float> x,
                       std::span<const float> xhat);

// 4over6 (numerics §5c): the fraction of an NVFP4 rowwise copy's blocks that kept map-4, i.e.
// whose block scale is the map-4 candidate of their block (2D: 16x16 tile) amax and differs from
// the map-6 one. x: rows x cols input values; scales: the compact rowwise block scales
// [roundup(rows,128)][roundup(cols/16,4)]; amax: the copy's one outer amax, or one per row
// (row-scaled); outer_max: the recorded 6E.
double map4_fraction(std::span<const float> x, int64_t rows, int64_t cols, std::span<const uint8_t> scales,
                     std::span<const float> amax, float outer_max, bool tiles_2d);

// NaN and +-inf elements of x.
struct NonFiniteCounts {
  int64_t nan = 0;
  int64_t inf = 0;
};
NonFiniteCounts count_nonfinite(std::span<const float> x);

}  // namespace lowp_cli
