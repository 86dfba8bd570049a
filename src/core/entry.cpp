#include "core/entry.h"

#include <exception>
#include <new>

#include "core/error.h"

namespace lowp {

lowp_status status_of_current_exception(const char* entry) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return fail(LOWP_ERROR_OUT_OF_MEMORY,
                "%s: out of host memory (std::bad_alloc in the CPU backend's scratch space); outputs may be "
                "partly written",
                entry);
  } catch (const std::exception& e) {
    return fail(LOWP_ERROR_INTERNAL, "%s: internal error, C++ exception: %s; outputs may be partly written", entry,
                e.what());
  } catch (...) {
    return fail(LOWP_ERROR_INTERNAL, "%s: internal error, unknown C++ exception; outputs may be partly written",
                entry);
  }
}

}  // namespace lowp
