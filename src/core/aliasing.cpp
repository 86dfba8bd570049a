#include "core/aliasing.h"

#include <cstdint>

#include "core/error.h"
#include "core/grouped_args.h"
#include "core/views.h"

namespace lowp {
namespace {

bool overlap(const Extent& a, const Extent& b) {
  const auto pa = reinterpret_cast<uintptr_t>(a.ptr), pb = reinterpret_cast<uintptr_t>(b.ptr);
  return pa <= pb ? pb - pa < a.bytes : pa - pb < b.bytes;  // no end pointer formed: nothing can wrap
}

bool present(const Extent& e) { return e.ptr != nullptr && e.bytes != 0; }

}  // namespace

size_t dense_bytes(const lowp_tensor& t) {
  return static_cast<size_t>(t.rows) * static_cast<size_t>(t.cols) * static_cast<size_t>(dtype_bytes(t.dtype));
}

size_t grouped_workspace_extent(MemorySpace space, int64_t n) {
  return space == MemorySpace::kDevice ? grouped_workspace_bytes(n) : 0;
}

lowp_status check_no_overlap(std::span<const Extent> extents) {
  for (size_t i = 0; i < extents.size(); ++i) {
    const Extent& a = extents[i];
    if (!present(a)) continue;
    for (size_t j = i + 1; j < extents.size(); ++j) {
      const Extent& b = extents[j];
      if (!present(b) || !(a.written || b.written) || !overlap(a, b)) continue;
      const Extent& out = a.written ? a : b;
      const Extent& other = a.written ? b : a;
      return fail(LOWP_ERROR_INVALID_ARGUMENT,
                  "%s (%zu bytes) overlaps %s (%zu bytes); a buffer a call writes may overlap no other buffer of "
                  "the call (lowp.h, Aliasing)",
                  out.name, out.bytes, other.name, other.bytes);
    }
  }
  return LOWP_SUCCESS;
}

lowp_status check_no_overlap(std::initializer_list<Extent> extents) {
  return check_no_overlap(std::span<const Extent>(extents.begin(), extents.size()));
}

}  // namespace lowp
