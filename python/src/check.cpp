#include "check.h"

#include <nanobind/nanobind.h>

#include <cstring>
#include <string>

namespace lowp_py {

void check(lowp_status status, const char* call) {
  if (status == LOWP_SUCCESS) return;
  nanobind::gil_scoped_acquire gil;  // the calls run with the GIL released
  PyObject* type = status == LOWP_ERROR_INVALID_ARGUMENT ? PyExc_ValueError
                   : status == LOWP_ERROR_UNSUPPORTED    ? PyExc_NotImplementedError
                   : status == LOWP_ERROR_OUT_OF_MEMORY  ? PyExc_MemoryError
                                                         : PyExc_RuntimeError;
  const char* message = lowp_get_last_error();
  // Most messages name the argument only; say which call it belongs to unless they already do.
  std::string text = std::strncmp(message, "lowp_", 5) == 0 ? message : std::string(call) + ": " + message;
  PyErr_SetString(type, text.c_str());
  throw nanobind::python_error();
}

}  // namespace lowp_py
