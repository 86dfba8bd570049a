#include "metrics.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "numerics/convert.h"
#include "numerics/nvfp4_four_over_six.h"

namespace lowp_cli {
namespace {

template <typename T>
ErrorStats error_stats_of(std::span<const T> x, std::span<const float> xhat) {
  if (x.size() != xhat.size()) throw std::logic_error("error_stats: size mismatch");
  double signal = 0, noise = 0, max_err = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double d = v - static_cast<double>(xhat[i]);
    signal += v * v;
    noise += d * d;
    const double a = std::fabs(d);
    if (!(a <= max_err)) max_err = a;  // written so that NaN sticks
  }
  constexpr double inf = std::numeric_limits<double>::infinity();
  ErrorStats s;
  s.max_abs_err = max_err;
  if (noise == 0) {
    s.snr_db = inf;
    s.rel_l2 = 0;
  } else {
    s.snr_db = signal == 0 ? -inf : 10.0 * std::log10(signal / noise);
    s.rel_l2 = signal == 0 ? inf : std::sqrt(noise / signal);
  }
  return s;
}

}  // namespace

ErrorStats error_stats(std::span<const float> x, std::span<const float> xhat) { return error_stats_of(x, xhat); }
ErrorStats error_stats(std::span<const double> x, std::span<const float> xhat) { return error_stats_of(x, xhat); }

double peak_to_rms(std::span<const float> x) {
  double peak = 0, sum_sq = 0;
  for (const float f : x) {
    const double a = std::fabs(static_cast<double>(f));
    if (!(a <= peak)) peak = a;  // NaN sticks
    sum_sq += a * a;
  }
  if (sum_sq == 0) return 0.0;  // also the empty tensor
  return peak / std::sqrt(sum_sq / static_cast<double>(x.size()));
}

double clipped_percent(std::span<const uint8_t> codes, lowp_dtype code_dtype, std::span<const float> x,
                       std::span<const float> xhat) {
  if (x.size() != xhat.size()) throw std::logic_error("clipped_percent: size mismatch");
  if (x.empty()) return 0;
  auto at_max = [&](size_t i) -> bool {
    switch (code_dtype) {
      case LOWP_DTYPE_E4M3: return (codes[i] & 0x7F) == 0x7E;  // 448 (0x7F is NaN)
      case LOWP_DTYPE_E5M2: return (codes[i] & 0x7F) == 0x7B;  // 57344 (0x7C is inf)
      case LOWP_DTYPE_E2M1: return ((codes[i / 2] >> (4 * (i % 2))) & 0x7) == 0x7;  // 6; element 2j in bits 3:0
      default: throw std::logic_error("clipped_percent: not a quantized dtype");
    }
  };
  int64_t clipped = 0;
  for (size_t i = 0; i < x.size(); ++i)
    clipped += at_max(i) && std::fabs(x[i]) > std::fabs(xhat[i]);
  return 100.0 * static_cast<double>(clipped) / static_cast<double>(x.size());
}

NonFiniteCounts count_nonfinite(std::span<const float> x) {
  NonFiniteCounts n;
  for (const float f : x) {
    n.nan += std::isnan(f);
    n.inf += std::isinf(f);
  }
  return n;
}

double map4_fraction(std::span<const float> x, int64_t rows, int64_t cols, std::span<const uint8_t> scales,
                     std::span<const float> amax, float outer_max, bool tiles_2d) {
  const int64_t blocks = cols / 16, scale_cols = (blocks + 3) / 4 * 4;
  if (rows == 0 || blocks == 0) return 0;
  int64_t map4 = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const float s_enc = lowp::num::nvfp4_encode_scale(amax[amax.size() == 1 ? 0 : i], outer_max);
    for (int64_t jb = 0; jb < blocks; ++jb) {
      uint32_t bits = 0;  // the block's (2D: its tile's) amax
      const int64_t r0 = tiles_2d ? i / 16 * 16 : i, r1 = tiles_2d ? r0 + 16 : i + 1;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = jb * 16; c < jb * 16 + 16; ++c) bits = lowp::num::amax_bits_fold(bits, x[r * cols + c]);
      const lowp::num::Nvfp4ScaleCandidates cand = lowp::num::nvfp4_four_over_six_scales(lowp::num::float_of(bits), s_enc);
      map4 += cand.s4 != cand.s6 && scales[i * scale_cols + jb] == cand.s4;
    }
  }
  return static_cast<double>(map4) / static_cast<double>(rows * blocks);
}

}  // namespace lowp_cli
