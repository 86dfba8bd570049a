// CUDA backend == CPU backend, byte for byte, for every FP8 quantize recipe over fuzzed shapes,
// values, input dtypes, output formats, orientations and pointer alignments.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"
#include "device_buffer.h"

namespace lowp_test {
namespace {

struct Case {
  lowp_dtype in;
  lowp_dtype out;
  lowp_scaling scaling;
  int64_t rows, cols;
  Fill fill;
  bool row, col;
  size_t misalign;  // bytes added to the input pointer (0 = 16-byte aligned)
  int act = -1;     // >= 0: backward cast with this lowp_activation, act input = second tensor
};

// Every output buffer of one quantize call, as bytes.
struct Outputs {
  std::vector<uint8_t> row, col, row_si, col_si, row_amax, col_amax;
  float scale = 0, scale_inv = 0, amax = 0;
  lowp_status status;
  std::string error;
};

constexpr float kDelayedScale = 3.0f;      // arbitrary: exercises saturation on wide inputs
constexpr float kInitialAmax = 0.75f;      // delayed folds into this

lowp_status call(const Case& k, lowp_tensor* t, const void* act_in, lowp_quantized_tensor* q, void* stream) {
  if (k.act < 0) return lowp_quantize(t, q, nullptr, stream);
  return lowp_quantize_dact(t, act_in, static_cast<lowp_activation>(k.act), q, nullptr, stream);
}

Outputs run_cpu(const Case& k, const std::vector<uint8_t>& x, const std::vector<uint8_t>& act_in) {
  Outputs o;
  const size_t n = static_cast<size_t>(k.rows * k.cols);
  o.row.assign(k.row ? n : 0, kPoison);
  o.col.assign(k.col ? n : 0, kPoison);
  o.row_si.assign(k.rows * 4, kPoison);
  o.row_amax.assign(k.rows * 4, kPoison);
  o.col_si.assign(k.cols * 4, kPoison);
  o.col_amax.assign(k.cols * 4, kPoison);
  o.scale = kDelayedScale;
  o.amax = kInitialAmax;
  lowp_tensor t{const_cast<uint8_t*>(x.data()), k.in, k.rows, k.cols};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = k.out;
  q.scaling = k.scaling;
  q.rows = k.rows;
  q.cols = k.cols;
  q.rowwise = {k.row ? o.row.data() : nullptr, o.row_si.data(), reinterpret_cast<float*>(o.row_amax.data())};
  q.columnwise = {k.col ? o.col.data() : nullptr, o.col_si.data(), reinterpret_cast<float*>(o.col_amax.data())};
  q.scale = &o.scale;
  q.scale_inv = &o.scale_inv;
  q.amax = &o.amax;
  o.status = call(k, &t, act_in.data(), &q, nullptr);
  o.error = lowp_get_last_error();
  return o;
}

Outputs run_gpu(const Case& k, const std::vector<uint8_t>& x, const std::vector<uint8_t>& act_in) {
  Outputs o;
  const size_t n = static_cast<size_t>(k.rows * k.cols);
  DeviceBuffer dx(x.size(), k.misalign), drow(k.row ? n : 1), dcol(k.col ? n : 1);
  DeviceBuffer drsi(k.rows * 4), dramax(k.rows * 4), dcsi(k.cols * 4), dcamax(k.cols * 4);
  DeviceBuffer dscale(4), dsinv(4), damax(4);
  dx.upload(x.data());
  DeviceBuffer dact(act_in.size(), k.misalign);
  dact.upload(act_in.data());
  cudaMemcpy(dscale.get(), &kDelayedScale, 4, cudaMemcpyHostToDevice);
  cudaMemcpy(damax.get(), &kInitialAmax, 4, cudaMemcpyHostToDevice);
  lowp_tensor t{dx.get(), k.in, k.rows, k.cols};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = k.out;
  q.scaling = k.scaling;
  q.rows = k.rows;
  q.cols = k.cols;
  q.rowwise = {k.row ? drow.get() : nullptr, drsi.get(), dramax.f32()};
  q.columnwise = {k.col ? dcol.get() : nullptr, dcsi.get(), dcamax.f32()};
  q.scale = dscale.f32();
  q.scale_inv = dsinv.f32();
  q.amax = damax.f32();
  o.status = call(k, &t, dact.get(), &q, nullptr);
  o.error = lowp_get_last_error();
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    o.status = LOWP_ERROR_CUDA;
    o.error = cudaGetErrorString(e);
    return o;
  }
  if (k.row) o.row = drow.download();
  if (k.col) o.col = dcol.download();
  o.row_si = drsi.download();
  o.row_amax = dramax.download();
  o.col_si = dcsi.download();
  o.col_amax = dcamax.download();
  cudaMemcpy(&o.scale, dscale.get(), 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&o.scale_inv, dsinv.get(), 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&o.amax, damax.get(), 4, cudaMemcpyDeviceToHost);
  return o;
}

std::string describe(const Case& k) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "in=%d out=%d scaling=%d %lldx%lld fill=%s row=%d col=%d misalign=%zu act=%d",
                k.in, k.out, k.scaling, static_cast<long long>(k.rows), static_cast<long long>(k.cols),
                fill_name(k.fill), k.row, k.col, k.misalign, k.act);
  return buf;
}

// Compares every output; returns the number of mismatching buffers (0 = byte-exact).
int compare(const Case& k, const std::vector<uint8_t>& x, const std::vector<uint8_t>& act_in = {}) {
  const Outputs c = run_cpu(k, x, act_in), g = run_gpu(k, x, act_in);
  const std::string what = describe(k);
  EXPECT_EQ(c.status, LOWP_SUCCESS) << what << ": " << c.error;
  EXPECT_EQ(g.status, LOWP_SUCCESS) << what << ": " << g.error;
  auto input = [&](int64_t r, int64_t col) {
    return "x=" + std::to_string(load_float(x.data(), k.in, static_cast<size_t>(r * k.cols + col)));
  };
  auto input_t = [&](int64_t r, int64_t col) { return input(col, r); };
  int bad = 0;
  auto check = [&](::testing::AssertionResult r) {
    if (!r) ++bad;
    EXPECT_TRUE(r) << what;
  };
  if (k.row) check(bytes_equal(g.row.data(), c.row.data(), k.rows, k.cols, 1, "rowwise codes", input));
  if (k.col) check(bytes_equal(g.col.data(), c.col.data(), k.cols, k.rows, 1, "columnwise codes", input_t));
  if (k.scaling == LOWP_SCALING_PER_TOKEN) {
    if (k.row) check(bytes_equal(g.row_si, c.row_si, k.rows * 4, 1, "row scale_inv"));
    if (k.row) check(bytes_equal(g.row_amax, c.row_amax, k.rows * 4, 1, "row amax"));
    if (k.col) check(bytes_equal(g.col_si, c.col_si, k.cols * 4, 1, "col scale_inv"));
    if (k.col) check(bytes_equal(g.col_amax, c.col_amax, k.cols * 4, 1, "col amax"));
  } else {
    check(float_bits_equal(&g.scale, &c.scale, 1, "scale"));
    check(float_bits_equal(&g.scale_inv, &c.scale_inv, 1, "scale_inv"));
    check(float_bits_equal(&g.amax, &c.amax, 1, "amax"));
  }
  return bad;
}

struct Shape {
  int64_t rows, cols;
};

// Odd, tiny, non-multiples of 16/64/128, and large enough to span many tiles and blocks.
const Shape kSmallShapes[] = {{1, 1}, {1, 8}, {3, 5}, {17, 33}, {16, 48}, {64, 64}, {100, 200},
                              {128, 256}, {192, 8}, {48, 1000}, {1000, 24}, {257, 129}};
const Shape kLargeShapes[] = {{1024, 2048}, {4096, 1040}, {2000, 3000}};

const lowp_dtype kInputs[] = {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32};
const lowp_scaling kScalings[] = {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT, LOWP_SCALING_PER_TOKEN};

TEST(Fp8QuantizeGpu, ByteExactAgainstCpuOnFuzzedInputs) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 1;
  for (lowp_scaling sc : kScalings)
    for (lowp_dtype in : kInputs)
      for (lowp_dtype out : {LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2})
        for (const Shape& s : kSmallShapes)
          for (Fill f : kAllFills)
            for (int orient = 0; orient < 3; ++orient) {
              if (quick_mode() && f != Fill::kMixed) continue;
              const Case k{in, out, sc, s.rows, s.cols, f, orient != 1, orient != 0, (seed % 5 == 0) ? dtype_size(in) : 0};
              bad += compare(k, fuzz_tensor(in, s.rows, s.cols, f, seed++), {});
              ++cases;
            }
  std::printf("[fp8 quantize gpu==cpu] small: %d cases, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(Fp8QuantizeGpu, ByteExactAgainstCpuOnLargeInputs) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 1000;
  for (lowp_scaling sc : kScalings)
    for (lowp_dtype in : kInputs)
      for (const Shape& s : kLargeShapes)
        for (Fill f : {Fill::kGaussian, Fill::kMixed, Fill::kHugeRange}) {
          if (quick_mode() && f != Fill::kMixed) continue;
          const Case k{in, LOWP_DTYPE_E4M3, sc, s.rows, s.cols, f, true, true, 0};
          bad += compare(k, fuzz_tensor(in, s.rows, s.cols, f, seed++));
          ++cases;
        }
  std::printf("[fp8 quantize gpu==cpu] large: %d cases, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(Fp8QuantizeGpu, BackwardDactCastByteExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 5000;
  const Shape shapes[] = {{1, 1}, {3, 5}, {64, 64}, {100, 200}, {257, 129}, {1024, 2048}};
  for (int act : {LOWP_ACTIVATION_GELU_TANH, LOWP_ACTIVATION_SILU, LOWP_ACTIVATION_RELU})
    for (lowp_scaling sc : {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT})
      for (lowp_dtype in : kInputs)
        for (const Shape& s : shapes)
          for (Fill f : {Fill::kGaussian, Fill::kMixed, Fill::kSpecials, Fill::kHugeRange}) {
            if (quick_mode() && f != Fill::kMixed) continue;
            Case k{in, LOWP_DTYPE_E4M3, sc, s.rows, s.cols, f, true, true, (seed % 3 == 0) ? dtype_size(in) : 0};
            k.act = act;
            const auto grad = fuzz_tensor(in, s.rows, s.cols, f, seed++);
            const auto act_in = fuzz_tensor(in, s.rows, s.cols, seed % 2 ? Fill::kMixed : Fill::kGaussian, seed);
            ++seed;
            bad += compare(k, grad, act_in);
            ++cases;
          }
  std::printf("[fp8 dact quantize gpu==cpu] %d cases, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace lowp_test
