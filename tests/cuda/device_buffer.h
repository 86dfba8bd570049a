// RAII device memory and the GPU-test skip rule for tests/cuda.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "lowp/lowp.h"

namespace lowp_test {

#define LOWP_CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr << ": " << cudaGetErrorString(expr)

// Skips the test with a message when no CUDA device is visible (CI, laptops).
#define LOWP_REQUIRE_GPU()                                                          \
  do {                                                                              \
    if (!lowp_cuda_available()) GTEST_SKIP() << "no CUDA device visible: GPU test skipped"; \
  } while (0)

// LOWP_GPU_TEST_QUICK=1 trims fuzz sets (used under compute-sanitizer, which is ~50x slower).
inline bool quick_mode() {
  const char* v = std::getenv("LOWP_GPU_TEST_QUICK");
  return v != nullptr && v[0] == '1';
}

// A device allocation of `bytes` (+ `offset` leading bytes so tests can misalign it on purpose),
// filled with `fill` so unwritten outputs show up.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes, size_t offset = 0, int fill = 0xA5) : bytes_(bytes), offset_(offset) {
    if (cudaMalloc(&base_, bytes + offset + 16) != cudaSuccess) base_ = nullptr;
    if (base_) cudaMemset(base_, fill, bytes + offset + 16);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(base_); }
  void* get() const { return base_ ? static_cast<uint8_t*>(base_) + offset_ : nullptr; }
  float* f32() const { return static_cast<float*>(get()); }
  size_t bytes() const { return bytes_; }
  void upload(const void* src) const { cudaMemcpy(get(), src, bytes_, cudaMemcpyHostToDevice); }
  std::vector<uint8_t> download() const {
    std::vector<uint8_t> v(bytes_);
    cudaMemcpy(v.data(), get(), bytes_, cudaMemcpyDeviceToHost);
    return v;
  }
  std::vector<float> download_f32() const {
    std::vector<float> v(bytes_ / 4);
    cudaMemcpy(v.data(), get(), bytes_, cudaMemcpyDeviceToHost);
    return v;
  }

 private:
  void* base_ = nullptr;
  size_t bytes_, offset_;
};

inline void poison_device(void* p, size_t n, int fill = 0xA5) {
  cudaMemset(p, fill, n);
  cudaDeviceSynchronize();
}

}  // namespace lowp_test
