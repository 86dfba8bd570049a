#include "core/error.h"

#include <cstdarg>
#include <cstdio>

namespace lowp {
namespace {
thread_local char g_message[1024] = "";
}

lowp_status fail(lowp_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(g_message, sizeof g_message, fmt, args);
  va_end(args);
  return status;
}

lowp_status succeed() {
  g_message[0] = '\0';
  return LOWP_SUCCESS;
}

}  // namespace lowp

extern "C" {

const char* lowp_get_last_error(void) { return lowp::g_message; }

const char* lowp_status_name(lowp_status status) {
  switch (status) {
    case LOWP_SUCCESS: return "LOWP_SUCCESS";
    case LOWP_ERROR_INVALID_ARGUMENT: return "LOWP_ERROR_INVALID_ARGUMENT";
    case LOWP_ERROR_UNSUPPORTED: return "LOWP_ERROR_UNSUPPORTED";
    case LOWP_ERROR_CUDA: return "LOWP_ERROR_CUDA";
    case LOWP_ERROR_INTERNAL: return "LOWP_ERROR_INTERNAL";
  }
  return "LOWP_STATUS_UNKNOWN";
}

}  // extern "C"
