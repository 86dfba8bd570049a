// CUDA runtime glue: pointer classification for backend choice and device presence.
#include <cuda_runtime.h>

#include "common/backends.h"
#include "api/memory.h"

namespace lowp {

MemorySpace memory_space_of(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();  // unregistered host memory on old runtimes; clear the sticky-free error
    return MemorySpace::kHost;
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
