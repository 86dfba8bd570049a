// Running a check over all 2^32 fp32 inputs on the GPU: the kernel counts its mismatches into
// bad[0] and keeps the smallest mismatching input in first_bad[0].
#pragma once
#include <cstdint>

#include "device_buffer.h"

namespace lowp_test {

struct Mismatches {
  cudaError_t error = cudaSuccess;  // the kernel's, when it failed
  unsigned long long count = 0;
  uint32_t first = 0;  // bits of the smallest mismatching input (0xFFFFFFFF: none)
};

inline Mismatches run_exhaustive(void (*kernel)(unsigned long long* bad, uint32_t* first_bad)) {
  DeviceBuffer dbad(8, 0, 0), dfirst(4, 0, 0xFF);
  kernel<<<132 * 8, 256>>>(static_cast<unsigned long long*>(dbad.get()), static_cast<uint32_t*>(dfirst.get()));
  Mismatches m;
  m.error = cudaDeviceSynchronize();
  if (m.error != cudaSuccess) return m;
  cudaMemcpy(&m.count, dbad.get(), 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(&m.first, dfirst.get(), 4, cudaMemcpyDeviceToHost);
  return m;
}

}  // namespace lowp_test
