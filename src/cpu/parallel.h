// Splits [0, n) into contiguous chunks over the hardware threads. Small ranges run inline.
// A chunk that throws (std::bad_alloc) does not terminate the process: the first exception is
// rethrown in the caller after every worker has joined, for core/entry.h to turn into a status;
// a worker that cannot be started (std::system_error) runs its chunk inline instead.
#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
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
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto run = [&](int64_t b, int64_t e) {
    try {
      fn(b, e);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(chunks));
  const int64_t step = (n + chunks - 1) / chunks;
  for (int64_t b = 0; b < n; b += step) {
    try {
      workers.emplace_back(run, b, std::min(n, b + step));
    } catch (const std::system_error&) {
      run(b, std::min(n, b + step));
    }
  }
  for (auto& w : workers) w.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace lowp::cpu
