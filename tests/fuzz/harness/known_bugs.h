// Failures issue 39 lists whose fix is not merged yet. The bounded CI run tolerates them (counted
// and printed, never hidden): failures that match known_bug(), and calls known_crash_*() marks,
// which would abort or hang the process and are skipped. --known-bugs-fatal, and the regression
// corpus's known_bug cases, fail on them. Delete an entry when its fix lands.
#pragma once
#include "harness/call.h"
#include "harness/group_args.h"

namespace lowp_fuzz {

// The issue item a failure of `entry` matches, or nullptr.
const char* known_bug(const char* entry, const Judgement& j);

// Issue 39 #4: out-of-range enum values are undefined behaviour in the library's validation, and
// UBSan aborts on them. While this is true, draws keep enums within the values a C++ enum can
// hold (still invalid ones: dtype 6 or 7, scaling 5 to 7, ...). Default true.
bool avoid_enum_ub();
void set_avoid_enum_ub(bool avoid);

// Found by this fuzzer, not in issue 39: lowp_grouped_layout_error stores through a misaligned
// bad_member_plus_one (no alignment check; UBSan: misaligned store).
inline constexpr const char* kMisalignedLayoutErrorOutput =
    "fuzzer finding: lowp_grouped_layout_error writes a misaligned bad_member_plus_one";

// lowp_nvfp4_swizzle_scales whose padded size overflows int64 (#3: UBSan, signed overflow).
const char* known_crash_swizzle(int64_t rows, int64_t blocks);

// An output aliasing a group's layout array (first_dims, last_dims, offsets, member_rows): the
// call rewrites its own layout while walking it and runs off its buffers ("Aliasing of inputs
// and outputs is neither rejected nor documented").
const char* known_crash_alias(const std::vector<Call::Alias>& aliases);

// Grouped FP8 calls: an empty member with a huge other dim (#1), an amax stride past 2^56 (#2).
// Reads the layout arrays the call gets (an input aliasing another holds other values).
const char* known_crash_grouped(const lowp_grouped_tensor* g, int64_t amax_stride);

}  // namespace lowp_fuzz
