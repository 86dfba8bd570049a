#include "harness/known_bugs.h"

#include <atomic>
#include <cstring>
#include <string>

#include "harness/model.h"

namespace lowp_fuzz {

const char* known_bug(const char* entry, const Judgement& j) {
  const std::string e = entry, m = j.message;
  // "the size query says 'shape has shape 0 x 16' and names 'query->scaling'/'query->dtype'"
  if (e == "lowp_quantized_sizes_query" && m.find("shape has") != std::string::npos)
    return "issue 39 messages: the size query calls rows and cols 'shape'";
  // "with amax_given = 1 a NaN estimation factor is rejected although the header says estimation
  // is then ignored"
  if (j.detail.rfind("rejected a valid call", 0) == 0 && m.find("cfg->amax_estimation_factor") != std::string::npos)
    return "issue 39 messages: with amax_given a bad amax_estimation_factor is still rejected";
  return nullptr;
}

namespace {
std::atomic<bool> g_avoid_enum_ub{true};
}
bool avoid_enum_ub() { return g_avoid_enum_ub.load(); }
void set_avoid_enum_ub(bool avoid) { g_avoid_enum_ub = avoid; }

const char* known_crash_alias(const std::vector<Call::Alias>& aliases) {
  auto layout = [](const std::string& n) {
    for (const char* l : {"first_dims", "last_dims", "offsets", "member_rows"})
      if (n.find(l) != std::string::npos) return true;
    return false;
  };
  // Buffers that a layout array and a written argument share (directly or both aliasing one).
  for (const Call::Alias& a : aliases) {
    bool has_layout = layout(a.name) || layout(a.target), has_written = a.written;
    for (const Call::Alias& b : aliases)
      if (b.target == a.target) has_layout |= layout(b.name), has_written |= b.written;
    if (has_layout && has_written) return "issue 39 aliasing: an output aliasing a group's layout array";
  }
  return nullptr;
}

const char* known_crash_swizzle(int64_t rows, int64_t blocks) {
  if (rows < 1 || blocks < 1) return nullptr;
  const __int128 bytes = static_cast<__int128>(roundup(rows, 128)) * roundup(blocks, 4);
  return bytes > INT64_MAX ? "issue 39 #3: signed overflow in the swizzle's size check" : nullptr;
}

const char* known_crash_grouped(const lowp_grouped_tensor* g, int64_t amax_stride) {
  if (g == nullptr || g->num_tensors < 1 || g->num_tensors > 64) return nullptr;
  const int64_t n = g->num_tensors;
  if (g->first_dims != nullptr && g->last_dims != nullptr)
    for (int64_t t = 0; t < n; ++t) {
      int64_t f, l;  // memcpy: the arrays may be misaligned (then the call is rejected first)
      std::memcpy(&f, g->first_dims + t, 8);
      std::memcpy(&l, g->last_dims + t, 8);
      if ((f == 0 && l > (int64_t{1} << 24)) || (l == 0 && f > (int64_t{1} << 24)))
        return "issue 39 #1: an empty member with a huge other dim";
    }
  if (amax_stride > 0 && n > 1 &&
      mul_sat(static_cast<uint64_t>(n - 1), static_cast<uint64_t>(amax_stride)) >= static_cast<uint64_t>(kMaxElements))
    return "issue 39 #2: amax_stride without an upper bound";
  return nullptr;
}

}  // namespace lowp_fuzz
