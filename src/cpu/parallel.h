// Splits [0, n) into contiguous chunks over the hardware threads. Small ranges run inline.
#pragma once
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace lowp::cpu {

template <typename Fn>
void parallel_for(int64_t n, int64_t min_chunk, Fn fn) {
  const int64_t hw = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t chunks = std::min<int64_t>(hw, std::max<int64_t>(1, n / std::max<int64_t>(1, min_chunk)));
  if (chunks <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  std::vector<std::thread> workers;
  const int64_t step = (n + chunks - 1) / chunks;
  for (int64_t b = 0; b < n; b += step) workers.emplace_back(fn, b, std::min(n, b + step));
  for (auto& w : workers) w.join();
}

}  // namespace lowp::cpu
