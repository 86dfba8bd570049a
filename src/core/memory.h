// Where a pointer lives decides the backend (ARCHITECTURE.md "src/api").
#pragma once

namespace lowp {

enum class MemorySpace { kHost, kDevice, kUnknown };

// Host for ordinary and pinned host memory; device for cudaMalloc'd (and managed) memory;
// unknown when the CUDA runtime cannot say (the call then fails instead of guessing).
// Without CUDA in the build, or without a usable CUDA device, every pointer is host memory.
MemorySpace memory_space_of(const void* p);

}  // namespace lowp
