// Every byte a fuzzed call can see lives in one Arena: each argument buffer (and each argument
// struct) is its own allocation, sized exactly as lowp.h documents, with canary bytes before and
// after it (poisoned for AddressSanitizer too, so a stray read or write is reported where it
// happens). The arena snapshots everything, restores it, and reports the first byte that differs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lowp_fuzz {

// How a call may treat a buffer when it succeeds (on a rejection nothing may change at all).
enum class Role {
  kIn,          // read only: unchanged
  kOut,         // overwritten whole: the result does not depend on what was there before
  kOutPartial,  // some bytes written (e.g. members of a group, strided amaxes)
  kInOut,       // read and written in place
  kUnused,      // passed but not one of the call's buffers (a part not requested, a field the recipe
                // does not use, the host workspace): unchanged, and free to share bytes with any
};

// Where buffers live: host memory (CPU backend) or device memory (CUDA backend).
class Memory {
 public:
  virtual ~Memory() = default;
  virtual uint8_t* allocate(size_t bytes) = 0;  // 256-byte aligned
  virtual void release(uint8_t* p) = 0;
  virtual void to_host(void* dst, const uint8_t* src, size_t bytes) = 0;
  virtual void from_host(uint8_t* dst, const void* src, size_t bytes) = 0;
  virtual bool device() const = 0;
};
Memory& host_memory();

constexpr size_t kGuard = 64;  // canary bytes on each side of a buffer
constexpr uint8_t kCanary = 0xC5;

struct Buffer {
  std::string name;  // the argument, as lowp.h spells it: "q->rowwise.scale_inv"
  size_t bytes;      // what the header documents (0 allowed)
  Role role;
  size_t misalign;  // the pointer is this many bytes past a 64-byte boundary
  bool stub;        // documented size too large to allocate: a small stand-in (never accepted)
  Memory* memory;
  // Bytes [written_at, written_at + written_bytes) of an input struct that a successful call may
  // write (q->nvfp4_outer_max): the entry point's verify() checks their value.
  size_t written_at = 0, written_bytes = 0;
  uint8_t* alloc;  // [kGuard + misalign canary][bytes][kGuard canary]
  uint8_t* data() const { return alloc + kGuard + misalign; }
  size_t alloc_bytes() const { return kGuard + misalign + (stub ? kStubBytes : bytes) + kGuard; }
  size_t usable_bytes() const { return stub ? kStubBytes : bytes; }
  static constexpr size_t kStubBytes = 64;
};

class Arena {
 public:
  explicit Arena(size_t max_bytes = size_t{8} << 20) : max_bytes_(max_bytes) {}
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // A buffer of `bytes` (filled with `fill`, repeated), or a stub when the arena cannot afford it.
  Buffer& add(const std::string& name, size_t bytes, Role role, Memory& memory, size_t misalign = 0);
  void fill(Buffer& b, const void* content, size_t bytes);  // the first `bytes` of the buffer
  void fill_random(Buffer& b, uint64_t seed);

  std::vector<std::unique_ptr<Buffer>>& buffers() { return buffers_; }
  bool any_stub() const;

  // Guards poisoned for ASan during the call (host buffers), unpoisoned for our own reads.
  void poison_guards();
  void unpoison_guards();

  // Every allocation's bytes (guards included), in buffer order.
  using Snapshot = std::vector<std::vector<uint8_t>>;
  Snapshot snapshot();
  void restore(const Snapshot& s);

 private:
  size_t max_bytes_, used_ = 0;
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

// Guard bytes of b in a snapshot entry: the first differing one, or -1.
long long first_bad_guard(const Buffer& b, const std::vector<uint8_t>& bytes);

}  // namespace lowp_fuzz
