// Concurrent calls on the CPU backend (run under ThreadSanitizer in the tsan build,
// LOWP_SANITIZE=thread): fuzzed calls of every entry point from several threads at once, each
// checked as the fuzzer checks it (its own message after its own call), per-thread messages
// under interleaving, and the same call from many threads giving the same bytes.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/fuzz_values.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

constexpr int kThreads = 8;

TEST(Threads, FuzzedCallsOfEveryEntryPointConcurrently) {
  std::vector<const EntryPoint*> eps;
  for (const EntryPoint& e : entry_points()) eps.push_back(&e);
  std::mutex m;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 20 * eps.size(); ++i) {
        const CallId id = call_id(eps, 0x7EAD0000 + t, i);
        const Judgement j = fuzz_one(*id.entry, id.draw_seed, host_memory());
        if (j.kind == Judgement::kFail) {
          std::lock_guard<std::mutex> lock(m);
          failures.push_back(std::string(id.entry->name) + ": " + j.detail);
        }
      }
    });
  for (auto& th : threads) th.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
}

// Threads fail with different arguments in lock step; each reads its own message.
TEST(Threads, EachThreadReadsItsOwnMessage) {
  std::barrier sync(kThreads);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      float h[4] = {}, s[1] = {1}, si[1] = {1};
      for (int round = 0; round < 1000; ++round) {
        sync.arrive_and_wait();
        std::string want;
        lowp_status st;
        if ((t + round) % 3 == 0) {
          st = lowp_fp8_delayed_scaling_update(1, 4, h, s, si, LOWP_DTYPE_E4M3, 100 + t, LOWP_AMAX_ALGO_MAX, nullptr);
          want = "margin";
        } else if ((t + round) % 3 == 1) {
          st = lowp_fp8_delayed_scaling_update(-1 - t, 4, h, s, si, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr);
          want = "num_tensors";
        } else {
          st = lowp_fp8_delayed_scaling_update(1, 4, h, s, si, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr);
        }
        sync.arrive_and_wait();  // every thread has made its call before any reads its message
        const std::string msg = lowp_get_last_error();
        const bool ok = want.empty() ? st == LOWP_SUCCESS && msg.empty()
                                     : st == LOWP_ERROR_INVALID_ARGUMENT && msg.find(want) != std::string::npos;
        if (!ok) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

// One NVFP4 per-token quantize (RHT, stochastic rounding, both copies) from every thread at once,
// each into its own outputs: all equal to the result of one thread alone.
TEST(Threads, TheSameCallFromEveryThreadGivesTheSameBytes) {
  constexpr int64_t kRows = 64, kCols = 96;
  const std::vector<uint8_t> x_bytes =
      lowp_test::fuzz_tensor(LOWP_DTYPE_BFLOAT16, kRows, kCols, lowp_test::Fill::kMixed, 42);
  const uint64_t rng_state[2] = {1234, 5};
  lowp_quantized_sizes sz;
  ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, kRows, kCols, &sz), LOWP_SUCCESS);
  struct Out {
    std::vector<uint8_t> data[2], scales[2];
    std::vector<float> amax[2];
  };
  auto quantize = [&](Out& o) {
    lowp_tensor x{const_cast<uint8_t*>(x_bytes.data()), LOWP_DTYPE_BFLOAT16, kRows, kCols};
    lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
    q.rows = kRows, q.cols = kCols;
    lowp_quantized_part* parts[2] = {&q.rowwise, &q.columnwise};
    for (int i = 0; i < 2; ++i) {
      o.data[i].assign(sz.data_bytes[i], 0);
      o.scales[i].assign(sz.scale_inv_bytes[i], 0);
      o.amax[i].assign(sz.amax_bytes[i] / 4, 0.0f);
      *parts[i] = {o.data[i].data(), o.scales[i].data(), o.amax[i].data()};
    }
    lowp_quant_config cfg;
    lowp_quant_config_default(&cfg);
    cfg.rht = 1;
    cfg.stochastic_rounding = 1;
    cfg.rng_state = rng_state;
    return lowp_quantize(&x, &q, &cfg, nullptr);
  };
  Out ref;
  ASSERT_EQ(quantize(ref), LOWP_SUCCESS) << lowp_get_last_error();
  std::vector<Out> outs(kThreads);
  std::vector<lowp_status> st(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { st[t] = quantize(outs[t]); });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(st[t], LOWP_SUCCESS) << "thread " << t;
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(outs[t].data[i], ref.data[i]) << "thread " << t << " copy " << i;
      EXPECT_EQ(outs[t].scales[i], ref.scales[i]) << "thread " << t << " copy " << i;
      EXPECT_EQ(0, std::memcmp(outs[t].amax[i].data(), ref.amax[i].data(), 4 * ref.amax[i].size()));
    }
  }
}

}  // namespace
}  // namespace lowp_fuzz
