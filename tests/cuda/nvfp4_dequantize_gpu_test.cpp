// NVFP4 lowp_dequantize on CUDA byte-exact against the CPU backend on raw bytes: random codes and
// block scales (every UE4M3 byte, NaN scales included), outer amaxes that take the kernel's fast
// path (ordinary values) and its scalar path (NaN, inf, 0, negative, near FLT_MAX, so the block
// factor times 64 overflows), both recipes, both scale layouts, fp32/fp16/bf16 outputs, shapes
// whose code bytes end on a half 16-byte load or a partial warp step, and misaligned pointers
// (the per-block fallback kernel). The recipes' own outputs are covered by the quantize tests'
// dequantize cases.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/compare.h"
#include "device_buffer.h"

namespace lowp_test {
namespace {

constexpr lowp_dtype kOutputs[] = {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16};

size_t out_size(lowp_dtype t) { return t == LOWP_DTYPE_FLOAT32 ? 4 : 2; }

uint64_t next(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<uint8_t> random_bytes(size_t n, uint64_t& seed) {
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(next(seed));
  return v;
}

// Amaxes for the given rows: mostly ordinary, some that push the scalar path.
std::vector<float> amaxes(size_t n, uint64_t& seed) {
  const float special[] = {0.0f, -3.0f, 3.0e38f, 1.0e37f, std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(), 1.0e-30f};
  std::vector<float> v(n);
  for (float& a : v) {
    const uint64_t r = next(seed);
    a = r % 8 == 0 ? special[(r >> 8) % 7] : static_cast<float>((r >> 16) % 100000) * 1e-2f + 0.01f;
  }
  return v;
}

struct Layout {
  size_t codes_offset;  // bytes past a 256-aligned allocation
  bool out_misaligned;  // out one element past it (aligned to its element, not to 16 bytes)
};

TEST(Nvfp4DequantizeGpu, RawBytesByteExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  struct Shape {
    int64_t rows, cols;
  };
  // 3 x 48: 72 code bytes (a half 16-byte load at the end); 37 x 1040 and 1 x 16: partial steps.
  const Shape shapes[] = {{1, 16}, {3, 48}, {37, 1040}, {128, 1024}, {300, 2064}};
  const Layout layouts[] = {{0, false}, {8, false}, {0, true}, {1, true}};
  uint64_t seed = 4242;
  int cases = 0, bad = 0;
  for (const Shape& s : shapes)
    for (lowp_scaling scaling : {LOWP_SCALING_NVFP4_PER_TENSOR, LOWP_SCALING_NVFP4_PER_TOKEN})
      for (lowp_scale_layout sl : {LOWP_SCALE_LAYOUT_COMPACT, LOWP_SCALE_LAYOUT_SWIZZLED})
        for (lowp_dtype out_t : kOutputs)
          for (const Layout& at : layouts) {
            if (quick_mode() && s.rows * s.cols > 1 << 16) continue;
            const bool per_token = scaling == LOWP_SCALING_NVFP4_PER_TOKEN;
            lowp_quantized_sizes sz{};
            ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, scaling, s.rows, s.cols, &sz), LOWP_SUCCESS);
            const std::vector<uint8_t> codes = random_bytes(sz.data_bytes[0], seed);
            const std::vector<uint8_t> scales = random_bytes(sz.scale_inv_bytes[0], seed);
            const std::vector<float> amax = amaxes(per_token ? static_cast<size_t>(s.rows) : 1, seed);
            const size_t out_bytes = static_cast<size_t>(s.rows * s.cols) * out_size(out_t);

            lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
            q.dtype = LOWP_DTYPE_E2M1;
            q.scaling = scaling;
            q.scale_layout = sl;
            q.rows = s.rows;
            q.cols = s.cols;
            std::vector<uint8_t> want(out_bytes, kPoison);
            q.rowwise = {const_cast<uint8_t*>(codes.data()), const_cast<uint8_t*>(scales.data()),
                         const_cast<float*>(amax.data())};
            lowp_tensor hout{want.data(), out_t, s.rows, s.cols};
            ASSERT_EQ(lowp_dequantize(&q, LOWP_ROWWISE, &hout, nullptr), LOWP_SUCCESS) << lowp_get_last_error();

            DeviceBuffer dcodes(codes.size(), at.codes_offset), dscales(scales.size()), damax(amax.size() * 4);
            DeviceBuffer dout(out_bytes, at.out_misaligned ? out_size(out_t) : 0);
            dcodes.upload(codes.data());
            dscales.upload(scales.data());
            damax.upload(amax.data());
            q.rowwise = {dcodes.get(), dscales.get(), damax.f32()};
            lowp_tensor dout_t{dout.get(), out_t, s.rows, s.cols};
            ASSERT_EQ(lowp_dequantize(&q, LOWP_ROWWISE, &dout_t, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
            LOWP_CUDA_OK(cudaDeviceSynchronize());
            const std::string what = std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                                     (per_token ? " per-token" : " per-tensor") +
                                     (sl == LOWP_SCALE_LAYOUT_SWIZZLED ? " swizzled" : " compact") + " out=" +
                                     std::to_string(out_t) + " codes offset " + std::to_string(at.codes_offset) +
                                     (at.out_misaligned ? " out misaligned" : "");
            const auto res = bytes_equal(dout.download(), want, s.rows, s.cols, what.c_str(), out_size(out_t));
            if (!res) ++bad;
            EXPECT_TRUE(res);
            ++cases;
          }
  std::printf("[nvfp4 dequantize raw bytes gpu==cpu] %d cases, %d mismatching\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace lowp_test
