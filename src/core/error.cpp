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

const char* last_error_message() { return g_message; }

}  // namespace lowp
