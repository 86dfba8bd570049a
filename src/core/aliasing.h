// The aliasing rule of lowp.h (each entry point's "Aliasing:" line): a buffer that a call writes
// may overlap no other buffer of the call, so no output is computed from bytes the call has
// already overwritten and no two outputs share bytes. Buffers a call only reads may overlap each
// other (grad and act_input may be one buffer). What a call updates in place (the delayed-scaling
// history, the rng state) is one buffer, not two.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "core/memory.h"
#include "lowp/lowp.h"

namespace lowp {

// The bytes [ptr, ptr + bytes) of one argument; NULL or empty extents take no part.
struct Extent {
  const void* ptr;
  size_t bytes;
  const char* name;  // as messages name it ("q->rowwise.amax")
  bool written;
};

// Extent sizes: a checked dense tensor's bytes, and n floats (n >= 0, checked in range).
size_t dense_bytes(const lowp_tensor& t);
inline size_t float_bytes(int64_t n) { return sizeof(float) * static_cast<size_t>(n); }
// A grouped call's workspace as its backend writes it: lowp_grouped_workspace_size(n) bytes on the
// CUDA backend; the CPU backend leaves it alone (0).
size_t grouped_workspace_extent(MemorySpace space, int64_t n);

// No written extent overlaps another extent; else a failure naming both.
lowp_status check_no_overlap(std::span<const Extent> extents);
lowp_status check_no_overlap(std::initializer_list<Extent> extents);

}  // namespace lowp
