// Where a pointer lives decides the backend. Declared here, defined by the CUDA backend
// (cuda/common/runtime.cpp) or, in a build without it, by core/no_cuda.cpp.
#pragma once

namespace lowp {

enum class MemorySpace { kHost, kDevice, kUnknown };

// Host for ordinary and pinned host memory; device for cudaMalloc'd (and managed) memory;
// unknown when the CUDA runtime cannot say (the call then fails instead of guessing).
// Without CUDA in the build, or without a usable CUDA device, every pointer is host memory.
MemorySpace memory_space_of(const void* p);

}  // namespace lowp
