// Turns a lowp status into a Python exception carrying lowp's message:
// INVALID_ARGUMENT -> ValueError, UNSUPPORTED -> NotImplementedError, CUDA/INTERNAL -> RuntimeError.
#pragma once
#include <lowp/lowp.h>

namespace lowp_py {

// Throws nanobind::python_error unless `status` is LOWP_SUCCESS; `call` names the C entry point.
void check(lowp_status status, const char* call);

}  // namespace lowp_py
