// Where a pointer lives decides the backend (ARCHITECTURE.md "src/api").
#pragma once

namespace lowp {

enum class MemorySpace { kHost, kDevice };

// Host for ordinary and pinned host memory; device for cudaMalloc'd (and managed) memory.
// Without CUDA in the build, every pointer is host memory.
MemorySpace memory_space_of(const void* p);

}  // namespace lowp
