// Host side of every CUDA launch: stream and error checks, the launch itself (programmatic
// dependent launches, the shared-memory carveout), cached device attributes, and the input
// element types the launchers instantiate kernels with. No device code: common.cuh has it.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <set>
#include <type_traits>
#include <utility>

#include "core/error.h"
#include "lowp/lowp.h"

namespace lowp::cuda {

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

// Turns the last launch error into LOWP_ERROR_CUDA with the op's name.
inline lowp_status check_launch(const char* op) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return fail(LOWP_ERROR_CUDA, "%s: CUDA error %s (%s)", op, cudaGetErrorName(e), cudaGetErrorString(e));
  return LOWP_SUCCESS;
}

inline lowp_status check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) return fail(LOWP_ERROR_CUDA, "%s: CUDA error %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return LOWP_SUCCESS;
}

// The (kernel, device) pairs whose carveout is set: a lookup under a lock instead of a driver
// call per launch (cudaFuncSetAttribute costs about a third of a microsecond). A cudaDeviceReset
// drops the attribute but not this record; later launches then run with the default carveout,
// slower but correct.
struct CarveoutRecord {
  std::mutex m;
  std::set<std::pair<const void*, int>> set;
};
inline CarveoutRecord& carveout_record() {
  static CarveoutRecord r;
  return r;
}

// Asks for the largest shared-memory carveout for kernel, once per device. The encode tile
// kernels need it for 5 blocks per SM; kernels that an encode launches early after must ask for
// it too, or the SMs they occupy keep a smaller carveout and take few of the early encode blocks
// (the early launch then loses much of its gain).
template <typename... Params>
lowp_status prefer_shared_carveout(void (*kernel)(Params...), const char* op) {
  int device = 0;
  LOWP_TRY(check_cuda(cudaGetDevice(&device), op));
  const std::pair<const void*, int> key{reinterpret_cast<const void*>(kernel), device};
  CarveoutRecord& r = carveout_record();
  {
    const std::lock_guard<std::mutex> lock(r.m);
    if (r.set.count(key) != 0) return LOWP_SUCCESS;
  }
  LOWP_TRY(check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared), op));
  const std::lock_guard<std::mutex> lock(r.m);
  r.set.insert(key);
  return LOWP_SUCCESS;
}

// kernel<<<grid, block, smem, st>>>(args...), as a programmatic dependent launch when `early`.
template <typename... Params, typename... Args>
lowp_status launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t st, bool early,
                          const char* op, Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = early ? 1 : 0;
  return check_cuda(cudaLaunchKernelEx(&cfg, kernel, static_cast<Args&&>(args)...), op);
}

// Multiprocessor count of the current device (cached per device; graph-capture safe).
int sm_count();
// L2 size of the current device in bytes (cached per device; 0 when unknown).
int64_t l2_cache_bytes();
// Dynamic shared memory per block with which at most `blocks` blocks fit on one multiprocessor
// of the current device (cached attributes; 0 when unknown).
size_t smem_for_blocks_per_sm(int blocks);

__host__ __device__ inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// Input element types as raw storage, decoded with the same numerics functions as the CPU.
struct Bf16 { using Raw = uint16_t; };
struct F16 { using Raw = uint16_t; };
struct F32 { using Raw = float; };

// Calls f(std::bool_constant<b>{}...) with run-time flags b as template arguments: the launchers'
// one step from a launch plan to a kernel instantiation. f's body decides (if constexpr) which
// combinations have a kernel.
template <typename F>
lowp_status with_flags(F&& f) {
  return f();
}
template <typename F, typename... Flags>
lowp_status with_flags(F&& f, bool first, Flags... rest) {
  return with_flags([&](auto... later) { return first ? f(std::true_type{}, later...) : f(std::false_type{}, later...); },
                    rest...);
}

// Calls f(T{}) with the element type of an input dtype: bf16, fp16, else fp32 (validated).
template <typename F>
inline lowp_status with_input_type(lowp_dtype t, F&& f) {
  switch (t) {
    case LOWP_DTYPE_BFLOAT16: return f(Bf16{});
    case LOWP_DTYPE_FLOAT16: return f(F16{});
    default: return f(F32{});
  }
}

}  // namespace lowp::cuda
