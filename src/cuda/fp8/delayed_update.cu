// Delayed-scaling update for many tensors in one launch: one block per tensor reduces its amax
// history, rolls it in place and writes the new scale and scale_inv (numerics §2).
#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "numerics/fp8_cast.h"
#include "numerics/fp8_scaling.h"

namespace lowp::cuda {
namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) delayed_update_kernel(DelayedUpdateArgs a) {
  __shared__ uint32_t scratch[kThreads / 32];
  float* h = a.amax_history + blockIdx.x * a.history_len;
  const int64_t len = a.most_recent ? 1 : a.history_len;
  // Max over the history. Values are compared as floats (negatives never win over h[0] >= 0);
  // a NaN anywhere makes the reduced amax NaN, which keeps the old scale.
  float m = -num::kFltMax;
  int nan_here = 0;
  for (int64_t i = threadIdx.x; i < len; i += kThreads) {
    const float v = h[i];
    nan_here |= num::is_nan(v);
    m = v > m ? v : m;
  }
  const int nan_seen = __syncthreads_or(nan_here);
  // Order-preserving map of floats to uint32 for the block max.
  uint32_t key = num::bits_of(m);
  key = (key & 0x80000000u) ? ~key : (key | 0x80000000u);
  key = block_max(key, scratch);
  key = (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
  const float a_max = nan_seen ? num::float_of(0x7FC00000u) : num::float_of(key);
  const float newest = h[0];
  __syncthreads();  // every thread has read h[0] before anyone rolls
  // Roll in chunks: read h[i+1] for the chunk, barrier, write h[i].
  for (int64_t base = 0; base < a.history_len; base += kThreads) {
    const int64_t i = base + threadIdx.x;
    float next = 0.0f;
    if (i < a.history_len) next = (i + 1 < a.history_len) ? h[i + 1] : newest;
    __syncthreads();
    if (i < a.history_len) h[i] = (i == 0) ? 0.0f : next;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const float s = num::fp8_delayed_scale(a_max, a.scale[blockIdx.x], a.fp8_max, a.margin);
    a.scale[blockIdx.x] = s;
    a.scale_inv[blockIdx.x] = num::reciprocal_rn(s);
  }
}

}  // namespace

lowp_status fp8_delayed_update(const DelayedUpdateArgs& a, void* stream) {
  if (a.num_tensors > 0x7FFFFFFF) return fail(LOWP_ERROR_UNSUPPORTED, "delayed update: too many tensors for one launch");
  delayed_update_kernel<<<static_cast<unsigned>(a.num_tensors), kThreads, 0, as_stream(stream)>>>(a);
  return check_launch("fp8 delayed-scaling update kernel");
}

}  // namespace lowp::cuda
