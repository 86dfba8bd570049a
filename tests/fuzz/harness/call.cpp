#include "harness/call.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace lowp_fuzz {
namespace {

std::string list_rules(const std::vector<Rule>& rules) {
  std::string s;
  for (const Rule& r : rules)
    s += (s.empty() ? "" : ", ") + r.names.front() + (r.note.empty() ? "" : " (" + r.note + ")");
  return s;
}

bool reads_only(Role r) { return r == Role::kIn || r == Role::kUnused; }

bool has(const std::vector<lowp_status>& v, lowp_status s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Whether the message names a rule's argument: 2 = a full path, 1 = only an argument's root (then
// `root_rule` is that rule's path), 0 = none.
int message_names(const std::string& msg, const std::vector<Rule>& rules, std::string* root_rule) {
  int best = 0;
  for (const Rule& r : rules)
    for (const std::string& n : r.names) {
      if (msg.find(n) != std::string::npos) return 2;
      if (best == 0 && names_token(msg, root_of(n))) best = 1, *root_rule = n;
    }
  return best;
}

// An input's bytes before and after a call, apart from the member the call may write.
bool same_but_written_member(const Buffer& b, const std::vector<uint8_t>& before, const std::vector<uint8_t>& after) {
  if (b.written_bytes == 0) return before == after;
  const size_t from = kGuard + b.misalign + b.written_at, to = from + b.written_bytes;
  return std::equal(before.begin(), before.begin() + from, after.begin()) &&
         std::equal(before.begin() + to, before.end(), after.begin() + to);
}

}  // namespace

void* Call::buffer(const std::string& name, size_t bytes, Role role, const PtrDraw& how, Memory* memory) {
  Memory& m = memory != nullptr ? *memory : data;
  if (how.mode == PtrMode::kNull) return nullptr;
  if (how.mode == PtrMode::kAlias) {
    std::vector<Buffer*> fit;
    for (Buffer* b : data_buffers_)
      if (!b->stub && b->bytes >= bytes && b->memory == &m) fit.push_back(b);
    if (!fit.empty()) {
      Buffer* t = fit[how.pick % fit.size()];
      const bool written = !reads_only(role) || !reads_only(t->role);
      aliases.push_back({name, t->name, written, role == Role::kUnused || t->role == Role::kUnused || bytes == 0});
      return t->data();
    }
  }
  Buffer& b = arena.add(name, bytes, role, m, how.mode == PtrMode::kMisaligned ? how.misalign : 0);
  arena.fill_random(b, fill_seed_ += 0x9E3779B97F4A7C15ull);
  data_buffers_.push_back(&b);
  return b.data();
}

void* Call::buffer_with(const std::string& name, const void* content, size_t bytes, Role role, const PtrDraw& how,
                        Memory* memory) {
  void* p = buffer(name, bytes, role, how, memory);
  if (p != nullptr && data_buffers_.back()->data() == p) arena.fill(*data_buffers_.back(), content, bytes);
  return p;
}

void* Call::object_bytes(const std::string& name, const void* value, size_t size, size_t bytes) {
  const size_t n = std::max(bytes, sizeof(size_t));
  Buffer& b = arena.add(name, n, Role::kIn, host_memory());
  arena.fill_random(b, fill_seed_ += 0x9E3779B97F4A7C15ull);
  arena.fill(b, value, std::min(size, n));
  return b.data();
}

void Call::counts_as_written(const std::string& name) {
  for (Alias& a : aliases)
    if (a.name == name || a.target == name) a.written = true;
}

void Call::member_written(const void* object, size_t offset, size_t bytes) {
  for (auto& b : arena.buffers())
    if (b->data() == object && offset + bytes <= b->bytes) b->written_at = offset, b->written_bytes = bytes;
}

void Call::finish() {
  if (aliasing_decided) return;
  for (const Alias& a : aliases)
    if (a.written && !a.unused) expect.require(false, {a.name, a.target});
  // Stand-ins of buffers too large to allocate lie closer than their documented sizes, so those
  // extents may overlap (by where the heap put them): the library may reject that, naming either.
  for (size_t i = 0; i < data_buffers_.size(); ++i)
    for (size_t j = i + 1; j < data_buffers_.size(); ++j) {
      const Buffer *a = data_buffers_[i], *b = data_buffers_[j];
      if (!(a->stub || b->stub) || a->memory != b->memory) continue;
      const auto pa = reinterpret_cast<uintptr_t>(a->data()), pb = reinterpret_cast<uintptr_t>(b->data());
      if (pa <= pb ? pb - pa < a->bytes : pa - pb < b->bytes)
        expect.open(false, {a->name, b->name}, "stand-ins of buffers too large to allocate: documented extents overlap");
    }
}

std::string describe(Call& c) {
  std::ostringstream s;
  static const char* const kRoles[] = {"in", "out", "out-partial", "in-out", "unused"};
  for (const auto& b : c.arena.buffers()) {
    s << "  " << b->name << ": " << b->bytes << " bytes" << (b->stub ? " (stub)" : "") << ", "
      << kRoles[static_cast<int>(b->role)] << ", at " << static_cast<const void*>(b->data());
    if (b->role == Role::kIn && !b->stub && b->bytes <= 128 && b->bytes % 8 == 0) {  // structs, layouts: int64 words
      std::vector<int64_t> w(b->bytes / 8);
      b->memory->to_host(w.data(), b->data(), b->bytes);
      s << ", int64s:";
      for (const int64_t v : w) s << " " << v;
    }
    s << "\n";
  }
  for (const Call::Alias& a : c.aliases)
    s << "  alias: " << a.name << " = " << a.target << (a.written ? " (written)" : "") << "\n";
  const Outcome o = c.expect.outcome();
  s << "  expected: " << (o == Outcome::kAccept ? "accept" : o == Outcome::kReject ? "reject" : "either") << "\n";
  for (const Rule& r : c.expect.broken()) s << "    broken: " << r.names.front() << "\n";
  for (const Rule& r : c.expect.open_cases()) s << "    open: " << r.names.front() << ": " << r.note << "\n";
  return s.str();
}

Judgement run_checked(Call& c, const CheckOptions& opt) {
  Judgement j;
  if (opt.describe) std::fputs(describe(c).c_str(), stdout), std::fflush(stdout);
  const Outcome want = c.expect.outcome();
  if (want != Outcome::kReject && c.arena.any_stub()) {
    j.kind = Judgement::kSkip;
    j.detail = "a valid call whose buffers are too large to allocate";
    return j;
  }
  std::vector<std::string> aliased;
  bool written_alias = false;
  for (const Call::Alias& a : c.aliases) {
    aliased.insert(aliased.end(), {a.name, a.target});
    written_alias |= a.written;
  }
  auto is_aliased = [&](const Buffer& b) { return std::find(aliased.begin(), aliased.end(), b.name) != aliased.end(); };

  const Arena::Snapshot before = c.arena.snapshot();
  (void)lowp_rng_advance(nullptr, 0, nullptr);  // a stale message, so "" after success means something
  c.arena.poison_guards();
  const lowp_status st = c.invoke();
  c.arena.unpoison_guards();
  j.status = st;
  j.message = lowp_get_last_error();
  const Arena::Snapshot after = c.arena.snapshot();
  auto& bufs = c.arena.buffers();
  std::ostringstream why;
  auto failed = [&](const std::string& what) {
    j.kind = Judgement::kFail;
    j.detail = what;
    return j;
  };

  // Guards never change.
  for (size_t i = 0; i < bufs.size(); ++i)
    if (const long long at = first_bad_guard(*bufs[i], after[i]); at >= 0) {
      why << "guard byte " << at << " of " << bufs[i]->name << " (" << bufs[i]->bytes << " bytes) changed; status "
          << lowp_status_name(st) << " \"" << j.message << "\"";
      return failed(why.str());
    }

  if (st != LOWP_SUCCESS) {
    if (want == Outcome::kAccept)
      return failed(std::string("rejected a valid call: ") + lowp_status_name(st) + " \"" + j.message + "\"");
    std::vector<Rule> named = c.expect.broken();
    named.insert(named.end(), c.expect.open_cases().begin(), c.expect.open_cases().end());
    std::vector<lowp_status> ok = c.expect.reject_statuses();
    if (!c.expect.broken().empty())
      for (const Rule& r : c.expect.open_cases()) ok.insert(ok.end(), r.statuses.begin(), r.statuses.end());
    if (!has(ok, st))
      return failed(std::string("status ") + lowp_status_name(st) + " \"" + j.message + "\"; expected " +
                    lowp_status_name(ok.front()) + " for: " + list_rules(named));
    for (size_t i = 0; i < bufs.size(); ++i)
      if (before[i] != after[i]) return failed("rejected (\"" + j.message + "\") but wrote " + bufs[i]->name);
    if (j.message.empty())
      return failed(std::string("rejected with ") + lowp_status_name(st) + " and an empty message");
    std::string root_rule;
    const int names = message_names(j.message, named, &root_rule);
    if (names == 0) return failed("message \"" + j.message + "\" names none of: " + list_rules(named));
    if (names == 1) j.imprecise = root_rule;
    return j;
  }

  if (want == Outcome::kReject) return failed("accepted a call that breaks: " + list_rules(c.expect.broken()));
  if (!c.no_status && !j.message.empty()) return failed("succeeded with a message: \"" + j.message + "\"");
  for (size_t i = 0; i < bufs.size(); ++i)
    if (reads_only(bufs[i]->role) && !is_aliased(*bufs[i]) && !same_but_written_member(*bufs[i], before[i], after[i]))
      return failed("succeeded but changed the input " + bufs[i]->name);
  if (c.verify)
    if (std::string v = c.verify(); !v.empty()) return failed(v);

  // With an input aliased to an output the result depends on the order of reads and writes
  // (the CPU backend runs in threads): only guards and untouched inputs are judged then.
  if (opt.rerun && !written_alias) {  // the same call again, each whole output starting from other bytes
    c.arena.restore(before);
    for (auto& b : bufs)
      if (b->role == Role::kOut && !is_aliased(*b)) {
        std::vector<uint8_t> flipped(b->usable_bytes());
        b->memory->to_host(flipped.data(), b->data(), flipped.size());
        for (uint8_t& v : flipped) v = static_cast<uint8_t>(~v);
        c.arena.fill(*b, flipped.data(), flipped.size());
      }
    c.arena.poison_guards();
    const lowp_status st2 = c.invoke();
    c.arena.unpoison_guards();
    if (st2 != LOWP_SUCCESS) return failed(std::string("second run returned ") + lowp_status_name(st2));
    const Arena::Snapshot again = c.arena.snapshot();
    for (size_t i = 0; i < bufs.size(); ++i)
      if (again[i] != after[i]) {
        const bool out = bufs[i]->role == Role::kOut;
        return failed("a second run " + std::string(out ? "(output refilled) " : "") + "left other bytes in " +
                      bufs[i]->name + (out ? ": not every byte is written" : ": not deterministic"));
      }
  }
  return j;
}

}  // namespace lowp_fuzz
