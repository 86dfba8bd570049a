// Shared pieces of the lowp benchmarks (host C++ over the lowp C API and the CUDA runtime):
// fatal errors and the crash handler, checked CUDA/lowp calls, random bf16 inputs, CUDA-event
// timing (eager and CUDA-graph replay, median over samples), the device-to-device copy
// bandwidth, and JSON helpers. Each benchmark is one translation unit that includes this header,
// owns its table and JSON rows, and hands its "print what was measured" routine to g_dump.
#ifndef LOWP_BENCH_BENCH_UTIL_H
#define LOWP_BENCH_BENCH_UTIL_H

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "lowp/lowp.h"

namespace lowp_bench {

// ---------------------------------------------------------------------------------------------
// Run-wide state: the binary's name (message prefix), what is running (for the crash handler),
// and the routine that prints what was measured so far (table and partial JSON) before a fatal
// error or crash ends the run.

inline const char* g_prog = "lowp_bench";
inline char g_phase[256] = "start-up";
inline void (*g_dump)() = nullptr;
// The message of the fatal error that is ending the run ("" otherwise), for g_dump to report.
inline char g_fatal_msg[2048] = "";

[[noreturn]] inline void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(g_fatal_msg, sizeof g_fatal_msg, fmt, ap);
  va_end(ap);
  std::fflush(stdout);
  if (g_dump != nullptr) g_dump();
  std::fprintf(stderr, "%s: FATAL: %s\n", g_prog, g_fatal_msg);
  std::exit(1);
}

// A crash (e.g. device pointers routed to the CPU backend) should still say where it happened
// and print what was measured.
inline void on_crash(int sig) {
  char msg[400];
  const int n = std::snprintf(msg, sizeof msg, "\n%s: CRASH (signal %d) during %s\n", g_prog, sig,
                              g_phase);
  if (n > 0) (void)!write(2, msg, static_cast<size_t>(std::min(n, 399)));
  if (n > 0) (void)!write(1, msg, static_cast<size_t>(std::min(n, 399)));
  // Best effort (not async-signal-safe): the table of what was measured so far.
  if (g_dump != nullptr) g_dump();
  _exit(128 + sig);
}

inline void install_crash_handler() {
  std::signal(SIGSEGV, on_crash);
  std::signal(SIGBUS, on_crash);
  std::signal(SIGFPE, on_crash);
  std::signal(SIGABRT, on_crash);
}

#define CUDA_CHECK(expr)                                                                      \
  do {                                                                                        \
    const cudaError_t e_ = (expr);                                                            \
    if (e_ != cudaSuccess)                                                                    \
      ::lowp_bench::fatal("%s:%d: %s: %s (%s)", __FILE__, __LINE__, #expr,                    \
                          cudaGetErrorName(e_), cudaGetErrorString(e_));                      \
  } while (0)

#define LOWP_CHECK(expr)                                                                      \
  do {                                                                                        \
    const lowp_status s_ = (expr);                                                            \
    if (s_ != LOWP_SUCCESS)                                                                   \
      ::lowp_bench::fatal("%s:%d: %s: %s: %s", __FILE__, __LINE__, #expr,                     \
                          lowp_status_name(s_), lowp_get_last_error());                       \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Results common to every benchmark: the device, the copy bandwidth, capture-failure notes and
// warnings. A benchmark's run record derives from this and adds its rows.

struct Stats {
  double median_ms = NAN, min_ms = NAN, max_ms = NAN;  // per call
};

struct RunInfo {
  std::string device;
  int sms = 0;
  double l2_mb = 0;
  double copy_buffer_gb = 0;
  double copy_gbps_start = NAN, copy_gbps_end = NAN;
  int reps = 0, batch = 0;
  std::vector<std::string> notes;     // full capture-failure messages
  std::vector<std::string> warnings;  // sanity-check failures
  std::string json_path;

  // The better of the measurements at the start and at the end of the run.
  double copy_gbps() const {
    if (std::isnan(copy_gbps_end)) return copy_gbps_start;
    if (std::isnan(copy_gbps_start)) return copy_gbps_end;
    return std::max(copy_gbps_start, copy_gbps_end);
  }

  // Index + 1 of `full` in notes (added when new): the [n] printed in a failed cell.
  int add_note(const std::string& full) {
    auto it = std::find(notes.begin(), notes.end(), full);
    if (it != notes.end()) return static_cast<int>(it - notes.begin()) + 1;
    notes.push_back(full);
    return static_cast<int>(notes.size());
  }
};

inline double gbps_of(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

// One timed op: eager and graph times, and the capture error when the graph failed.
struct Timing {
  Stats eager, graph;
  std::string graph_error;  // short form for the cell; empty when the capture worked
  int note = 0;             // index + 1 into RunInfo::notes with the full capture error
};

// The time a row's GB/s and fraction come from: graph replay when it captured, else eager.
inline double headline_ms(const Timing& t, bool* from_eager) {
  *from_eager = std::isnan(t.graph.median_ms);
  return *from_eager ? t.eager.median_ms : t.graph.median_ms;
}

struct Shape {
  int64_t m, k;
};

// The standard sweep M in {1024, ..., 32768} x K in {2048, 4096, 8192}; --quick: 16384x8192 and
// 4096x4096; a given M and/or K (non-zero) restricts the sweep to it.
inline std::vector<Shape> sweep_shapes(bool quick, int64_t m, int64_t k) {
  if (quick && m == 0 && k == 0) return {{16384, 8192}, {4096, 4096}};
  std::vector<int64_t> ms = {1024, 2048, 4096, 8192, 16384, 32768}, ks = {2048, 4096, 8192};
  if (m != 0) ms = {m};
  if (k != 0) ks = {k};
  std::vector<Shape> out;
  for (int64_t mm : ms)
    for (int64_t kk : ks) out.push_back({mm, kk});
  return out;
}

// Buffer sets a shape rotates over so that their inputs (input_bytes each) together are at least
// 4x the L2 size: at least 2, at most max_sets.
inline int buffer_sets(size_t l2_bytes, size_t input_bytes, size_t max_sets) {
  const size_t want = std::max<size_t>(2, (4 * l2_bytes + input_bytes - 1) / input_bytes);
  return static_cast<int>(std::min(want, max_sets));
}

// Calls per timed sample: at least `batch`, a multiple of nbuf (every set equally often).
inline int calls_per_sample(int batch, int nbuf) {
  const int c = std::max(batch, nbuf);
  return (c + nbuf - 1) / nbuf * nbuf;
}

// Fills the device fields of `run` (lowp must see a CUDA device); returns the L2 size in bytes.
inline size_t init_device(RunInfo* run) {
  if (!lowp_cuda_available())
    fatal("lowp_cuda_available() = 0: lowp was built without CUDA or no CUDA device is visible");
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  run->device = prop.name;
  run->sms = prop.multiProcessorCount;
  run->l2_mb = static_cast<double>(prop.l2CacheSize) / 1e6;
  return static_cast<size_t>(prop.l2CacheSize > 0 ? prop.l2CacheSize : 50 << 20);
}

// The start of every bench's main after its options are parsed: the "print what was measured"
// routine for fatal errors and crashes, the run options, the device. Returns the L2 size in bytes.
inline size_t start_run(void (*dump)(), RunInfo* run, int reps, int batch, const std::string& json) {
  g_dump = dump;
  install_crash_handler();
  run->reps = reps;
  run->batch = batch;
  run->json_path = json;
  return init_device(run);
}

// ---------------------------------------------------------------------------------------------
// JSON helpers.

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o;
}

inline std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// A JSON array's items for a list of strings: "a", "b" (the brackets are the caller's).
inline void write_json_strings(FILE* f, const std::vector<std::string>& items) {
  for (size_t i = 0; i < items.size(); ++i) std::fprintf(f, "%s\"%s\"", i == 0 ? "" : ", ", json_escape(items[i]).c_str());
}

// Ends a bench's JSON (its last field written up to the comma and newline) with the warnings.
inline void close_json_with_warnings(FILE* f, const RunInfo& run) {
  std::fprintf(f, "  \"warnings\": [");
  write_json_strings(f, run.warnings);
  std::fprintf(f, "]\n}\n");
  std::fclose(f);
}

// A bench's g_dump after a fatal error or crash: its table (print, when it measured anything), its
// JSON marked incomplete with the failure as its key, and a KEY line naming the failure (where the
// run was and why it ended, at most 400 characters).
inline void dump_failure(bool measured, void (*print)(), void (*write_json)(bool complete, const std::string& key)) {
  if (measured) print();
  std::string msg = g_fatal_msg[0] != '\0' ? std::string("FAILED during ") + g_phase + ": " + g_fatal_msg
                                           : std::string("CRASHED during ") + g_phase;
  if (msg.size() > 400) msg = msg.substr(0, 400) + "...";
  write_json(false, msg);
  std::printf("KEY: %s\n", msg.c_str());
  std::fflush(stdout);
}

// The run's numbered notes (capture failures) and warnings under its table.
inline void print_notes_and_warnings(const RunInfo& run) {
  for (size_t i = 0; i < run.notes.size(); ++i) std::printf("[%zu] %s\n", i + 1, run.notes[i].c_str());
  for (const std::string& w : run.warnings) std::printf("WARNING: %s\n", w.c_str());
}

// Opens run.json_path and writes the fields every benchmark's JSON starts with (up to the
// copy bandwidth, which a bench that does not measure it leaves out with with_copy = false).
// Returns nullptr (after a message) when there is no path or it cannot be written.
inline FILE* open_json_with_header(const RunInfo& run, bool complete, bool with_copy = true) {
  if (run.json_path.empty()) return nullptr;
  FILE* f = std::fopen(run.json_path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "%s: cannot write %s: %s\n", g_prog, run.json_path.c_str(), std::strerror(errno));
    return nullptr;
  }
  std::fprintf(f, "{\n  \"bench\": \"%s\",\n  \"lowp_version\": \"%s\",\n", g_prog, lowp_version());
  std::fprintf(f, "  \"complete\": %s,\n", complete ? "true" : "false");
  std::fprintf(f, "  \"device\": \"%s\",\n  \"sms\": %d,\n  \"l2_mb\": %s,\n",
               json_escape(run.device).c_str(), run.sms, jnum(run.l2_mb).c_str());
  std::fprintf(f, "  \"reps\": %d,\n  \"batch\": %d,\n", run.reps, run.batch);
  if (!with_copy) return f;
  std::fprintf(f,
               "  \"copy\": {\"buffer_gb\": %s, \"gbps_start\": %s, \"gbps_end\": %s, "
               "\"gbps\": %s, \"bytes_counted\": \"read + written\"},\n",
               jnum(run.copy_buffer_gb).c_str(), jnum(run.copy_gbps_start).c_str(),
               jnum(run.copy_gbps_end).c_str(), jnum(run.copy_gbps()).c_str());
  return f;
}

inline std::string jstats(const Stats& s) {
  return "{\"median_ms\": " + jnum(s.median_ms) + ", \"min_ms\": " + jnum(s.min_ms) +
         ", \"max_ms\": " + jnum(s.max_ms) + "}";
}

// One timed op at one shape: the row of a "op M K eager graph GB/s frac" table.
struct OpRow : Timing {
  std::string op;
  int64_t m = 0, k = 0;
  double floor_bytes = 0;  // bytes that must move per call
};

// The headline time (graph when it captured) of op `name` at (m, k); NaN when absent.
// *from_eager (optional) says whether it is the eager time.
template <class R>
double find_ms(const std::vector<R>& rows, const std::string& name, int64_t m, int64_t k,
               bool* from_eager = nullptr) {
  for (const R& r : rows) {
    bool e = false;
    if (r.op == name && r.m == m && r.k == k) {
      const double ms = headline_ms(r, &e);
      if (from_eager != nullptr) *from_eager = e;
      return ms;
    }
  }
  if (from_eager != nullptr) *from_eager = false;
  return NAN;
}

// The distinct (m, k) of `rows`, in order of first appearance.
template <class R>
std::vector<Shape> distinct_shapes(const std::vector<R>& rows) {
  std::vector<Shape> out;
  for (const R& r : rows)
    if (std::none_of(out.begin(), out.end(), [&](const Shape& s) { return s.m == r.m && s.k == r.k; }))
      out.push_back({r.m, r.k});
  return out;
}

// The JSON fields of an OpRow (no braces), GB/s and fraction from the headline time.
inline std::string json_op_fields(const OpRow& r, double copy_gbps) {
  bool from_eager = false;
  const double gbps = gbps_of(r.floor_bytes, headline_ms(r, &from_eager));
  char b[256];
  std::snprintf(b, sizeof b, "\"op\": \"%s\", \"m\": %lld, \"k\": %lld, \"floor_bytes\": %.0f, ",
                json_escape(r.op).c_str(), static_cast<long long>(r.m), static_cast<long long>(r.k),
                r.floor_bytes);
  return b + ("\"eager\": " + jstats(r.eager) + ", \"graph\": " + jstats(r.graph) +
              ", \"graph_error\": \"" + json_escape(r.graph_error) + "\", \"gbps\": " + jnum(gbps) +
              ", \"gbps_from\": \"" + (from_eager ? "eager" : "graph") +
              "\", \"fraction_of_copy\": " + jnum(gbps / copy_gbps));
}

// ---------------------------------------------------------------------------------------------
// Inputs: random normal-ish bf16 (Irwin-Hall of 4 uniforms, unit variance), never zeros.
// With outlier_every = N > 0, about one element in N is an outlier instead: +-2^e, e uniform in
// {4, ..., 8} (16 to 256, against |x| < 3.5 for the rest).

inline uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline uint16_t float_to_bf16_rne(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);  // finite inputs only
  return static_cast<uint16_t>(u >> 16);
}

inline std::vector<uint16_t> random_bf16(size_t n, uint64_t seed, uint32_t outlier_every = 0) {
  std::vector<uint16_t> h(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = splitmix64(s);
    if (outlier_every != 0 && (r >> 32) % outlier_every == 0) {
      const float mag = std::ldexp(1.0f, 4 + static_cast<int>(r % 5));
      h[i] = float_to_bf16_rne(((r >> 8) & 1) ? -mag : mag);
      continue;
    }
    const double u = static_cast<double>(r & 0xFFFF) + static_cast<double>((r >> 16) & 0xFFFF) +
                     static_cast<double>((r >> 32) & 0xFFFF) + static_cast<double>(r >> 48);
    // Sum of 4 U(0,1): mean 2, variance 1/3 -> scale to unit variance.
    const double v = (u / 65536.0 - 2.0) * 1.7320508075688772;
    float fv = static_cast<float>(v);
    if (fv == 0.0f) fv = 0.5f;  // no exact zeros
    h[i] = float_to_bf16_rne(fv);
  }
  return h;
}

inline size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

inline void* device_alloc(size_t bytes, const char* what) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess)
    fatal("cudaMalloc of %.2f GiB for %s: %s (%s)", static_cast<double>(bytes) / (1u << 30), what,
          cudaGetErrorName(e), cudaGetErrorString(e));
  return p;
}

// Random bf16 over `elems` device elements: one 32 Mi-element host block, copied with a
// different rotation into each chunk. outlier_every as random_bf16.
inline void fill_random(uint16_t* dst, size_t elems, uint32_t outlier_every = 0) {
  const size_t chunk = std::min<size_t>(elems, size_t{32} << 20);
  const std::vector<uint16_t> h = random_bf16(chunk, 0x10f8b3ull, outlier_every);
  size_t done = 0;
  for (size_t j = 0; done < elems; ++j) {
    const size_t n = std::min(chunk, elems - done);
    const size_t rot = (j * 7919u * 1009u) % chunk;
    const size_t first = std::min(n, chunk - rot);
    CUDA_CHECK(cudaMemcpy(dst + done, h.data() + rot, first * 2, cudaMemcpyHostToDevice));
    if (n > first)
      CUDA_CHECK(cudaMemcpy(dst + done + first, h.data(), (n - first) * 2, cudaMemcpyHostToDevice));
    done += n;
  }
}

// ---------------------------------------------------------------------------------------------
// Timing.

inline Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median_ms = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min_ms = v.front();
  s.max_ms = v.back();
  return s;
}

struct Events {
  std::vector<cudaEvent_t> ev;
  explicit Events(int n) : ev(static_cast<size_t>(n)) {
    for (cudaEvent_t& e : ev) CUDA_CHECK(cudaEventCreate(&e));
  }
  ~Events() {
    for (cudaEvent_t e : ev) cudaEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  // Per-call times of samples [i, i+1), each of `calls` calls.
  std::vector<double> per_call_ms(int calls) const {
    std::vector<double> out;
    for (size_t i = 0; i + 1 < ev.size(); ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
      out.push_back(static_cast<double>(ms) / calls);
    }
    return out;
  }
};

// One timed "call" on buffer set `set`: it may issue several lowp calls; it returns the first
// status that is not LOWP_SUCCESS (lowp_get_last_error() still holds its message).
using Call = std::function<lowp_status(int set)>;

// Eager: warm-up over every set, then `reps` samples of `calls` back-to-back calls, one event
// between samples (no host synchronisation inside the timed region).
inline Stats time_eager(const Call& call, int nbuf, int calls, int reps, cudaStream_t stream) {
  for (int i = 0; i < std::max(nbuf, 3); ++i) LOWP_CHECK(call(i % nbuf));
  Events ev(reps + 1);
  int c = 0;
  CUDA_CHECK(cudaEventRecord(ev.ev[0], stream));
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < calls; ++j) LOWP_CHECK(call(c++ % nbuf));
    CUDA_CHECK(cudaEventRecord(ev.ev[static_cast<size_t>(r) + 1], stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return stats_of(ev.per_call_ms(calls));
}

// A captured graph of `calls` calls (rotating over the sets), destroyed with the object.
struct CapturedGraph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CapturedGraph() = default;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  ~CapturedGraph() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

// Captures and instantiates `calls` calls of `call` into *g and replays it twice (warm-up). On a
// failure returns false with a short error (for the cell) and the full message.
inline bool capture_graph(const Call& call, int nbuf, int calls, cudaStream_t stream, CapturedGraph* g,
                          std::string* short_err, std::string* full_err) {
  auto fail = [&](const std::string& s, const std::string& full) {
    (void)cudaGetLastError();  // clear a non-sticky error left by the failed capture
    // A sticky error (the context is unusable) ends the run.
    const cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
      fatal("after a failed capture (%s) the stream reports %s: %s", full.c_str(),
            cudaGetErrorName(e), cudaGetErrorString(e));
    *short_err = s;
    *full_err = full;
    return false;
  };

  cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  if (e != cudaSuccess)
    return fail(cudaGetErrorName(e), std::string("cudaStreamBeginCapture: ") + cudaGetErrorName(e) +
                                         ": " + cudaGetErrorString(e));
  for (int j = 0; j < calls; ++j) {
    const lowp_status s = call(j % nbuf);
    if (s != LOWP_SUCCESS) {
      const std::string msg = std::string(lowp_status_name(s)) + " in call " + std::to_string(j) +
                              " while capturing: " + lowp_get_last_error();
      const cudaError_t ee = cudaStreamEndCapture(stream, &g->graph);
      return fail(lowp_status_name(s),
                  msg + " (cudaStreamEndCapture: " + cudaGetErrorName(ee) + ")");
    }
  }
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  e = cudaStreamIsCapturing(stream, &status);
  const bool invalidated = e == cudaSuccess && status == cudaStreamCaptureStatusInvalidated;
  e = cudaStreamEndCapture(stream, &g->graph);
  if (e != cudaSuccess || g->graph == nullptr) {
    return fail(cudaGetErrorName(e),
                std::string("cudaStreamEndCapture: ") + cudaGetErrorName(e) + ": " +
                    cudaGetErrorString(e) +
                    (invalidated ? " (the capture was invalidated inside a lowp call that "
                                   "returned LOWP_SUCCESS)"
                                 : ""));
  }
  e = cudaGraphInstantiate(&g->exec, g->graph, 0);
  if (e != cudaSuccess)
    return fail(cudaGetErrorName(e), std::string("cudaGraphInstantiate: ") + cudaGetErrorName(e) +
                                         ": " + cudaGetErrorString(e));
  for (int w = 0; w < 2; ++w) {
    e = cudaGraphLaunch(g->exec, stream);
    if (e != cudaSuccess)
      return fail(cudaGetErrorName(e), std::string("cudaGraphLaunch: ") + cudaGetErrorName(e) +
                                           ": " + cudaGetErrorString(e));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return true;
}

// Graph: capture `calls` calls (rotating over the sets) into one graph, replay it `reps` times.
// On a failed capture returns false with a short error (for the cell) and the full message.
inline bool time_graph(const Call& call, int nbuf, int calls, int reps, cudaStream_t stream,
                       Stats* out, std::string* short_err, std::string* full_err) {
  CapturedGraph g;
  if (!capture_graph(call, nbuf, calls, stream, &g, short_err, full_err)) return false;
  Events ev(reps + 1);
  CUDA_CHECK(cudaEventRecord(ev.ev[0], stream));
  for (int r = 0; r < reps; ++r) {
    CUDA_CHECK(cudaGraphLaunch(g.exec, stream));
    CUDA_CHECK(cudaEventRecord(ev.ev[static_cast<size_t>(r) + 1], stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  *out = stats_of(ev.per_call_ms(calls));
  return true;
}

// One op of an interleaved timing (time_interleaved).
struct TimedOp {
  Call call;
  int nbuf = 1, calls = 1;
  Timing* t = nullptr;
};

// Eager times of each op in turn, then graph times with the ops' samples interleaved: sample r
// of every op replays back to back, so a reference and the ops compared with it see the same
// clocks, which move under a sustained load (docs/perf/nvfp4-gemm.md). The order rotates from
// sample to sample, so no op always follows the same (hot or cool) neighbour. A failed capture
// leaves its note in `run`; the other ops still run.
inline void time_interleaved(std::vector<TimedOp>& ops, int reps, cudaStream_t stream, RunInfo* run) {
  for (TimedOp& op : ops) op.t->eager = time_eager(op.call, op.nbuf, op.calls, reps, stream);
  std::vector<std::unique_ptr<CapturedGraph>> graphs;
  std::vector<std::unique_ptr<Events>> events;
  for (TimedOp& op : ops) {
    graphs.push_back(std::make_unique<CapturedGraph>());
    events.push_back(nullptr);
    std::string short_err, full_err;
    if (!capture_graph(op.call, op.nbuf, op.calls, stream, graphs.back().get(), &short_err, &full_err)) {
      op.t->graph = Stats{};
      op.t->graph_error = short_err;
      op.t->note = run->add_note(full_err);
      continue;
    }
    events.back() = std::make_unique<Events>(2 * reps);
  }
  for (int r = 0; r < reps; ++r) {
    for (size_t j = 0; j < ops.size(); ++j) {
      const size_t i = (j + static_cast<size_t>(r)) % ops.size();  // each op leads in turn
      if (events[i] == nullptr) continue;
      CUDA_CHECK(cudaEventRecord(events[i]->ev[2 * static_cast<size_t>(r)], stream));
      CUDA_CHECK(cudaGraphLaunch(graphs[i]->exec, stream));
      CUDA_CHECK(cudaEventRecord(events[i]->ev[2 * static_cast<size_t>(r) + 1], stream));
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (size_t i = 0; i < ops.size(); ++i) {
    if (events[i] == nullptr) continue;
    std::vector<double> ms;
    for (size_t r = 0; r < static_cast<size_t>(reps); ++r) {
      float v = 0;
      CUDA_CHECK(cudaEventElapsedTime(&v, events[i]->ev[2 * r], events[i]->ev[2 * r + 1]));
      ms.push_back(static_cast<double>(v) / ops[i].calls);
    }
    ops[i].t->graph = stats_of(ms);
  }
}

// Eager then graph timing of `call`; a failed capture leaves its note in `run`.
inline void time_both(const Call& call, int nbuf, int calls, int reps, cudaStream_t stream, RunInfo* run,
                      Timing* t) {
  t->eager = time_eager(call, nbuf, calls, reps, stream);
  std::string short_err, full_err;
  if (!time_graph(call, nbuf, calls, reps, stream, &t->graph, &short_err, &full_err)) {
    t->graph = Stats{};
    t->graph_error = short_err;
    t->note = run->add_note(full_err);
  }
}

// Device-to-device copy bandwidth, bytes read + bytes written.
inline double measure_copy_gbps(void* dst, const void* src, size_t bytes, int reps,
                                cudaStream_t stream) {
  for (int i = 0; i < 3; ++i)
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  Events ev(reps + 1);
  CUDA_CHECK(cudaEventRecord(ev.ev[0], stream));
  for (int r = 0; r < reps; ++r) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaEventRecord(ev.ev[static_cast<size_t>(r) + 1], stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const Stats s = stats_of(ev.per_call_ms(1));
  return gbps_of(2.0 * static_cast<double>(bytes), s.median_ms);
}

// ---------------------------------------------------------------------------------------------
// Options.

// A positive integer option value, or a message and usage(2).
inline int64_t parse_int(const char* flag, const char* v, void (*usage)(int)) {
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || x <= 0) {
    std::fprintf(stderr, "%s: %s needs a positive integer, got '%s'\n", g_prog, flag, v);
    usage(2);
  }
  return x;
}

// The flags every bench takes.
struct CommonOptions {
  bool quick = false;         // --quick: a short list of shapes
  int64_t m = 0, k = 0;       // --m, --k: restrict the sweep (0: every value)
  int reps = 30, batch = 10;  // --reps, --batch
  std::string json;           // --json FILE
  std::string ops;            // --ops a,b,c: run only these ops (profiling, quick A/B); "" runs all

  // True when op `name` is to run.
  bool runs(const std::string& name) const {
    if (ops.empty()) return true;
    return ("," + ops + ",").find("," + name + ",") != std::string::npos;
  }
};

// Parses argv into *o: the common flags here, a bench's own ones by own(flag, value) (value()
// takes the next argument), which returns false for a flag it does not know. -h prints usage; a
// missing value or an unknown argument says why and calls usage(2).
template <typename Own>
void parse_common(int argc, char** argv, void (*usage)(int), CommonOptions* o, Own own) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", g_prog, a.c_str());
        usage(2);
      }
      return argv[++i];
    };
    if (a == "--quick") o->quick = true;
    else if (a == "--m") o->m = parse_int("--m", value(), usage);
    else if (a == "--k") o->k = parse_int("--k", value(), usage);
    else if (a == "--reps") o->reps = static_cast<int>(parse_int("--reps", value(), usage));
    else if (a == "--batch") o->batch = static_cast<int>(parse_int("--batch", value(), usage));
    else if (a == "--json") o->json = value();
    else if (a == "--ops") o->ops = value();
    else if (a == "-h" || a == "--help") usage(0);
    else if (!own(a, value)) {
      std::fprintf(stderr, "%s: unknown argument '%s'\n", g_prog, a.c_str());
      usage(2);
    }
  }
}

}  // namespace lowp_bench

#endif  // LOWP_BENCH_BENCH_UTIL_H
