// Every lowp_* entry point that returns a lowp_status runs its body through guarded(), so no C++
// exception crosses the C ABI: std::bad_alloc (the CPU backend's scratch vectors)
// becomes LOWP_ERROR_OUT_OF_MEMORY, anything else LOWP_ERROR_INTERNAL, each with a message
// naming the entry point. Nothing has been written when the validation is what threw; a backend
// that throws mid-call may have written part of its outputs (the message says so).
#pragma once
#include "lowp/lowp.h"

namespace lowp {

// The status and message of the exception being handled (call only inside a catch).
lowp_status status_of_current_exception(const char* entry) noexcept;

template <typename Body>
lowp_status guarded(const char* entry, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return status_of_current_exception(entry);
  }
}

}  // namespace lowp
