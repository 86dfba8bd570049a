// lowp_fuzz without the CUDA backend: --device has no memory to use.
#include <cstdio>
#include <cstdlib>

#include "harness/arena.h"

namespace lowp_fuzz {
Memory& device_memory() {
  std::fprintf(stderr, "lowp_fuzz: --device needs lowp_fuzz_gpu (a build with the CUDA backend)\n");
  std::exit(2);
}
}  // namespace lowp_fuzz
