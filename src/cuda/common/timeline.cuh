// Per-block timestamps of the per-token kernels, for performance diagnosis only. Compiled in with
// -DLOWP_TIMELINE=ON (bench/timeline.cpp, lowp_timeline, reads them); otherwise every call below
// is empty and the kernels compile as without it.
//
// Thread 0 of each block of a stamped kernel writes %globaltimer at up to four events and its
// SM's id into the buffer that lowp_timeline_attach() installed. Blocks tell their launch apart
// by a ticket per kernel: launches of one kernel never overlap in a call sequence (each of our
// calls' first kernel waits for the previous call), so ticket / gridDim.x is the launch index.
#pragma once
#include <cstdint>

namespace lowp::cuda::timeline {

enum Kernel : int { kPrep = 0, kTokenAmax = 1, kEncode = 2 };
constexpr int kKernels = 3;
// A block's slots: the events, then its SM.
enum Event : int { kEntry = 0, kWaited = 1, kLoaded = 2, kExit = 3 };
constexpr int kSmSlot = 4, kSlots = 5;

// What lowp_timeline_attach() installs in every stamping translation unit.
struct State {
  uint64_t* stamps;   // [launch][kernel][block][kSlots]; null: stamping off
  unsigned* tickets;  // [kKernels], zeroed by the caller before the stamped run
  unsigned max_blocks, max_launches;
};

}  // namespace lowp::cuda::timeline

#if LOWP_TIMELINE
#include <cuda_runtime.h>

namespace lowp::cuda::timeline {

// timeline.cu: the installers of every translation unit that includes this header.
bool add_installer(cudaError_t (*install)(const State&));

namespace {  // one copy per translation unit (no relocatable device code)
__device__ State g_state;
cudaError_t install_state(const State& s) { return cudaMemcpyToSymbol(g_state, &s, sizeof s); }
[[maybe_unused]] const bool g_installer_added = add_installer(install_state);
}  // namespace

__device__ __forceinline__ uint64_t now() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A block's stamps (thread 0), or nothing.
struct Block {
  uint64_t* slots = nullptr;
  __device__ void stamp(Event e) const {
    if (slots != nullptr) slots[e] = now();
  }
};

__device__ inline Block enter(Kernel k) {
  if (threadIdx.x != 0) return {};
  const State s = g_state;
  if (s.stamps == nullptr) return {};
  const unsigned launch = atomicAdd(&s.tickets[k], 1u) / gridDim.x;  // every block takes a ticket
  if (launch >= s.max_launches || blockIdx.x >= s.max_blocks) return {};
  uint64_t* slots = s.stamps + ((static_cast<uint64_t>(launch) * kKernels + k) * s.max_blocks + blockIdx.x) * kSlots;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  slots[kSmSlot] = sm;
  slots[kEntry] = now();
  return {slots};
}

}  // namespace lowp::cuda::timeline

#else

namespace lowp::cuda::timeline {
struct Block {
  __device__ void stamp(Event) const {}
};
__device__ inline Block enter(Kernel) { return {}; }
}  // namespace lowp::cuda::timeline

#endif
