#include "harness/registry.h"

#include <algorithm>

namespace lowp_fuzz {
namespace {
std::vector<EntryPoint>& table() {
  static std::vector<EntryPoint> t;
  return t;
}
}  // namespace

Registration::Registration(const char* name, void (*build)(Draw&, Call&)) {
  table().push_back({name, build});
  std::sort(table().begin(), table().end(),
            [](const EntryPoint& a, const EntryPoint& b) { return std::string(a.name) < b.name; });
}

const std::vector<EntryPoint>& entry_points() { return table(); }

const EntryPoint* find_entry_point(const std::string& name) {
  for (const EntryPoint& e : table())
    if (name == e.name) return &e;
  return nullptr;
}

CallId call_id(const std::vector<const EntryPoint*>& eps, uint64_t seed, uint64_t index) {
  lowp_test::Rng r(seed ^ (index * 0xD1B54A32D192ED03ull));
  const uint64_t draw_seed = r.next();
  return {eps[index % eps.size()], draw_seed};
}

Judgement fuzz_one(const EntryPoint& ep, uint64_t draw_seed, Memory& memory, const CheckOptions& opt, size_t max_bytes,
                   std::vector<std::string>* open_notes) {
  Draw d(draw_seed);
  Call c(memory, max_bytes);
  c.seed_fills(d.seed());
  ep.build(d, c);
  c.finish();
  if (open_notes != nullptr && c.expect.broken().empty())  // calls only an open case decides
    for (const Rule& r : c.expect.open_cases()) open_notes->push_back(r.names.front() + ": " + r.note);
  return run_checked(c, opt);
}

}  // namespace lowp_fuzz
