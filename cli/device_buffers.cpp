#include "device_buffers.h"

#include <cstring>
#include <stdexcept>
#include <utility>

#ifdef LOWP_CLI_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace lowp_cli {
namespace {

#ifdef LOWP_CLI_WITH_CUDA
void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(e) + ": " +
                             cudaGetErrorString(e));
}
#else
[[noreturn]] void no_cuda() {
  throw std::runtime_error("this lowp tool was built without CUDA (configure with -DLOWP_CUDA=ON)");
}
#endif

}  // namespace

const char* backend_name(Backend b) { return b == Backend::kCuda ? "cuda" : "cpu"; }

bool cuda_built() {
#ifdef LOWP_CLI_WITH_CUDA
  return true;
#else
  return false;
#endif
}

Buffer::Buffer(Backend where, size_t bytes) : where_(where), bytes_(bytes) {
  if (bytes == 0) return;
  if (where == Backend::kCpu) {
    // operator new aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16), enough for the fast paths.
    ptr_ = ::operator new(bytes);
    std::memset(ptr_, 0, bytes);
    return;
  }
#ifdef LOWP_CLI_WITH_CUDA
  check_cuda(cudaMalloc(&ptr_, bytes), "cudaMalloc");
  const cudaError_t e = cudaMemset(ptr_, 0, bytes);
  if (e != cudaSuccess) {
    release();
    check_cuda(e, "cudaMemset");
  }
#else
  no_cuda();
#endif
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : where_(other.where_),
      ptr_(std::exchange(other.ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    where_ = other.where_;
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void Buffer::release() noexcept {
  if (ptr_ == nullptr) return;
  if (where_ == Backend::kCpu) ::operator delete(ptr_);
#ifdef LOWP_CLI_WITH_CUDA
  else
    cudaFree(ptr_);  // an error here (a sticky fault) was already reported by the call that caused it
#endif
  ptr_ = nullptr;
  bytes_ = 0;
}

void Buffer::upload(const void* src, size_t bytes) {
  if (bytes > bytes_) throw std::logic_error("Buffer::upload: more bytes than the buffer holds");
  if (bytes == 0) return;
  if (where_ == Backend::kCpu) {
    std::memcpy(ptr_, src, bytes);
    return;
  }
#ifdef LOWP_CLI_WITH_CUDA
  check_cuda(cudaMemcpy(ptr_, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (to device)");
#else
  no_cuda();
#endif
}

void Buffer::download(void* dst, size_t bytes) const {
  if (bytes > bytes_) throw std::logic_error("Buffer::download: more bytes than the buffer holds");
  if (bytes == 0) return;
  if (where_ == Backend::kCpu) {
    std::memcpy(dst, ptr_, bytes);
    return;
  }
#ifdef LOWP_CLI_WITH_CUDA
  check_cuda(cudaMemcpy(dst, ptr_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (to host)");
#else
  no_cuda();
#endif
}

void synchronize(Backend b) {
  if (b == Backend::kCpu) return;
#ifdef LOWP_CLI_WITH_CUDA
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#else
  no_cuda();
#endif
}

CudaRuntimeInfo cuda_runtime_info() {
  CudaRuntimeInfo info;
#ifdef LOWP_CLI_WITH_CUDA
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    // Said plainly: without any driver the runtime reports an "insufficient" driver version.
    if (info.driver_version == 0)
      info.error = "no NVIDIA driver is installed (no GPU on this machine?)";
    else if (e == cudaErrorNoDevice)
      info.error = "the NVIDIA driver sees no GPU (check CUDA_VISIBLE_DEVICES)";
    else if (e == cudaErrorInsufficientDriver)
      info.error = "the NVIDIA driver is older than the CUDA runtime lowp was built with: update the driver";
    else
      info.error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return info;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    info.gpus.push_back(
        {i, p.name, p.major, p.minor, static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0)});
  }
  if (info.gpus.empty()) info.error = "the NVIDIA driver sees no GPU (check CUDA_VISIBLE_DEVICES)";
#else
  info.error = "not built";
#endif
  return info;
}

}  // namespace lowp_cli
