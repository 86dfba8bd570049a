// Byte-exact comparison that reports where it fails (ARCHITECTURE.md "Tests"), and output
// poisoning to prove that a call wrote nothing (or everything).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace lowp_test {

// Describes the input(s) behind output element (r, c), e.g. "x[3][5]=-inf"; may be empty.
using InputDescriber = std::function<std::string(int64_t r, int64_t c)>;

inline std::string hex_bytes(const uint8_t* p, size_t n) {
  std::string s = "0x";
  char buf[4];
  for (size_t i = n; i-- > 0;) {  // little-endian: print most significant byte first
    std::snprintf(buf, sizeof buf, "%02X", p[i]);
    s += buf;
  }
  return s;
}

// got/want hold rows x cols elements of elem_bytes each, row-major. On mismatch reports the
// first differing element as (row, col), both values in hex, the input there, and the count.
inline ::testing::AssertionResult bytes_equal(const void* got, const void* want, int64_t rows,
                                              int64_t cols, size_t elem_bytes = 1,
                                              const char* what = "",
                                              const InputDescriber& input = {}) {
  const auto* g = static_cast<const uint8_t*>(got);
  const auto* w = static_cast<const uint8_t*>(want);
  const size_t n = static_cast<size_t>(rows * cols);
  size_t first = n, count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(g + i * elem_bytes, w + i * elem_bytes, elem_bytes) != 0) {
      if (first == n) first = i;
      ++count;
    }
  }
  if (count == 0) return ::testing::AssertionSuccess();
  const int64_t r = static_cast<int64_t>(first) / cols, c = static_cast<int64_t>(first) % cols;
  auto res = ::testing::AssertionFailure();
  res << what << (*what ? " " : "") << count << " of " << n << " elements differ; first at ["
      << r << "][" << c << "] of " << rows << "x" << cols << ": got "
      << hex_bytes(g + first * elem_bytes, elem_bytes) << ", want "
      << hex_bytes(w + first * elem_bytes, elem_bytes);
  if (input) res << " (input " << input(r, c) << ")";
  return res;
}

inline ::testing::AssertionResult bytes_equal(const std::vector<uint8_t>& got,
                                              const std::vector<uint8_t>& want, int64_t rows,
                                              int64_t cols, const char* what = "",
                                              size_t elem_bytes = 1) {
  if (got.size() != want.size() || got.size() != static_cast<size_t>(rows * cols) * elem_bytes)
    return ::testing::AssertionFailure() << what << " size mismatch: got " << got.size()
                                         << " bytes, want " << want.size() << ", shape "
                                         << rows << "x" << cols;
  return bytes_equal(got.data(), want.data(), rows, cols, elem_bytes, what);
}

// Float buffers compared by bit pattern (so NaN == NaN with the same bits, -0 != +0).
inline ::testing::AssertionResult float_bits_equal(const float* got, const float* want, size_t n,
                                                   const char* what = "") {
  return bytes_equal(got, want, 1, static_cast<int64_t>(n), sizeof(float), what);
}

constexpr uint8_t kPoison = 0xA5;  // as fp32 0xA5A5A5A5 = -2.9e-16; as E4M3 -0.0273

inline void poison(void* p, size_t n, uint8_t pattern = kPoison) {
  if (n != 0) std::memset(p, pattern, n);  // an empty vector's data() may be NULL: memset(NULL, .., 0) is UB
}

// Every byte of p[0..n) still holds `pattern`; reports the first byte that does not.
inline ::testing::AssertionResult untouched(const void* p, size_t n, const char* what = "",
                                            uint8_t pattern = kPoison) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i] != pattern)
      return ::testing::AssertionFailure() << what << " byte " << i << " of " << n
                                           << " was written: " << hex_bytes(b + i, 1);
  return ::testing::AssertionSuccess();
}

}  // namespace lowp_test
