// lowp_fuzz_gpu: the fuzzer's data buffers (and their guards) in CUDA device memory, so every
// call runs the CUDA backend. Run it under compute-sanitizer memcheck (docs/testing.md).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "harness/arena.h"

namespace lowp_fuzz {
namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "lowp_fuzz_gpu: %s: %s (a fault of the call above?)\n", what, cudaGetErrorString(e));
  std::abort();
}

class DeviceMemory final : public Memory {
 public:
  uint8_t* allocate(size_t bytes) override {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    return static_cast<uint8_t*>(p);
  }
  void release(uint8_t* p) override { check(cudaFree(p), "cudaFree"); }
  void to_host(void* dst, const uint8_t* src, size_t bytes) override {
    check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  }
  void from_host(uint8_t* dst, const void* src, size_t bytes) override {
    check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  bool device() const override { return true; }
};

}  // namespace

Memory& device_memory() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("lowp_fuzz_gpu: no CUDA device visible: skipped\n");
    std::exit(77);  // ctest SKIP_RETURN_CODE
  }
  static DeviceMemory m;
  return m;
}

}  // namespace lowp_fuzz
