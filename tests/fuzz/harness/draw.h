// Random argument draws for the fuzzer: mostly valid values, and within a per-call budget of
// faults, the values callers get wrong: 0, negative and huge dims, out-of-range enum ints, flags
// other than 0/1, struct_size values, NULL, misaligned and aliased pointers. Whether a value is
// valid is decided later by the model, from the final arguments, never by the draw.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "common/fuzz_values.h"  // Rng

namespace lowp_fuzz {

enum class PtrMode { kNormal, kNull, kMisaligned, kAlias };

struct PtrDraw {
  PtrMode mode = PtrMode::kNormal;
  size_t misalign = 0;  // kMisaligned: bytes past an aligned address
  uint32_t pick = 0;    // kAlias: which earlier buffer (mod their count)
};

class Draw {
 public:
  explicit Draw(uint64_t seed);
  lowp_test::Rng rng;

  bool percent(int p) { return static_cast<int>(rng.below(100)) < p; }
  // A fault at this field: true at most `faults` times per call.
  bool bad(int p = 12);
  int64_t pick(std::initializer_list<int64_t> values);
  uint64_t seed() { return rng.next(); }

  // A dimension: valid draws are small multiples of `multiple` (now and then any small value);
  // faults are 0, negative or huge.
  int64_t dim(int64_t multiple = 1, int64_t max_units = 8);
  // A count that may legitimately be 0 (empty members); faults are negative or huge.
  int64_t count0(int64_t max);
  // An enum with `n` values (0..n-1), faults are out-of-range ints.
  int enum_value(int n);
  int enum_among(std::initializer_list<int> preferred, int n);  // mostly one of `preferred`
  int flag(int on_percent = 30);                                // 0/1; faults: 2, -1, INT_MIN
  // struct_size of a growable struct: sizeof; faults: 0, 1, below the first release, padding, above.
  size_t struct_size(size_t full, size_t first);
  // A reserved member of a growable struct (never read): mostly 0, else any bits, as an older
  // caller's padding may hold.
  uint32_t reserved();
  // A required pointer: faults NULL, misaligned, aliased. optional(): NULL with 1 - present.
  PtrDraw ptr();
  PtrDraw optional(int present_percent);
  PtrDraw null() const { return {PtrMode::kNull, 0, 0}; }
  PtrDraw normal() const { return {}; }

  int faults = 0;
};

}  // namespace lowp_fuzz
