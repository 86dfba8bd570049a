// Launch of a CUTLASS 3.x SM90 GEMM kernel type with arguments built by the caller: no allocation
// (the kernels used here need no workspace), no host synchronisation, graph-capturable.
#pragma once
#include <cutlass/cluster_launch.hpp>
#include <cutlass/device_kernel.h>

#include <mutex>

#include "core/error.h"
#include "cuda/common/launch.h"

namespace lowp::cuda::gemm_sm90 {

// early: a programmatic dependent launch (the kernel waits for its predecessor before reading
// global memory: CUTLASS_ENABLE_GDC_FOR_SM90).
template <class Kernel>
lowp_status run_sm90_kernel(typename Kernel::Arguments const& args, cudaStream_t stream, const char* what,
                            bool early = false) {
  static std::once_flag attribute_once;
  static cudaError_t attribute_error = cudaSuccess;
  std::call_once(attribute_once, [] {
    attribute_error = cudaFuncSetAttribute(cutlass::device_kernel<Kernel>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, Kernel::SharedStorageSize);
  });
  if (attribute_error != cudaSuccess)
    return fail(LOWP_ERROR_CUDA, "%s: cudaFuncSetAttribute: %s", what, cudaGetErrorString(attribute_error));
  if (Kernel::get_workspace_size(args) != 0)
    return fail(LOWP_ERROR_INTERNAL, "%s: the kernel asks for a workspace", what);
  auto params = Kernel::to_underlying_arguments(args, nullptr);
  const dim3 grid = Kernel::get_grid_shape(params), block = Kernel::get_block_shape();
  using Cluster = typename Kernel::DispatchPolicy::ClusterShape;
  if constexpr (cute::size(Cluster{}) > 1) {
    const dim3 cluster(cute::size<0>(Cluster{}), cute::size<1>(Cluster{}), cute::size<2>(Cluster{}));
    void* kernel_params[] = {&params};
    const auto s = cutlass::ClusterLauncher::launch(grid, cluster, block, Kernel::SharedStorageSize, stream,
                                                    reinterpret_cast<const void*>(&cutlass::device_kernel<Kernel>),
                                                    kernel_params, early);
    if (s != cutlass::Status::kSuccess)
      return fail(LOWP_ERROR_CUDA, "%s: cluster launch failed: %s", what, cudaGetErrorString(cudaGetLastError()));
  } else {
    return launch_kernel(cutlass::device_kernel<Kernel>, grid, block, Kernel::SharedStorageSize, stream, early, what,
                         params);
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return fail(LOWP_ERROR_CUDA, "%s: kernel launch: %s", what, cudaGetErrorString(e));
  return LOWP_SUCCESS;
}

}  // namespace lowp::cuda::gemm_sm90
