#include "exact_product.h"

#include <algorithm>
#include <thread>

namespace lowp_cli {

std::vector<double> to_double(std::span<const float> x, int64_t rows, int64_t cols, bool transpose) {
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t to = transpose ? c * rows + r : r * cols + c;
      out[static_cast<size_t>(to)] = x[static_cast<size_t>(r * cols + c)];
    }
  return out;
}

std::vector<double> product_abt(std::span<const double> a, std::span<const double> b, int64_t m, int64_t n, int64_t k) {
  std::vector<double> d(static_cast<size_t>(m * n));
  auto rows = [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double* ai = a.data() + i * k;
        const double* bj = b.data() + j * k;
        double s[4] = {0, 0, 0, 0};  // four partial sums: independent adds pipeline
        int64_t t = 0;
        for (; t + 4 <= k; t += 4)
          for (int u = 0; u < 4; ++u) s[u] += ai[t + u] * bj[t + u];
        for (; t < k; ++t) s[0] += ai[t] * bj[t];
        d[static_cast<size_t>(i * n + j)] = (s[0] + s[1]) + (s[2] + s[3]);
      }
  };
  const int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, std::max<int64_t>(m, 1));
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t) pool.emplace_back(rows, m * t / threads, m * (t + 1) / threads);
  for (std::thread& th : pool) th.join();
  return d;
}

}  // namespace lowp_cli
