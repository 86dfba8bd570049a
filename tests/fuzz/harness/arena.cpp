#include "harness/arena.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/fuzz_values.h"  // Rng

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define LOWP_FUZZ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define LOWP_FUZZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define LOWP_FUZZ_POISON(p, n) ((void)(p), (void)(n))
#define LOWP_FUZZ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace lowp_fuzz {
namespace {

class HostMemory final : public Memory {
 public:
  uint8_t* allocate(size_t bytes) override {
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<uint8_t*>(p);
  }
  void release(uint8_t* p) override { std::free(p); }
  void to_host(void* dst, const uint8_t* src, size_t bytes) override {
    if (bytes != 0) std::memcpy(dst, src, bytes);
  }
  void from_host(uint8_t* dst, const void* src, size_t bytes) override {
    if (bytes != 0) std::memcpy(dst, src, bytes);
  }
  bool device() const override { return false; }
};

}  // namespace

Memory& host_memory() {
  static HostMemory m;
  return m;
}

Arena::~Arena() {
  unpoison_guards();
  for (auto& b : buffers_) b->memory->release(b->alloc);
}

Buffer& Arena::add(const std::string& name, size_t bytes, Role role, Memory& memory, size_t misalign) {
  auto b = std::make_unique<Buffer>();
  b->name = name;
  b->bytes = bytes;
  b->role = role;
  b->misalign = misalign % kGuard;
  b->stub = bytes > max_bytes_ || used_ + bytes > 4 * max_bytes_;
  b->memory = &memory;
  if (!b->stub) used_ += bytes;
  b->alloc = memory.allocate(b->alloc_bytes());
  std::vector<uint8_t> init(b->alloc_bytes(), kCanary);
  memory.from_host(b->alloc, init.data(), init.size());
  buffers_.push_back(std::move(b));
  return *buffers_.back();
}

void Arena::fill(Buffer& b, const void* content, size_t bytes) {
  if (std::min(bytes, b.usable_bytes()) == 0) return;
  b.memory->from_host(b.data(), content, std::min(bytes, b.usable_bytes()));
}

void Arena::fill_random(Buffer& b, uint64_t seed) {
  lowp_test::Rng rng(seed);
  std::vector<uint8_t> v(b.usable_bytes());
  for (size_t i = 0; i < v.size(); i += 8) {
    const uint64_t r = rng.next();
    std::memcpy(&v[i], &r, std::min<size_t>(8, v.size() - i));
  }
  fill(b, v.data(), v.size());
}

bool Arena::any_stub() const {
  for (const auto& b : buffers_)
    if (b->stub) return true;
  return false;
}

void Arena::poison_guards() {
  for (auto& b : buffers_) {
    if (b->memory->device()) continue;
    LOWP_FUZZ_POISON(b->alloc, kGuard + b->misalign);
    LOWP_FUZZ_POISON(b->data() + b->usable_bytes(), kGuard);
  }
}

void Arena::unpoison_guards() {
  for (auto& b : buffers_) {
    if (b->memory->device()) continue;
    LOWP_FUZZ_UNPOISON(b->alloc, b->alloc_bytes());
  }
}

Arena::Snapshot Arena::snapshot() {
  Snapshot s;
  for (auto& b : buffers_) {
    s.emplace_back(b->alloc_bytes());
    b->memory->to_host(s.back().data(), b->alloc, b->alloc_bytes());
  }
  return s;
}

void Arena::restore(const Snapshot& s) {
  for (size_t i = 0; i < buffers_.size(); ++i)
    buffers_[i]->memory->from_host(buffers_[i]->alloc, s[i].data(), s[i].size());
}

long long first_bad_guard(const Buffer& b, const std::vector<uint8_t>& bytes) {
  const size_t head = kGuard + b.misalign, tail = head + b.usable_bytes();
  for (size_t i = 0; i < bytes.size(); ++i)
    if ((i < head || i >= tail) && bytes[i] != kCanary) return static_cast<long long>(i);
  return -1;
}

}  // namespace lowp_fuzz
