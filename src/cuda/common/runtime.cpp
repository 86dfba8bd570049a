// CUDA runtime glue: pointer classification for backend choice and device presence.
#include <cuda_runtime.h>

#include "core/backends.h"
#include "core/memory.h"

namespace lowp {

MemorySpace memory_space_of(const void* p) {
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky; clear it so later launch checks do not see it
    const bool no_gpu = e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
                        e == cudaErrorInvalidValue;  // invalid value: unregistered host memory
    return no_gpu ? MemorySpace::kHost : MemorySpace::kUnknown;
  }
  return (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) ? MemorySpace::kDevice
                                                                                    : MemorySpace::kHost;
}

}  // namespace lowp

namespace lowp::cuda {

bool available() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

}  // namespace lowp::cuda
