// The grouped-tensor layout rule (lowp.h, lowp_grouped_tensor), shared by the host validation
// and the device-side prep kernel so both reject exactly the same layouts.
#pragma once
#include <cstdint>

#include "numerics/host_device.h"

namespace lowp {

// Member (f x l at element o) has non-negative dims and offset and lies inside total elements.
LOWP_HD bool member_in_bounds(int64_t f, int64_t l, int64_t o, int64_t total) {
  return f >= 0 && l >= 0 && o >= 0 && o <= total && (f == 0 || l <= (total - o) / f);
}

// A member starting at `o` does not overlap an in-bounds predecessor (pf x pl at po).
LOWP_HD bool member_after(int64_t o, int64_t pf, int64_t pl, int64_t po) { return o >= po + pf * pl; }

}  // namespace lowp
