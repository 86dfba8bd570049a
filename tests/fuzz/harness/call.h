// One fuzzed call: its arena (every byte it can see), the model's expectation, and the call
// itself. Entry points build a Call (harness/registry.h); run_checked() makes it and judges it.
#pragma once
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "harness/arena.h"
#include "harness/draw.h"
#include "harness/expect.h"
#include "lowp/lowp.h"

namespace lowp_fuzz {

class Call {
 public:
  explicit Call(Memory& data_memory, size_t max_bytes = size_t{8} << 20) : arena(max_bytes), data(data_memory) {}

  Arena arena;
  Expect expect;
  Memory& data;  // where data buffers live (host: CPU backend; device: CUDA backend)
  std::function<lowp_status()> invoke;
  // Checks of the values an accepted call wrote, where the header gives them exactly ("" = fine).
  std::function<std::string()> verify;
  // Functions without a status (initialisers, lowp_version): the thread's message is not theirs.
  bool no_status = false;
  // Set by entry points that state their aliasing rule themselves (else lowp.h's general rule).
  bool aliasing_decided = false;

  // A data buffer of `bytes` for argument `name`, presented as `how` says: its pointer, NULL,
  // misaligned, or (kAlias) an earlier buffer's pointer when one is large enough. Content: random.
  void* buffer(const std::string& name, size_t bytes, Role role, const PtrDraw& how, Memory* memory = nullptr);
  // The same, filled with `content` (`bytes` of it).
  void* buffer_with(const std::string& name, const void* content, size_t bytes, Role role, const PtrDraw& how,
                    Memory* memory = nullptr);

  // An argument struct in host memory, exactly `bytes` long (a growable struct's struct_size; at
  // least the 8 bytes of struct_size itself): the first bytes of `value`, random bytes past it.
  // NULL when `null`.
  template <typename T>
  T* object(const std::string& name, const T& value, bool null = false, size_t bytes = sizeof(T)) {
    if (null) return nullptr;
    return static_cast<T*>(object_bytes(name, &value, sizeof(T), bytes));
  }

  struct Alias {
    std::string name, target;
    bool written;  // the pointer's argument or the target's is written by the call
    bool unused;   // one of the two is not a buffer of the call (Role::kUnused, or 0 bytes)
  };
  std::vector<Alias> aliases;  // pointers presented as another buffer's

  void seed_fills(uint64_t seed) { fill_seed_ = seed; }
  // n bytes at p (a data buffer, host or device), for verify().
  std::vector<uint8_t> read(const void* p, size_t n) {
    std::vector<uint8_t> v(n);
    data.to_host(v.data(), static_cast<const uint8_t*>(p), n);
    return v;
  }
  // Aliases of `name` count as written: lowp_gemm_workspace_size checks d as lowp_gemm writes it.
  void counts_as_written(const std::string& name);
  // A member of the struct `object` (an argument struct of this call) that the call may write.
  void member_written(const void* object, size_t offset, size_t bytes);
  // lowp.h's aliasing rule (unless the entry point decided it): a written buffer sharing bytes
  // with another buffer of the call is rejected. Call once the entry point has built everything.
  void finish();

 private:
  void* object_bytes(const std::string& name, const void* value, size_t size, size_t bytes);
  std::vector<Buffer*> data_buffers_;  // alias candidates
  uint64_t fill_seed_ = 0;
};

struct Judgement {
  enum Kind { kPass, kSkip, kFail } kind = kPass;
  std::string detail;     // kFail: what went wrong; kSkip: why
  std::string imprecise;  // passed, but the message names the argument's root only
  lowp_status status = LOWP_SUCCESS;
  std::string message;
};

// Every buffer (name, bytes, role, pointer) and what the model expects, for a replayed call.
std::string describe(Call& c);

struct CheckOptions {
  bool rerun = true;  // accepted calls: run again (outputs refilled) and compare
  bool describe = false;  // print describe(c) before the call
};

// Makes the call as the expectation allows and checks it: on a rejection nothing changed, the
// status is one the broken rules allow and the message names an argument; on success no guard
// byte changed, inputs are intact, "" is the message and a second run gives the same bytes.
Judgement run_checked(Call& c, const CheckOptions& opt = {});

}  // namespace lowp_fuzz
