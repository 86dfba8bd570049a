// The API-contract reproducers, kept as regression tests: calls the header allows (or rejects) that
// once aborted, hung, wrote outside a buffer, overflowed or loaded an out-of-range enum. Each
// test fails on the library before its fix (an abort, a hang, a canary changed, or a message
// that does not name the rule). Every buffer sits between canaries that must stay untouched.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/grouped_outputs.h"
#include "lowp/gemm.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

constexpr int64_t kHuge40 = int64_t{1} << 40, kHuge62 = int64_t{1} << 62;

// `Payload` between two poisoned canaries; the canaries must never be written.
template <typename Payload>
struct Guarded {
  uint8_t before[64];
  Payload p;
  uint8_t after[64];
  template <typename... Args>
  explicit Guarded(Args... args) : p{args...} {
    poison(before, sizeof before);
    poison(after, sizeof after);
  }
  ::testing::AssertionResult canaries_intact() const {
    auto r = untouched(before, sizeof before, "canary before");
    return r ? untouched(after, sizeof after, "canary after") : r;
  }
};

// A group of one empty member `f x l` (header: a member may be empty) in an empty buffer.
struct EmptyMemberGroup {
  alignas(16) float x[4];  // data must not be NULL; total_elements 0: nothing in it is read
  alignas(16) uint8_t row[4], col[4];
  float scale[1] = {1.0f}, scale_inv[1], amax[1];
  alignas(16) float out[4];
  int64_t first[1], last[1], offsets[1] = {0};

  EmptyMemberGroup(int64_t f, int64_t l) : first{f}, last{l} {}
  lowp_grouped_tensor input() { return {x, LOWP_DTYPE_FLOAT32, 1, 0, first, last, offsets}; }
  lowp_grouped_tensor output() { return {out, LOWP_DTYPE_FLOAT32, 1, 0, first, last, offsets}; }
  lowp_grouped_quantized_tensor quantized(lowp_scaling s) {
    return grouped_outputs(LOWP_DTYPE_E4M3, s, 1, row, col, scale, scale_inv, amax, 1);
  }
};

struct EmptyShape {
  int64_t f, l;
};
const EmptyShape kEmptyShapes[] = {{kHuge40, 0}, {0, kHuge40}, {kHuge62, 0}, {0, kHuge62}};

// Quantize, amax and dequantize of an empty member cost nothing whatever its other
// dimension (before: std::bad_alloc crossed the C ABI, or a loop over 2^40 empty rows).
TEST(ApiContractRegression, GroupedEmptyMemberWithHugeOtherDimensionCostsNothing) {
  for (const EmptyShape& s : kEmptyShapes) {
    SCOPED_TRACE(std::to_string(s.f) + " x " + std::to_string(s.l));
    for (lowp_scaling scaling : {LOWP_SCALING_CURRENT, LOWP_SCALING_DELAYED}) {
      Guarded<EmptyMemberGroup> g(s.f, s.l);
      lowp_grouped_tensor x = g.p.input();
      lowp_grouped_quantized_tensor q = g.p.quantized(scaling);
      ASSERT_EQ(lowp_grouped_quantize(&x, &q, nullptr, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_EQ(g.p.amax[0], 0.0f);  // an empty member's amax is 0 (current: written; delayed: max(old 0, 0))
      EXPECT_EQ(g.p.scale_inv[0], 1.0f);
      ASSERT_EQ(lowp_grouped_quantize_dact(&x, g.p.x, LOWP_ACTIVATION_SILU, &q, nullptr, nullptr, 0, nullptr),
                LOWP_SUCCESS)
          << lowp_get_last_error();
      ASSERT_EQ(lowp_grouped_amax(&x, g.p.amax, 1, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_EQ(g.p.amax[0], 0.0f);
      lowp_grouped_tensor out = g.p.output();
      for (lowp_orientation w : {LOWP_ROWWISE, LOWP_COLUMNWISE})
        ASSERT_EQ(lowp_grouped_dequantize(&q, w, &out, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_TRUE(g.canaries_intact());
    }
  }
}

// Two 1x4 members at 0 and 4 of an 8-element group, with an amax array of 2 floats.
struct TwoMembers {
  alignas(16) float x[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  alignas(16) uint8_t row[8];
  float scale[2] = {1, 1}, scale_inv[2];
  float amax[2];
  int64_t first[2] = {1, 1}, last[2] = {4, 4}, offsets[2] = {0, 4};
  lowp_grouped_tensor input() { return {x, LOWP_DTYPE_FLOAT32, 2, 8, first, last, offsets}; }
};

// amax_stride bounded before any pointer arithmetic (before: INT64_MAX wrapped to
// amax - 1 and wrote the float before the buffer, reporting success; 2^61 segfaulted).
TEST(ApiContractRegression, AmaxStrideIsBoundedByTheElementRule) {
  for (int64_t stride : {INT64_MAX, int64_t{1} << 61, int64_t{1} << 56}) {
    SCOPED_TRACE(stride);
    Guarded<TwoMembers> g{};
    poison(g.p.amax, sizeof g.p.amax);
    lowp_grouped_tensor x = g.p.input();
    EXPECT_EQ(lowp_grouped_amax(&x, g.p.amax, stride, nullptr, 0, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(lowp_get_last_error()).find("amax_stride"), std::string::npos) << lowp_get_last_error();
    EXPECT_TRUE(untouched(g.p.amax, sizeof g.p.amax, "amax"));

    lowp_grouped_quantized_tensor q = grouped_outputs(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 2, g.p.row, nullptr,
                                                      g.p.scale, g.p.scale_inv, g.p.amax, stride);
    EXPECT_EQ(lowp_grouped_quantize(&x, &q, nullptr, nullptr, 0, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(lowp_get_last_error()).find("q->amax_stride"), std::string::npos) << lowp_get_last_error();
    EXPECT_TRUE(untouched(g.p.amax, sizeof g.p.amax, "amax"));
    EXPECT_TRUE(g.canaries_intact());
  }
  // The largest stride the rule allows for 2 members is accepted (amax spans (N-1)*stride + 1 floats).
  Guarded<TwoMembers> g{};
  lowp_grouped_tensor x = g.p.input();
  EXPECT_EQ(lowp_grouped_amax(&x, g.p.amax, 1, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(g.p.amax[0], 4.0f);
  EXPECT_EQ(g.p.amax[1], 8.0f);
}

// The swizzle's size check neither overflows (128 * 2^56) nor reports two distinct
// buffers as overlapping; a scale array over 2^56 bytes is rejected as such.
TEST(ApiContractRegression, SwizzleSizeCheckIsBoundedWithoutOverflow) {
  Guarded<uint8_t[512]> a{}, b{};
  poison(a.p, sizeof a.p);
  poison(b.p, sizeof b.p);
  for (const auto& [rows, blocks] : {std::pair<int64_t, int64_t>{1, int64_t{1} << 56}, {1, int64_t{1} << 54},
                                     {int64_t{1} << 56, 1}, {(int64_t{1} << 30) + 1, int64_t{1} << 26}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(blocks));
    EXPECT_EQ(lowp_nvfp4_swizzle_scales(a.p, b.p, rows, blocks, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
    const std::string msg = lowp_get_last_error();
    EXPECT_EQ(msg.find("overlap"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2^56"), std::string::npos) << msg;
  }
  EXPECT_TRUE(untouched(a.p, sizeof a.p) && untouched(b.p, sizeof b.p));
  EXPECT_TRUE(a.canaries_intact() && b.canaries_intact());
}

// An enum parameter or member holding a value outside its enum is read as an int,
// rejected, and named as such (UBSan's -fsanitize=enum finds no load of it in the library).
TEST(ApiContractRegression, OutOfRangeEnumsAreRejectedByName) {
  alignas(16) float x[16 * 16] = {};
  alignas(16) uint8_t codes[256];
  float scale = 1, scale_inv, amax;
  lowp_tensor t = {x, LOWP_DTYPE_FLOAT32, 16, 16};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.rows = q.cols = 16;
  q.rowwise.data = codes;
  q.scale = &scale;
  q.scale_inv = &scale_inv;
  q.amax = &amax;
  int bad = 42;
  std::memcpy(&q.scaling, &bad, sizeof bad);  // as a C caller would store it
  EXPECT_EQ(lowp_quantize(&t, &q, nullptr, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("q->scaling is 42 (not a lowp_scaling)"), std::string::npos)
      << lowp_get_last_error();

  q.scaling = LOWP_SCALING_CURRENT;
  bad = 99;
  std::memcpy(&t.dtype, &bad, sizeof bad);
  EXPECT_EQ(lowp_quantize(&t, &q, nullptr, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("x->dtype is 99 (not a lowp_dtype)"), std::string::npos)
      << lowp_get_last_error();

  t.dtype = LOWP_DTYPE_FLOAT32;
  lowp_orientation which;
  bad = 7;
  std::memcpy(&which, &bad, sizeof bad);
  lowp_tensor out = {x, LOWP_DTYPE_FLOAT32, 16, 16};
  EXPECT_EQ(lowp_dequantize(&q, which, &out, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("which is 7 (not a lowp_orientation)"), std::string::npos)
      << lowp_get_last_error();

  lowp_status status;
  bad = 77;
  std::memcpy(&status, &bad, sizeof bad);
  EXPECT_STREQ(lowp_status_name(status), "LOWP_STATUS_UNKNOWN");
}

// Sanitizer runtimes reserve terabytes of address space: RLIMIT_AS cannot model out of memory there.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define LOWP_TEST_ADDRESS_LIMIT 1
#endif

#ifdef LOWP_TEST_ADDRESS_LIMIT
// Current virtual memory of this process, from /proc/self/statm (pages).
size_t virtual_bytes() {
  unsigned long pages = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
  std::fclose(f);
  return pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Caps the address space 32 MiB above its current size, runs lowp_amax_per_token on x (1 x n)
// into col_amax and exits with its status (a death test's child).
[[noreturn]] void amax_per_token_capped(std::vector<float>& x, std::vector<float>& col_amax) {
  lowp_tensor t = {x.data(), LOWP_DTYPE_FLOAT32, 1, static_cast<int64_t>(x.size())};
  const rlimit cap = {virtual_bytes() + (size_t{32} << 20), RLIM_INFINITY};
  setrlimit(RLIMIT_AS, &cap);
  const lowp_status s = lowp_amax_per_token(&t, nullptr, col_amax.data(), nullptr);
  std::fprintf(stderr, "%s: %s\n", lowp_status_name(s), lowp_get_last_error());
  _exit(static_cast<int>(s));
}


// The same for lowp_gemm's CPU reference: a (16 x K) and b (16 x K) FP8 operands whose decoded
// floats (2 x 64 MiB) cannot be allocated; exits with the status.
[[noreturn]] void gemm_capped(std::vector<uint8_t>& codes, std::vector<uint16_t>& d) {
  constexpr int64_t kK = int64_t{1} << 20;
  static float scale_inv = 1.0f;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = LOWP_SCALING_CURRENT;
  q.rows = 16;
  q.cols = kK;
  q.rowwise.data = codes.data();
  q.scale_inv = &scale_inv;
  lowp_tensor out = {d.data(), LOWP_DTYPE_BFLOAT16, 16, 16};
  const rlimit cap = {virtual_bytes() + (size_t{32} << 20), RLIM_INFINITY};
  setrlimit(RLIMIT_AS, &cap);
  const lowp_status s = lowp_gemm(&q, LOWP_ROWWISE, &q, LOWP_ROWWISE, &out, nullptr, nullptr, 0, nullptr);
  const bool untouched_d = std::all_of(d.begin(), d.end(), [](uint16_t v) { return v == 0xA5A5; });
  std::fprintf(stderr, "%s: %s%s\n", lowp_status_name(s), lowp_get_last_error(),
               untouched_d ? "" : " (d was written)");
  _exit(untouched_d ? static_cast<int>(s) : 100);
}

#endif

// No C++ exception crosses the C ABI: out of memory in the CPU backend is a status with a message
// (before: std::bad_alloc escaped lowp_amax_per_token and terminated the process). Run in a
// child whose address space is capped 32 MiB above its current size; the call's 64 MiB of column
// scratch then cannot be allocated.
TEST(ApiContractRegression, OutOfMemoryIsAStatusNotAnException) {
#ifndef LOWP_TEST_ADDRESS_LIMIT
  GTEST_SKIP() << "sanitizer runtimes reserve address space; RLIMIT_AS cannot model out of memory there";
#else
  constexpr int64_t kCols = int64_t{1} << 24;  // 64 MiB of fp32, and 64 MiB of column amax scratch
  std::vector<float> x(kCols, 1.0f), col_amax(kCols);
  EXPECT_EXIT(amax_per_token_capped(x, col_amax), ::testing::ExitedWithCode(LOWP_ERROR_OUT_OF_MEMORY),
              "lowp_amax_per_token: out of host memory");
#endif
}

// The CPU GEMM's scratch allocation failing is out of memory, as lowp.h says, nothing written
// (before: LOWP_ERROR_UNSUPPORTED).
TEST(ApiContractRegression, GemmOutOfMemoryIsOutOfMemory) {
#ifndef LOWP_TEST_ADDRESS_LIMIT
  GTEST_SKIP() << "sanitizer runtimes reserve address space; RLIMIT_AS cannot model out of memory there";
#else
  std::vector<uint8_t> codes(size_t{16} << 20, 0x38);  // 16 x 2^20 E4M3 codes of 1.0
  std::vector<uint16_t> d(256, 0xA5A5);
  EXPECT_EXIT(gemm_capped(codes, d), ::testing::ExitedWithCode(LOWP_ERROR_OUT_OF_MEMORY),
              "LOWP_ERROR_OUT_OF_MEMORY: lowp_gemm: out of host memory");
#endif
}

}  // namespace
