// The thread-local last-error message behind lowp_get_last_error(): every layer reports a failure
// by `return fail(status, "...")`, naming the argument and the rule.
#pragma once
#include "lowp/lowp.h"

namespace lowp {

// Records a printf-style message and returns `status`, so callers write `return fail(...)`.
lowp_status fail(lowp_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Clears the message and returns LOWP_SUCCESS.
lowp_status succeed();
// The message of this thread's last failure ("" after a success).
const char* last_error_message();

}  // namespace lowp

// Propagates a non-success status.
#define LOWP_TRY(expr)                          \
  do {                                          \
    const lowp_status lowp_try_s_ = (expr);     \
    if (lowp_try_s_ != LOWP_SUCCESS) return lowp_try_s_; \
  } while (0)
