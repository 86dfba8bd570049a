// Grouped FP8 on the GPU == the CPU backend, byte for byte: fuzzed groups (random N, member
// shapes, empty members, adversarial values), layouts in host and device memory, every recipe
// and orientation, backward dact casts; the regressions of TE PR #3102 (N > 64, the amax race,
// the gradient's layout); device-side layout errors write nothing; graph capture.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"
#include "common/grouped_outputs.h"
#include "device_buffer.h"

namespace lowp_test {
namespace {

struct Group {
  lowp_dtype dtype;
  std::vector<int64_t> first, last, offsets;
  int64_t total = 0;
  std::vector<uint8_t> data;  // total elements of dtype
};

// Random members; `same_last` gives MoE-style splits (same K, varying rows). Gaps between members
// and empty members are included; values fuzzed per member.
Group make_group(lowp_dtype dt, int64_t n, bool same_last, int64_t max_rows, int64_t max_cols, Rng& rng) {
  Group g{dt, {}, {}, {}, 0, {}};
  const int64_t k = 1 + rng.below(static_cast<uint32_t>(max_cols));
  for (int64_t t = 0; t < n; ++t) {
    const bool empty = rng.below(8) == 0;
    const int64_t f = empty ? 0 : 1 + rng.below(static_cast<uint32_t>(max_rows));
    const int64_t l = same_last ? k : (rng.below(10) == 0 ? 0 : 1 + rng.below(static_cast<uint32_t>(max_cols)));
    g.total += rng.below(3) == 0 ? rng.below(9) : 0;  // occasional gap
    g.first.push_back(f);
    g.last.push_back(l);
    g.offsets.push_back(g.total);
    g.total += f * l;
  }
  g.total += rng.below(5);  // slack at the end
  g.data.resize(static_cast<size_t>(g.total) * dtype_size(dt));
  for (int64_t t = 0; t < n; ++t) {
    if (g.first[t] * g.last[t] == 0) continue;
    const auto m = fuzz_tensor(dt, g.first[t], g.last[t], kAllFills[rng.below(7)], rng.next());
    std::memcpy(&g.data[g.offsets[t] * dtype_size(dt)], m.data(), m.size());
  }
  return g;
}

struct Outputs {
  std::vector<uint8_t> row, col;
  std::vector<float> scale, scale_inv, amax;
};

struct Options {
  lowp_scaling scaling = LOWP_SCALING_DELAYED;
  lowp_dtype out = LOWP_DTYPE_E4M3;
  bool row = true, col = true;
  int act = -1;
  const Group* act_input = nullptr;  // same layout as the group
  bool device_layout = false;
};

std::vector<float> initial_scales(int64_t n) {
  std::vector<float> s(n);
  for (int64_t t = 0; t < n; ++t) s[t] = 0.25f + 0.5f * static_cast<float>(t % 7);
  return s;
}

lowp_status call(const Options& o, const lowp_grouped_tensor* x, const void* act_in, lowp_grouped_quantized_tensor* q,
                 void* ws, size_t ws_bytes, void* stream) {
  if (o.act < 0) return lowp_grouped_quantize(x, q, nullptr, ws, ws_bytes, stream);
  return lowp_grouped_quantize_dact(x, act_in, static_cast<lowp_activation>(o.act), q, nullptr, ws, ws_bytes, stream);
}

Outputs run_cpu(const Group& g, const Options& o) {
  const int64_t n = static_cast<int64_t>(g.first.size());
  Outputs r{std::vector<uint8_t>(o.row ? g.total : 0, kPoison), std::vector<uint8_t>(o.col ? g.total : 0, kPoison),
            initial_scales(n), std::vector<float>(n, -1.0f), std::vector<float>(n, 0.5f)};
  lowp_grouped_tensor x{const_cast<uint8_t*>(g.data.data()), g.dtype, n, g.total, g.first.data(), g.last.data(), g.offsets.data()};
  lowp_grouped_quantized_tensor q = grouped_outputs(o.out, o.scaling, n, o.row ? r.row.data() : nullptr,
                                                    o.col ? r.col.data() : nullptr, r.scale.data(), r.scale_inv.data(),
                                                    r.amax.data(), 1);
  EXPECT_EQ(call(o, &x, o.act_input ? o.act_input->data.data() : nullptr, &q, nullptr, 0, nullptr), LOWP_SUCCESS)
      << lowp_get_last_error();
  return r;
}

Outputs run_gpu(const Group& g, const Options& o, int64_t* layout_status = nullptr) {
  const int64_t n = static_cast<int64_t>(g.first.size());
  size_t ws_bytes = 0;
  EXPECT_EQ(lowp_grouped_workspace_size(n, &ws_bytes), LOWP_SUCCESS);
  DeviceBuffer dx(g.data.size() + 1), dact(g.data.size() + 1), drow(g.total + 1), dcol(g.total + 1);
  DeviceBuffer dscale(n * 4), dsinv(n * 4), damax(n * 4), dws(ws_bytes), dfirst(n * 8), dlast(n * 8), doff(n * 8);
  dx.upload(g.data.data());
  if (o.act_input) dact.upload(o.act_input->data.data());
  const auto s0 = initial_scales(n);
  const std::vector<float> a0(n, 0.5f);
  dscale.upload(s0.data());
  damax.upload(a0.data());
  dfirst.upload(g.first.data());
  dlast.upload(g.last.data());
  doff.upload(g.offsets.data());
  lowp_grouped_tensor x{dx.get(), g.dtype, n, g.total, g.first.data(), g.last.data(), g.offsets.data()};
  if (o.device_layout) {
    x.first_dims = static_cast<const int64_t*>(dfirst.get());
    x.last_dims = static_cast<const int64_t*>(dlast.get());
    x.offsets = static_cast<const int64_t*>(doff.get());
  }
  lowp_grouped_quantized_tensor q = grouped_outputs(o.out, o.scaling, n, o.row ? drow.get() : nullptr,
                                                    o.col ? dcol.get() : nullptr, dscale.f32(), dsinv.f32(), damax.f32(), 1);
  EXPECT_EQ(call(o, &x, o.act_input ? dact.get() : nullptr, &q, dws.get(), ws_bytes, nullptr), LOWP_SUCCESS)
      << lowp_get_last_error();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (layout_status) {
    EXPECT_EQ(lowp_grouped_layout_error(dws.get(), layout_status, nullptr), LOWP_SUCCESS);
  }
  Outputs r;
  if (o.row) {
    r.row = drow.download();
    r.row.resize(g.total);
  }
  if (o.col) {
    r.col = dcol.download();
    r.col.resize(g.total);
  }
  r.scale = dscale.download_f32();
  r.scale_inv = dsinv.download_f32();
  r.amax = damax.download_f32();
  return r;
}

// Number of mismatching buffers between the backends (0 = byte-exact).
int compare(const Group& g, const Options& o, const std::string& what) {
  const Outputs c = run_cpu(g, o), d = run_gpu(g, o);
  const size_t n = g.first.size();
  int bad = 0;
  auto check = [&](::testing::AssertionResult r) {
    if (!r) ++bad;
    EXPECT_TRUE(r) << what;
  };
  // Codes compared over the whole buffer: gaps must stay poisoned on both.
  if (o.row) check(bytes_equal(d.row.data(), c.row.data(), 1, g.total, 1, "rowwise codes"));
  if (o.col) check(bytes_equal(d.col.data(), c.col.data(), 1, g.total, 1, "columnwise codes"));
  check(float_bits_equal(d.scale.data(), c.scale.data(), n, "scale"));
  check(float_bits_equal(d.scale_inv.data(), c.scale_inv.data(), n, "scale_inv"));
  check(float_bits_equal(d.amax.data(), c.amax.data(), n, "amax"));
  return bad;
}

TEST(GroupedFp8Gpu, ByteExactAgainstCpuOnFuzzedGroups) {
  LOWP_REQUIRE_GPU();
  Rng rng(2024);
  int cases = 0, bad = 0;
  for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32})
    for (lowp_scaling sc : {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT})
      for (int variant = 0; variant < (quick_mode() ? 3 : 12); ++variant) {
        const bool same_last = variant % 2 == 0;
        const int64_t n = 1 + rng.below(variant < 6 ? 12 : 90);
        const Group g = make_group(dt, n, same_last, variant < 6 ? 300 : 40, variant < 6 ? 400 : 96, rng);
        Options o;
        o.scaling = sc;
        o.out = variant % 3 == 0 ? LOWP_DTYPE_E5M2 : LOWP_DTYPE_E4M3;
        o.row = variant % 4 != 1;
        o.col = variant % 4 != 2;
        o.device_layout = variant % 2 == 1;
        bad += compare(g, o, "variant " + std::to_string(variant) + " n " + std::to_string(n));
        ++cases;
      }
  std::printf("[grouped fp8 gpu==cpu] %d fuzzed groups, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(GroupedFp8Gpu, BackwardDactByteExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  Rng rng(77);
  int cases = 0, bad = 0;
  for (int act : {LOWP_ACTIVATION_GELU_TANH, LOWP_ACTIVATION_SILU, LOWP_ACTIVATION_RELU})
    for (lowp_scaling sc : {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT}) {
      const Group grad = make_group(LOWP_DTYPE_BFLOAT16, 1 + rng.below(20), true, 200, 256, rng);
      Group act_in = grad;  // the gradient's layout, other values
      act_in.data = fuzz_tensor(LOWP_DTYPE_BFLOAT16, 1, grad.total, Fill::kGaussian, rng.next());
      Options o;
      o.scaling = sc;
      o.act = act;
      o.act_input = &act_in;
      o.device_layout = true;
      bad += compare(grad, o, "act " + std::to_string(act));
      ++cases;
    }
  std::printf("[grouped dact gpu==cpu] %d groups, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(GroupedFp8Gpu, ManyMembersBeyondSixtyFour) {
  LOWP_REQUIRE_GPU();
  Rng rng(65);
  int bad = 0;
  for (int64_t n : {int64_t{65}, int64_t{257}, int64_t{4096}, int64_t{10000}}) {
    const Group g = make_group(LOWP_DTYPE_BFLOAT16, n, n % 2 == 1, 5, 48, rng);
    Options o;
    o.scaling = LOWP_SCALING_CURRENT;
    o.device_layout = true;
    bad += compare(g, o, "n " + std::to_string(n));
  }
  std::printf("[grouped fp8 N up to 10000] %d mismatching buffers\n", bad);
  EXPECT_EQ(bad, 0);
}

// The amax race of the published kernel: each member's maximum sits in a different place
// (different rows, so different warps and tiles); hundreds of repetitions must all equal the CPU.
TEST(GroupedFp8Gpu, AmaxHasNoRaceAcrossRepetitions) {
  LOWP_REQUIRE_GPU();
  const int64_t n = 96, rows = 300, cols = 128;  // each member spans 3 row tiles
  Group g{LOWP_DTYPE_FLOAT32, {}, {}, {}, 0, {}};
  std::vector<float> v(n * rows * cols);
  Rng rng(9);
  for (auto& x : v) x = static_cast<float>(rng.gaussian());
  for (int64_t t = 0; t < n; ++t) {
    g.first.push_back(rows);
    g.last.push_back(cols);
    g.offsets.push_back(t * rows * cols);
    const int64_t pos = (t * 7919) % (rows * cols);  // spread across rows, warps and tiles
    v[t * rows * cols + pos] = 100.0f + static_cast<float>(t);
  }
  g.total = n * rows * cols;
  g.data.resize(v.size() * 4);
  std::memcpy(g.data.data(), v.data(), g.data.size());
  std::vector<float> want(n);
  lowp_grouped_tensor hx{g.data.data(), g.dtype, n, g.total, g.first.data(), g.last.data(), g.offsets.data()};
  ASSERT_EQ(lowp_grouped_amax(&hx, want.data(), 1, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  size_t ws_bytes = 0;
  ASSERT_EQ(lowp_grouped_workspace_size(n, &ws_bytes), LOWP_SUCCESS);
  DeviceBuffer dx(g.data.size()), da(n * 4), dws(ws_bytes), dfirst(n * 8), dlast(n * 8), doff(n * 8);
  dx.upload(g.data.data());
  dfirst.upload(g.first.data());
  dlast.upload(g.last.data());
  doff.upload(g.offsets.data());
  lowp_grouped_tensor gx{dx.get(), g.dtype, n, g.total, static_cast<const int64_t*>(dfirst.get()),
                         static_cast<const int64_t*>(dlast.get()), static_cast<const int64_t*>(doff.get())};
  const int reps = quick_mode() ? 20 : 300;
  int bad = 0;
  for (int rep = 0; rep < reps; ++rep) {
    ASSERT_EQ(lowp_grouped_amax(&gx, da.f32(), 1, dws.get(), ws_bytes, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    const auto got = da.download_f32();
    bad += !float_bits_equal(got.data(), want.data(), n, "grouped amax");
  }
  std::printf("[grouped amax race] %d repetitions, %d mismatching\n", reps, bad);
  EXPECT_EQ(bad, 0);
}

TEST(GroupedFp8Gpu, BadDeviceLayoutWritesNothingAndIsReported) {
  LOWP_REQUIRE_GPU();
  const int64_t n = 6;
  Group g{LOWP_DTYPE_BFLOAT16, std::vector<int64_t>(n, 8), std::vector<int64_t>(n, 16), {}, n * 128, {}};
  for (int64_t t = 0; t < n; ++t) g.offsets.push_back(t * 128);
  g.offsets[4] = g.offsets[3] + 8;  // member 4 starts inside member 3
  g.data = fuzz_tensor(LOWP_DTYPE_BFLOAT16, n, 128, Fill::kGaussian, 3);
  size_t ws_bytes = 0;
  ASSERT_EQ(lowp_grouped_workspace_size(n, &ws_bytes), LOWP_SUCCESS);
  DeviceBuffer dx(g.data.size()), drow(g.total), dscale(n * 4), dsinv(n * 4), damax(n * 4), dws(ws_bytes);
  DeviceBuffer dfirst(n * 8), dlast(n * 8), doff(n * 8);
  dx.upload(g.data.data());
  dfirst.upload(g.first.data());
  dlast.upload(g.last.data());
  doff.upload(g.offsets.data());
  lowp_grouped_tensor x{dx.get(), g.dtype, n, g.total, static_cast<const int64_t*>(dfirst.get()),
                        static_cast<const int64_t*>(dlast.get()), static_cast<const int64_t*>(doff.get())};
  lowp_grouped_quantized_tensor q =
      grouped_outputs(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, n, drow.get(), nullptr, dscale.f32(), dsinv.f32(), damax.f32(), 1);
  ASSERT_EQ(lowp_grouped_quantize(&x, &q, nullptr, dws.get(), ws_bytes, nullptr), LOWP_SUCCESS);
  int64_t status = -1;
  ASSERT_EQ(lowp_grouped_layout_error(dws.get(), &status, nullptr), LOWP_SUCCESS);
  EXPECT_EQ(status, 5) << "member 4 (index + 1) should be reported";
  const auto row = drow.download(), sinv = dsinv.download(), amax = damax.download(), scale = dscale.download();
  EXPECT_TRUE(untouched(row.data(), row.size(), "codes"));
  EXPECT_TRUE(untouched(sinv.data(), sinv.size(), "scale_inv"));
  EXPECT_TRUE(untouched(amax.data(), amax.size(), "amax"));
  EXPECT_TRUE(untouched(scale.data(), scale.size(), "scale"));
  // The status is copied to host memory: a device bad_member_plus_one is rejected, not written.
  DeviceBuffer dstatus(8);
  EXPECT_EQ(lowp_grouped_layout_error(dws.get(), static_cast<int64_t*>(dstatus.get()), nullptr),
            LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("bad_member_plus_one is in device memory"), std::string::npos)
      << lowp_get_last_error();
  EXPECT_TRUE(untouched(dstatus.download().data(), 8, "device status"));
}

TEST(GroupedFp8Gpu, GraphReplayWithDeviceLayoutEqualsEager) {
  LOWP_REQUIRE_GPU();
  Rng rng(31);
  const Group g = make_group(LOWP_DTYPE_BFLOAT16, 40, true, 100, 256, rng);
  const int64_t n = 40;
  size_t ws_bytes = 0;
  ASSERT_EQ(lowp_grouped_workspace_size(n, &ws_bytes), LOWP_SUCCESS);
  DeviceBuffer dx(g.data.size()), drow(g.total), dcol(g.total), dscale(n * 4), dsinv(n * 4), damax(n * 4), dws(ws_bytes);
  DeviceBuffer dfirst(n * 8), dlast(n * 8), doff(n * 8);
  dx.upload(g.data.data());
  dfirst.upload(g.first.data());
  dlast.upload(g.last.data());
  doff.upload(g.offsets.data());
  lowp_grouped_tensor x{dx.get(), g.dtype, n, g.total, static_cast<const int64_t*>(dfirst.get()),
                        static_cast<const int64_t*>(dlast.get()), static_cast<const int64_t*>(doff.get())};
  lowp_grouped_quantized_tensor q = grouped_outputs(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, n, drow.get(), dcol.get(),
                                                    dscale.f32(), dsinv.f32(), damax.f32(), 1);
  cudaStream_t s;
  LOWP_CUDA_OK(cudaStreamCreate(&s));
  ASSERT_EQ(lowp_grouped_quantize(&x, &q, nullptr, dws.get(), ws_bytes, s), LOWP_SUCCESS) << lowp_get_last_error();
  LOWP_CUDA_OK(cudaStreamSynchronize(s));
  const auto eager_row = drow.download(), eager_col = dcol.download(), eager_sinv = dsinv.download();
  poison_device(drow.get(), g.total);
  poison_device(dcol.get(), g.total);
  poison_device(dsinv.get(), n * 4);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  LOWP_CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  ASSERT_EQ(lowp_grouped_quantize(&x, &q, nullptr, dws.get(), ws_bytes, s), LOWP_SUCCESS) << lowp_get_last_error();
  LOWP_CUDA_OK(cudaStreamEndCapture(s, &graph));
  LOWP_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  LOWP_CUDA_OK(cudaGraphLaunch(exec, s));
  LOWP_CUDA_OK(cudaStreamSynchronize(s));
  EXPECT_TRUE(bytes_equal(drow.download(), eager_row, 1, g.total, "graph rowwise"));
  EXPECT_TRUE(bytes_equal(dcol.download(), eager_col, 1, g.total, "graph columnwise"));
  EXPECT_TRUE(bytes_equal(dsinv.download(), eager_sinv, 1, n * 4, "graph scale_inv"));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace lowp_test
