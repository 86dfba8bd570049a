// lowp_rng_advance on the device: one thread adds the increment to the offset of the
// stochastic-rounding state {seed, offset}, so a captured CUDA graph advances it on every replay.
#include "cuda/common/common.cuh"
#include "core/backends.h"

namespace lowp::cuda {
namespace {

__global__ void rng_advance_kernel(uint64_t* rng_state, uint64_t increment) {
  rng_state[1] += increment;  // unsigned: wraps mod 2^64, as the CPU backend
}

}  // namespace

lowp_status rng_advance(uint64_t* rng_state, uint64_t increment, void* stream) {
  rng_advance_kernel<<<1, 1, 0, as_stream(stream)>>>(rng_state, increment);
  return check_launch("rng advance kernel");
}

}  // namespace lowp::cuda
