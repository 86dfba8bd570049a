#include <algorithm>
#include <atomic>

#include "cuda/common/launch.h"

namespace lowp::cuda {
namespace {

// An attribute of the current device, read once per device; `fallback` when it cannot be read.
int cached_attribute(std::atomic<int> (&cache)[64], cudaDeviceAttr attr, int fallback) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return fallback;
  int v = cache[dev].load(std::memory_order_relaxed);
  if (v == 0) {
    if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess || v <= 0) return fallback;
    cache[dev].store(v, std::memory_order_relaxed);
  }
  return v;
}

}  // namespace

int sm_count() {
  static std::atomic<int> cache[64];
  return cached_attribute(cache, cudaDevAttrMultiProcessorCount, 132);
}

int64_t l2_cache_bytes() {
  static std::atomic<int> cache[64];
  return cached_attribute(cache, cudaDevAttrL2CacheSize, 0);
}

// Each block takes its dynamic shared memory plus the per-block reserve; the 1 KiB above the
// threshold leaves room for the allocation granularity.
size_t smem_for_blocks_per_sm(int blocks) {
  static std::atomic<int> per_sm_cache[64], reserved_cache[64];
  const int per_sm = cached_attribute(per_sm_cache, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
  const int reserved = cached_attribute(reserved_cache, cudaDevAttrReservedSharedMemoryPerBlock, 0);
  if (per_sm == 0 || blocks < 1) return 0;
  return static_cast<size_t>(std::max(per_sm / (blocks + 1) - reserved + 1024, 0));
}

}  // namespace lowp::cuda
