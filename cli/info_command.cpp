#include <cstdio>
#include <string>

#include "commands.h"
#include "device_buffers.h"
#include "lowp/lowp.h"

namespace lowp_cli {

int run_info() {
  std::printf("lowp %s (C API header %d.%d.%d)\n", lowp_version(), LOWP_VERSION_MAJOR, LOWP_VERSION_MINOR,
              LOWP_VERSION_PATCH);
  const bool cuda = lowp_cuda_available() != 0;
  std::printf("backends: cpu%s\n", cuda ? " cuda" : "");
  if (!cuda_built()) {
    std::printf("cuda: not built (configure with -DLOWP_CUDA=ON for the CUDA backend)\n");
    return 0;
  }
  const CudaRuntimeInfo rt = cuda_runtime_info();
  auto version = [](int v) {
    return v == 0 ? std::string("none") : std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
  };
  std::printf("cuda runtime %s, driver %s\n", version(rt.runtime_version).c_str(),
              version(rt.driver_version).c_str());
  if (rt.gpus.empty()) std::printf("cuda: built, but no GPU can be used: %s; lowp runs on the CPU backend\n", rt.error.c_str());
  for (const GpuInfo& g : rt.gpus)
    std::printf("cuda:%d %s, compute capability %d.%d, %.1f GiB\n", g.index, g.name.c_str(), g.cc_major,
                g.cc_minor, g.memory_gib);
  return 0;
}

}  // namespace lowp_cli
