// Every public entry point the fuzzer knows, each registered by the file that models it
// (tests/fuzz/entry_points/): adding one is adding that file. entry_points_test checks that
// every LOWP_API function of lowp.h and gemm.h is here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/call.h"
#include "harness/draw.h"

namespace lowp_fuzz {

struct EntryPoint {
  const char* name;  // the C function
  // Draws the arguments into c.arena, states the header's rules for them in c.expect and sets
  // c.invoke. Regression tests call the same builders with arguments of their own.
  void (*build)(Draw& d, Call& c);
};

const std::vector<EntryPoint>& entry_points();
const EntryPoint* find_entry_point(const std::string& name);

struct Registration {
  Registration(const char* name, void (*build)(Draw&, Call&));
};
#define LOWP_FUZZ_ENTRY_POINT(function, build) \
  static const ::lowp_fuzz::Registration lowp_fuzz_registration_##function(#function, build)

// Call `index` of a run with `seed`: its entry point (round robin over `eps`) and draw seed.
struct CallId {
  const EntryPoint* entry;
  uint64_t draw_seed;
};
CallId call_id(const std::vector<const EntryPoint*>& eps, uint64_t seed, uint64_t index);

// Builds and judges one call; `max_bytes` caps each buffer (larger ones make the call a skip).
// `open_notes` receives the notes of the open cases of a call that breaks no rule.
Judgement fuzz_one(const EntryPoint& ep, uint64_t draw_seed, Memory& memory, const CheckOptions& opt = {},
                   size_t max_bytes = size_t{8} << 20, std::vector<std::string>* open_notes = nullptr);

}  // namespace lowp_fuzz
