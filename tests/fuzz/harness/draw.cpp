#include "harness/draw.h"

#include <climits>

namespace lowp_fuzz {

Draw::Draw(uint64_t seed) : rng(seed) {
  const uint32_t r = rng.below(100);
  faults = r < 40 ? 0 : r < 75 ? 1 : r < 90 ? 2 : 3;
}

bool Draw::bad(int p) {
  if (faults <= 0 || !percent(p)) return false;
  --faults;
  return true;
}

int64_t Draw::pick(std::initializer_list<int64_t> values) {
  return values.begin()[rng.below(static_cast<uint32_t>(values.size()))];
}

int64_t Draw::dim(int64_t multiple, int64_t max_units) {
  if (bad())
    return pick({0, -1, -16, INT64_MIN, int64_t{1} << 31, int64_t{1} << 40, (int64_t{1} << 56) + 16, int64_t{1} << 62,
                 INT64_MAX, 17, 1, 8});
  if (percent(8)) return 1 + rng.below(300);
  if (percent(5)) return multiple * (max_units + 1 + rng.below(24));  // beyond one 128-row tile
  return multiple * (1 + rng.below(static_cast<uint32_t>(max_units)));
}

int64_t Draw::count0(int64_t max) {
  if (bad()) return pick({-1, -2, INT64_MIN, int64_t{1} << 40, int64_t{1} << 62, INT64_MAX});
  return rng.below(static_cast<uint32_t>(max + 1));
}

int Draw::enum_value(int n) {
  if (bad()) return static_cast<int>(pick({-1, n, n + 1, 7, 8, 42, 99, 255, 256, INT_MAX, INT_MIN}));
  return static_cast<int>(rng.below(static_cast<uint32_t>(n)));
}

int Draw::enum_among(std::initializer_list<int> preferred, int n) {
  if (!percent(15)) {
    const int v = preferred.begin()[rng.below(static_cast<uint32_t>(preferred.size()))];
    if (!bad()) return v;
  }
  return enum_value(n);
}

int Draw::flag(int on_percent) {
  if (bad(6)) return static_cast<int>(pick({2, -1, INT_MIN, 256}));
  return percent(on_percent) ? 1 : 0;
}

size_t Draw::struct_size(size_t full, size_t first) {
  if (!bad(8)) return full;
  return static_cast<size_t>(
      pick({0, 1, 8, static_cast<int64_t>(first) - 4, static_cast<int64_t>(first) - 1, static_cast<int64_t>(first),
            static_cast<int64_t>(full) - 1, static_cast<int64_t>(full) + 8, static_cast<int64_t>(full) * 4, INT64_MAX}));
}

uint32_t Draw::reserved() { return percent(70) ? 0u : static_cast<uint32_t>(rng.next()); }

PtrDraw Draw::ptr() {
  if (!bad(8)) return {};
  switch (rng.below(3)) {
    case 0:
      return {PtrMode::kNull, 0, 0};
    case 1:
      return {PtrMode::kMisaligned, static_cast<size_t>(pick({1, 2, 3, 4, 6, 8, 12})), 0};
    default:
      return {PtrMode::kAlias, 0, static_cast<uint32_t>(rng.next())};
  }
}

PtrDraw Draw::optional(int present_percent) {
  if (!percent(present_percent)) return null();
  const PtrDraw p = ptr();
  return p.mode == PtrMode::kNull ? PtrDraw{} : p;
}

}  // namespace lowp_fuzz
