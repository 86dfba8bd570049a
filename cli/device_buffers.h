// Byte buffers in host or CUDA device memory. The library picks its backend from where the
// pointers live, so running on CUDA means putting every buffer of a call on the device.
// Only this file touches the CUDA runtime (compiled in when LOWP_CLI_WITH_CUDA is defined).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lowp_cli {

enum class Backend { kCpu, kCuda };

const char* backend_name(Backend b);

// Whether this tool was compiled with the CUDA runtime.
bool cuda_built();

class Buffer {
 public:
  Buffer() = default;
  // Zero-filled; a 0-byte buffer has a null data() (an output the call should not produce).
  Buffer(Backend where, size_t bytes);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return ptr_; }
  float* floats() const { return static_cast<float*>(ptr_); }
  size_t size() const { return bytes_; }

  void upload(const void* src, size_t bytes);    // host -> buffer, bytes <= size()
  void download(void* dst, size_t bytes) const;  // buffer -> host
  template <typename T>
  std::vector<T> download_all() const {
    std::vector<T> out(bytes_ / sizeof(T));
    download(out.data(), out.size() * sizeof(T));
    return out;
  }

 private:
  void release() noexcept;
  Backend where_ = Backend::kCpu;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Waits for all device work (no-op on the CPU backend, whose calls are synchronous).
void synchronize(Backend b);

struct GpuInfo {
  int index;
  std::string name;
  int cc_major;
  int cc_minor;
  double memory_gib;
};

struct CudaRuntimeInfo {
  int runtime_version = 0;  // e.g. 13000
  int driver_version = 0;
  std::vector<GpuInfo> gpus;
  std::string error;  // why no GPU is listed, if none is
};

CudaRuntimeInfo cuda_runtime_info();

}  // namespace lowp_cli
