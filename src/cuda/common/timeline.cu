// The host side of the per-block timeline (timeline.cuh), built with -DLOWP_TIMELINE=ON only:
// lowp_timeline_attach() installs the stamp buffer in every stamping translation unit.
#include <vector>

#include "lowp/lowp.h"
#include "cuda/common/timeline.cuh"

namespace lowp::cuda::timeline {
namespace {

using Installer = cudaError_t (*)(const State&);

std::vector<Installer>& installers() {
  static std::vector<Installer> v;
  return v;
}

}  // namespace

bool add_installer(Installer install) {
  installers().push_back(install);  // static initialisation: one thread
  return true;
}

}  // namespace lowp::cuda::timeline

// stamps: [max_launches][3 kernels][max_blocks][5] uint64 in device memory, tickets: 3 zeroed
// unsigned in device memory; null stamps turns stamping off. Returns a cudaError_t.
extern "C" LOWP_API int lowp_timeline_attach(uint64_t* stamps, unsigned* tickets, unsigned max_blocks,
                                             unsigned max_launches) {
  const lowp::cuda::timeline::State s{stamps, tickets, max_blocks, max_launches};
  for (const auto install : lowp::cuda::timeline::installers())
    if (const cudaError_t e = install(s); e != cudaSuccess) return e;
  return cudaSuccess;
}
