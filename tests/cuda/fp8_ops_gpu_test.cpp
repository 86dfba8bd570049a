// CUDA == CPU for the other FP8 operations (amax, per-token amax, dequantize, delayed-scaling
// update), plus the API rules only a GPU can exercise: host/device mixes are rejected with
// nothing written, and a quantize captured in a CUDA graph replays to the eager bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"
#include "device_buffer.h"

namespace lowp_test {
namespace {

const lowp_dtype kInputs[] = {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32};

TEST(Fp8OpsGpu, AmaxAndPerTokenAmaxMatchCpu) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 7;
  const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 65}, {128, 256}, {1000, 24}, {513, 1031}, {4096, 4096}};
  for (lowp_dtype in : kInputs)
    for (const auto& s : shapes)
      for (Fill f : kAllFills) {
        if (quick_mode() && f != Fill::kMixed) continue;
        const int64_t M = s[0], K = s[1];
        const auto x = fuzz_tensor(in, M, K, f, seed++);
        lowp_tensor hx{const_cast<uint8_t*>(x.data()), in, M, K};
        float camax = 0;
        std::vector<float> crow(M), ccol(K);
        ASSERT_EQ(lowp_amax(&hx, &camax, nullptr), LOWP_SUCCESS);
        ASSERT_EQ(lowp_amax_per_token(&hx, crow.data(), ccol.data(), nullptr), LOWP_SUCCESS);
        for (size_t mis : {size_t{0}, dtype_size(in)}) {
          DeviceBuffer dx(x.size(), mis), da(4), dr(M * 4), dc(K * 4);
          dx.upload(x.data());
          lowp_tensor gx{dx.get(), in, M, K};
          ASSERT_EQ(lowp_amax(&gx, da.f32(), nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          ASSERT_EQ(lowp_amax_per_token(&gx, dr.f32(), dc.f32(), nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          LOWP_CUDA_OK(cudaDeviceSynchronize());
          const auto ga = da.download_f32(), gr = dr.download_f32(), gc = dc.download_f32();
          bad += !float_bits_equal(ga.data(), &camax, 1, "amax");
          bad += !float_bits_equal(gr.data(), crow.data(), M, "row amax");
          bad += !float_bits_equal(gc.data(), ccol.data(), K, "col amax");
          EXPECT_TRUE(float_bits_equal(gr.data(), crow.data(), M, "row amax")) << M << "x" << K << " " << fill_name(f);
          EXPECT_TRUE(float_bits_equal(gc.data(), ccol.data(), K, "col amax")) << M << "x" << K << " " << fill_name(f);
          cases += 3;
        }
      }
  std::printf("[amax gpu==cpu] %d comparisons, %d mismatching\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(Fp8OpsGpu, DequantizeMatchesCpu) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  Rng rng(11);
  const int64_t shapes[][2] = {{1, 1}, {5, 17}, {64, 64}, {100, 48}, {257, 1024}};
  for (lowp_dtype fmt : {LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2})
    for (lowp_dtype out : kInputs)
      for (bool per_row : {false, true})
        for (const auto& s : shapes) {
          const int64_t M = s[0], K = s[1];
          std::vector<uint8_t> codes(M * K);  // every byte value, NaN codes included
          for (auto& c : codes) c = static_cast<uint8_t>(rng.next());
          std::vector<float> si(M);
          for (auto& v : si) v = static_cast<float>(rng.gaussian() * 100.0);
          si[0] = 1e-30f;
          if (M > 1) si[1] = NAN;  // a NaN scale_inv must give the same NaN bits on both backends
          const size_t ob = M * K * dtype_size(out);
          lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
          q.dtype = fmt;
          q.scaling = per_row ? LOWP_SCALING_PER_TOKEN : LOWP_SCALING_CURRENT;
          q.rows = M;
          q.cols = K;
          q.rowwise = {codes.data(), si.data(), nullptr};
          q.scale_inv = si.data();
          std::vector<uint8_t> cout(ob);
          lowp_tensor ho{cout.data(), out, M, K};
          ASSERT_EQ(lowp_dequantize(&q, LOWP_ROWWISE, &ho, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          DeviceBuffer dcodes(M * K), dsi(M * 4), dout(ob);
          dcodes.upload(codes.data());
          dsi.upload(si.data());
          q.rowwise = {dcodes.get(), dsi.get(), nullptr};
          q.scale_inv = dsi.f32();
          lowp_tensor go{dout.get(), out, M, K};
          ASSERT_EQ(lowp_dequantize(&q, LOWP_ROWWISE, &go, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          LOWP_CUDA_OK(cudaDeviceSynchronize());
          const auto got = dout.download();
          const auto r = bytes_equal(got.data(), cout.data(), M, K, dtype_size(out), "dequantized");
          bad += !r;
          EXPECT_TRUE(r) << "fmt " << fmt << " out " << out << " per_row " << per_row;
          ++cases;
        }
  std::printf("[dequantize gpu==cpu] %d cases, %d mismatching\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(Fp8OpsGpu, DelayedScalingUpdateMatchesCpu) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  Rng rng(5);
  for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{65}, int64_t{10000}})
    for (int64_t len : {int64_t{1}, int64_t{7}, int64_t{128}, int64_t{1024}})
      for (lowp_amax_algo algo : {LOWP_AMAX_ALGO_MAX, LOWP_AMAX_ALGO_MOST_RECENT})
        for (int margin : {0, 2}) {
          if (n * len > 2'000'000) continue;
          std::vector<float> h(n * len), scale(n), sinv(n, -1.0f);
          for (auto& v : h) {
            const uint32_t pick = rng.below(40);  // mostly positive amaxes; some 0, inf, NaN
            v = pick == 0 ? 0.0f : pick == 1 ? INFINITY : pick == 2 ? NAN : static_cast<float>(std::fabs(rng.gaussian()) * 1e3);
          }
          for (int64_t t = 0; t < n; ++t) {
            if (rng.below(10) == 0)
              for (int64_t i = 0; i < len; ++i) h[t * len + i] = 0.0f;  // all-zero history: scale kept
            scale[t] = static_cast<float>(rng.uniform() + 0.5);
          }
          DeviceBuffer dh(h.size() * 4), ds(n * 4), dsi(n * 4);
          dh.upload(h.data());
          ds.upload(scale.data());
          ASSERT_EQ(lowp_fp8_delayed_scaling_update(n, len, dh.f32(), ds.f32(), dsi.f32(), LOWP_DTYPE_E4M3, margin, algo, nullptr),
                    LOWP_SUCCESS) << lowp_get_last_error();
          ASSERT_EQ(lowp_fp8_delayed_scaling_update(n, len, h.data(), scale.data(), sinv.data(), LOWP_DTYPE_E4M3, margin, algo, nullptr),
                    LOWP_SUCCESS) << lowp_get_last_error();
          LOWP_CUDA_OK(cudaDeviceSynchronize());
          const auto gh = dh.download_f32(), gs = ds.download_f32(), gsi = dsi.download_f32();
          const bool ok = float_bits_equal(gh.data(), h.data(), h.size(), "history") &&
                          float_bits_equal(gs.data(), scale.data(), n, "scale") &&
                          float_bits_equal(gsi.data(), sinv.data(), n, "scale_inv");
          bad += !ok;
          EXPECT_TRUE(float_bits_equal(gs.data(), scale.data(), n, "scale")) << n << " tensors, len " << len;
          EXPECT_TRUE(float_bits_equal(gh.data(), h.data(), h.size(), "history")) << n << " tensors, len " << len;
          ++cases;
        }
  std::printf("[delayed update gpu==cpu] %d cases, %d mismatching\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(Fp8OpsGpu, HostDeviceMixIsRejectedAndWritesNothing) {
  LOWP_REQUIRE_GPU();
  const int64_t M = 32, K = 32;
  const auto x = fuzz_tensor(LOWP_DTYPE_BFLOAT16, M, K, Fill::kGaussian, 3);
  DeviceBuffer dx(x.size()), dcodes(M * K), dscale(4), dsinv(4), damax(4);
  dx.upload(x.data());
  std::vector<uint8_t> host_codes(M * K, kPoison);
  float host_amax = 0.0f;
  lowp_tensor gx{dx.get(), LOWP_DTYPE_BFLOAT16, M, K};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = LOWP_SCALING_CURRENT;
  q.rows = M;
  q.cols = K;
  q.rowwise.data = host_codes.data();  // host output with a device input
  q.scale = dscale.f32();
  q.scale_inv = dsinv.f32();
  q.amax = damax.f32();
  EXPECT_EQ(lowp_quantize(&gx, &q, nullptr, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("q->rowwise.data"), std::string::npos) << lowp_get_last_error();
  EXPECT_TRUE(untouched(host_codes.data(), host_codes.size(), "host codes"));
  const auto amax_bytes = damax.download();
  EXPECT_TRUE(untouched(amax_bytes.data(), 4, "device amax"));
  EXPECT_EQ(lowp_amax(&gx, &host_amax, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(host_amax, 0.0f);
}

TEST(Fp8OpsGpu, GraphReplayEqualsEager) {
  LOWP_REQUIRE_GPU();
  const int64_t M = 512, K = 768;
  for (lowp_scaling sc : {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT, LOWP_SCALING_PER_TOKEN}) {
    const auto x = fuzz_tensor(LOWP_DTYPE_BFLOAT16, M, K, Fill::kMixed, 42 + sc);
    DeviceBuffer dx(x.size()), drow(M * K), dcol(M * K), drsi(M * 4), dra(M * 4), dcsi(K * 4), dca(K * 4);
    DeviceBuffer dscale(4), dsinv(4), damax(4);
    dx.upload(x.data());
    const float one = 1.0f, zero = 0.0f;
    cudaMemcpy(dscale.get(), &one, 4, cudaMemcpyHostToDevice);
    lowp_tensor gx{dx.get(), LOWP_DTYPE_BFLOAT16, M, K};
    lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E4M3;
    q.scaling = sc;
    q.rows = M;
    q.cols = K;
    q.rowwise = {drow.get(), drsi.get(), dra.f32()};
    q.columnwise = {dcol.get(), dcsi.get(), dca.f32()};
    q.scale = dscale.f32();
    q.scale_inv = dsinv.f32();
    q.amax = damax.f32();
    cudaStream_t s;
    LOWP_CUDA_OK(cudaStreamCreate(&s));
    cudaMemcpy(damax.get(), &zero, 4, cudaMemcpyHostToDevice);
    ASSERT_EQ(lowp_quantize(&gx, &q, nullptr, s), LOWP_SUCCESS) << lowp_get_last_error();
    LOWP_CUDA_OK(cudaStreamSynchronize(s));
    const auto eager_row = drow.download(), eager_col = dcol.download(), eager_amax = damax.download();
    poison_device(drow.get(), M * K);
    poison_device(dcol.get(), M * K);
    cudaMemcpy(damax.get(), &zero, 4, cudaMemcpyHostToDevice);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    LOWP_CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ASSERT_EQ(lowp_quantize(&gx, &q, nullptr, s), LOWP_SUCCESS) << lowp_get_last_error();
    LOWP_CUDA_OK(cudaStreamEndCapture(s, &g));
    LOWP_CUDA_OK(cudaGraphInstantiate(&ge, g, 0));
    LOWP_CUDA_OK(cudaGraphLaunch(ge, s));
    LOWP_CUDA_OK(cudaStreamSynchronize(s));
    EXPECT_TRUE(bytes_equal(drow.download(), eager_row, M, K, "graph rowwise"));
    EXPECT_TRUE(bytes_equal(dcol.download(), eager_col, K, M, "graph columnwise"));
    EXPECT_TRUE(bytes_equal(damax.download(), eager_amax, 4, 1, "graph amax"));
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
  }
}

}  // namespace
}  // namespace lowp_test
