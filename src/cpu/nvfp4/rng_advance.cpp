// Stochastic-rounding state {seed, offset} advance on the host (lowp_rng_advance).
#include "core/backends.h"

namespace lowp::cpu {

lowp_status rng_advance(uint64_t* rng_state, uint64_t increment) {
  rng_state[1] += increment;  // offset; unsigned, wraps mod 2^64
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
