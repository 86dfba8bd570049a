// lowp_fuzz: the adversarial fuzzer over every public entry point (docs/testing.md, "What the
// adversarial suite guarantees"). A seeded run of N calls or T seconds, round robin over the
// entry points; every failure prints the command that replays it alone.
//
//   lowp_fuzz [--seed S] [--calls N] [--seconds T] [--entry NAME]... [--call I] [--device]
//             [--strict-messages] [--max-failures K] [--timeout S] [--list] [--verbose]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "harness/registry.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace lowp_fuzz {
Memory& device_memory();  // device_memory.cpp (GPU build) or no_device_memory.cpp
}

using namespace lowp_fuzz;

// UBSan reports end in abort(), so the SIGABRT handler below names the call to replay.
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:abort_on_error=1"; }

namespace {

char g_current[512];  // what runs now, for the watchdog and crash reports

void report_current() {
  const ssize_t n = write(2, g_current, std::strlen(g_current));
  (void)n;
}

void on_alarm(int) {
  report_current();
  const char msg[] = "lowp_fuzz: the call above did not return in time (a hang)\n";
  const ssize_t n = write(2, msg, sizeof msg - 1);
  (void)n;
  _exit(3);
}

void on_fatal(int sig) {
  report_current();
  signal(sig, SIG_DFL);
  raise(sig);
}

struct Options {
  uint64_t seed = 0;
  bool seed_given = false;
  uint64_t calls = 0;
  double seconds = 0;
  std::vector<std::string> entries;
  long long only_call = -1;
  bool device = false, strict_messages = false, list = false, verbose = false;
  int max_failures = 10;
  unsigned timeout = 30;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--seed")
      o.seed = std::strtoull(next(), nullptr, 0), o.seed_given = true;
    else if (a == "--calls")
      o.calls = std::strtoull(next(), nullptr, 0);
    else if (a == "--seconds")
      o.seconds = std::atof(next());
    else if (a == "--entry")
      o.entries.push_back(next());
    else if (a == "--call")
      o.only_call = std::atoll(next());
    else if (a == "--device")
      o.device = true;
    else if (a == "--strict-messages")
      o.strict_messages = true;
    else if (a == "--max-failures")
      o.max_failures = std::atoi(next());
    else if (a == "--timeout")
      o.timeout = static_cast<unsigned>(std::atoi(next()));
    else if (a == "--list")
      o.list = true;
    else if (a == "--verbose")
      o.verbose = true;
    else {
      std::fprintf(stderr, "lowp_fuzz: unknown argument '%s' (see the top of tests/fuzz/fuzz_main.cpp)\n", a.c_str());
      return false;
    }
  }
  return true;
}

struct Tally {
  uint64_t calls = 0, accepted = 0, rejected = 0, skipped = 0, failed = 0, imprecise = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  if (o.list) {
    for (const EntryPoint& e : entry_points()) std::printf("%s\n", e.name);
    return 0;
  }
  std::vector<const EntryPoint*> eps;
  for (const EntryPoint& e : entry_points())
    if (o.entries.empty() || std::find(o.entries.begin(), o.entries.end(), e.name) != o.entries.end())
      eps.push_back(&e);
  if (eps.empty()) {
    std::fprintf(stderr, "lowp_fuzz: no entry point matches --entry (try --list)\n");
    return 2;
  }
  if (!o.seed_given) o.seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  if (o.calls == 0 && o.seconds <= 0) o.calls = 1000;
  Memory& memory = o.device ? device_memory() : host_memory();

  signal(SIGALRM, on_alarm);
  signal(SIGSEGV, on_fatal);
  signal(SIGABRT, on_fatal);
  signal(SIGBUS, on_fatal);
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_set_death_callback(report_current);
#endif

  std::printf("lowp_fuzz: seed %llu, %zu entry points, %s memory%s\n", static_cast<unsigned long long>(o.seed),
              eps.size(), o.device ? "device" : "host", o.only_call >= 0 ? ", one call" : "");
  std::fflush(stdout);
  std::map<std::string, Tally> per_entry;
  std::map<std::string, uint64_t> open_notes, open_accepted, imprecise;
  Tally all;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const uint64_t first = o.only_call >= 0 ? static_cast<uint64_t>(o.only_call) : 0;
  for (uint64_t i = first;; ++i) {
    if (o.only_call >= 0 ? i > first : (o.calls ? i >= o.calls : elapsed() >= o.seconds)) break;
    const CallId id = call_id(eps, o.seed, i);
    std::snprintf(g_current, sizeof g_current,
                  "lowp_fuzz: call %llu (%s); replay: lowp_fuzz --seed %llu --call %llu%s\n",
                  static_cast<unsigned long long>(i), id.entry->name, static_cast<unsigned long long>(o.seed),
                  static_cast<unsigned long long>(i), o.device ? " --device" : "");
    if (o.verbose) report_current();
    alarm(o.timeout);
    std::vector<std::string> notes;
    CheckOptions opt;
    opt.describe = o.verbose && o.only_call >= 0;
    const Judgement j = fuzz_one(*id.entry, id.draw_seed, memory, opt, size_t{8} << 20, &notes);
    alarm(0);
    Tally& t = per_entry[id.entry->name];
    ++t.calls, ++all.calls;
    for (const std::string& n : notes) {
      const std::string key = std::string(id.entry->name) + ": " + n;
      ++open_notes[key];
      if (j.kind == Judgement::kPass && j.status == LOWP_SUCCESS) ++open_accepted[key];
    }
    if (j.kind == Judgement::kSkip) {
      ++t.skipped, ++all.skipped;
    } else if (j.kind == Judgement::kFail || (o.strict_messages && !j.imprecise.empty())) {
      ++t.failed, ++all.failed;
      std::printf("FAIL %s: %s\n  %s", id.entry->name,
                  j.kind == Judgement::kFail ? j.detail.c_str()
                                             : ("message \"" + j.message + "\" does not name " + j.imprecise).c_str(),
                  g_current);
      if (static_cast<int>(all.failed) >= o.max_failures) break;
    } else {
      (j.status == LOWP_SUCCESS ? t.accepted : t.rejected)++;
      (j.status == LOWP_SUCCESS ? all.accepted : all.rejected)++;
      if (!j.imprecise.empty()) {
        ++t.imprecise, ++all.imprecise;
        ++imprecise[std::string(id.entry->name) + ": names " + root_of(j.imprecise) + " but not " + j.imprecise +
                    ": \"" + j.message.substr(0, 90) + "\""];
      }
    }
  }
  const double secs = elapsed();
  std::printf("\n%-40s %8s %8s %8s %8s %8s\n", "entry point", "calls", "accepted", "rejected", "skipped", "FAILED");
  for (const auto& [name, t] : per_entry)
    std::printf("%-40s %8llu %8llu %8llu %8llu %8llu\n", name.c_str(), static_cast<unsigned long long>(t.calls),
                static_cast<unsigned long long>(t.accepted), static_cast<unsigned long long>(t.rejected),
                static_cast<unsigned long long>(t.skipped), static_cast<unsigned long long>(t.failed));
  if (!open_notes.empty()) {
    std::printf(
        "\nCases lowp.h leaves open (either outcome passed): calls that met each, how many the library accepted:\n");
    for (const auto& [n, k] : open_notes)
      std::printf("  %6llu %6llu  %s\n", static_cast<unsigned long long>(k),
                  static_cast<unsigned long long>(open_accepted[n]), n.c_str());
  }
  if (!imprecise.empty()) {
    std::printf("\nRejections whose message names the argument but not the field (--strict-messages fails them):\n");
    for (const auto& [n, k] : imprecise) std::printf("  %6llu  %s\n", static_cast<unsigned long long>(k), n.c_str());
  }
  std::printf(
      "\nlowp_fuzz: seed %llu: %llu calls in %.1f s: %llu accepted, %llu rejected, %llu skipped (too large), "
      "%llu FAILED\n",
      static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(all.calls), secs,
      static_cast<unsigned long long>(all.accepted), static_cast<unsigned long long>(all.rejected),
      static_cast<unsigned long long>(all.skipped), static_cast<unsigned long long>(all.failed));
  return all.failed == 0 ? 0 : 1;
}
