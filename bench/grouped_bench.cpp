// lowp_bench_grouped: grouped FP8 quantization (lowp_grouped_quantize) against the same bytes
// cast as one tensor and as N separate calls, timed against the device-to-device copy bandwidth
// measured in the same run.
//
// A group is N members (MoE experts) sharing the last dim K, with rows M_t summing to M, laid
// out back to back in one bf16 buffer x[M][K] (member t starts at element offsets[t] =
// K * (M_0 + ... + M_{t-1})). Splits:
//   equal   M_t = M / N (the first M % N members get one row more). M / N need not be a
//           multiple of 16 (N = 256, M = 1024 gives 4 rows): such rows are marked "!" in the
//           table, since the columnwise vector path needs rows % 16 == 0.
//   uneven  seeded random MoE-like imbalance (weights e^u, u uniform in [-ln 2, ln 2]); every
//           M_t is a multiple of 16 (M % 16 rows go to the last member), a member may get 0
//           rows when M / 16 is small next to N. Rows need not be multiples of 128.
// Each row of the table times, for one scaling (E4M3, rowwise + columnwise codes), N, split
// and M x K:
//   grouped   one lowp_grouped_quantize over the group; layout arrays (first_dims, last_dims,
//             offsets) in device memory, uploaded once per row before timing; workspace of
//             lowp_grouped_workspace_size bytes; after timing lowp_grouped_layout_error must be 0
//   single    one lowp_quantize of the whole M x K buffer as one tensor (same bytes)
//   N-launch  one lowp_quantize per non-empty member (lowp_quantize needs >= 1x1; empty members
//             are skipped: the "launches" in the JSON), issued back to back; one "call" = all
//             of them
// Per-member state: grouped and N-launch use scale[N], scale_inv[N], amax[N]; single has its
// own three floats. DELAYED reads scale = 32 (|x| < 3.5, well inside E4M3's 448).
//
// Bytes that must move (the floor), per element of x (M * K elements in every variant; the
// per-member floats and the layout arrays are left out):
//   delayed = 2 (read x) + 1 (row codes) + 1 (col codes)             = 4 B
//   current = 2·2 (amax pass, then cast pass, read x) + 1 + 1        = 6 B
// GB/s = floor bytes / time (1 GB = 1e9 B). frac = grouped GB/s / copy GB/s, where the copy
// bandwidth counts bytes read + bytes written of a large cudaMemcpyAsync D2D (the better of a
// measurement at the start and one at the end of the run). g/s = grouped time / single time.
//
// Method (as lowp_bench_fp8): CUDA events; median over --reps samples after warm-up. A sample
// is a batch of back-to-back calls and gives time per call = sample / calls. Inputs and outputs
// rotate among several buffer sets whose inputs together are at least 4x the L2 size, so L2
// does not hold them (every variant of a row uses the same sets and calls per sample). Two
// columns per variant: eager (calls issued one after another on a stream; when the host is
// slower than the GPU this includes each call's host cost) and graph (the same batch captured
// once with cudaStreamCaptureModeGlobal, then replayed). A capture that fails is reported as
// "capture failed: <error>" in its cell, with the full message under the table. g/s and frac
// use the graph times, or the eager times (marked *) when a capture failed.
//
// After the timed runs, a spot check: member 0 of a grouped call (first shape, first N,
// uneven split) must equal lowp_quantize of member 0 alone, byte for byte (row and column
// codes, scale_inv, amax), for both scalings: "spot check: ok", or exit status 3.
// Any lowp or CUDA error prints lowp_get_last_error() / the CUDA error and exits 1.
//
// Usage: lowp_bench_grouped [--quick] [--m M] [--k K] [--n N] [--reps N] [--batch N]
//                           [--json FILE]
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "lowp/lowp.h"

namespace {

using namespace lowp_bench;

// ---------------------------------------------------------------------------------------------
// Results, and the one table printed at the end (on a fatal error too, with what was measured).

enum Variant { kGrouped = 0, kSingle = 1, kNLaunch = 2, kVariants = 3 };
const char* const kVariantJson[kVariants] = {"grouped", "single", "n_launch"};

struct Row {
  std::string scaling;  // "delayed" or "current"
  int n = 0;
  std::string split;    // "equal" or "uneven"
  int64_t m = 0, k = 0;
  int64_t min_rows = 0, max_rows = 0;  // over the members
  int empty = 0;                       // members with 0 rows
  bool rows_mult16 = true;             // every member's rows % 16 == 0
  int launches = 0;                    // lowp_quantize calls of one N-launch call
  int nbuf = 0;                        // buffer sets rotated
  int calls = 0;                       // calls per timed sample
  double floor_bytes = 0;              // bytes that must move per call
  Timing t[kVariants];
};

struct Run : RunInfo {
  std::vector<Row> rows;
  std::string spot_check = "not run";
  std::string key;  // the KEY line's text (after "KEY: ")
};

Run g_run;
const auto g_t0 = std::chrono::steady_clock::now();

double elapsed_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_t0).count();
}

// grouped / single from graph times when both captured, else from eager times.
double ratio_of(const Row& r, bool* from_eager) {
  const bool g = !std::isnan(r.t[kGrouped].graph.median_ms) &&
                 !std::isnan(r.t[kSingle].graph.median_ms);
  *from_eager = !g;
  return g ? r.t[kGrouped].graph.median_ms / r.t[kSingle].graph.median_ms
           : r.t[kGrouped].eager.median_ms / r.t[kSingle].eager.median_ms;
}

// Rows in table order: scaling, N, split, M, K.
std::vector<Row> sorted_rows() {
  std::vector<Row> rows = g_run.rows;
  auto sc = [](const std::string& s) { return s == "delayed" ? 0 : 1; };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (sc(a.scaling) != sc(b.scaling)) return sc(a.scaling) < sc(b.scaling);
    if (a.n != b.n) return a.n < b.n;
    if (a.split != b.split) return a.split < b.split;  // equal before uneven
    if (a.m != b.m) return a.m < b.m;
    return a.k < b.k;
  });
  return rows;
}

// The KEY line: grouped/single at N=64, M=16384, K=8192 for both scalings and splits.
std::string key_text() {
  std::string s = "grouped/single @N=64 M=16384 K=8192:";
  for (const char* scaling : {"delayed", "current"}) {
    s += std::string(" ") + scaling;
    for (const char* split : {"equal", "uneven"}) {
      const Row* found = nullptr;
      for (const Row& r : g_run.rows)
        if (r.scaling == scaling && r.split == split && r.n == 64 && r.m == 16384 && r.k == 8192)
          found = &r;
      char b[64];
      if (found == nullptr) {
        std::snprintf(b, sizeof b, " %s -", split);
      } else {
        bool from_eager = false;
        const double ratio = ratio_of(*found, &from_eager);
        std::snprintf(b, sizeof b, " %s %.3f%s", split, ratio, from_eager ? "*" : "");
      }
      s += b;
    }
    if (std::strcmp(scaling, "delayed") == 0) s += ";";
  }
  char b[160];
  std::snprintf(b, sizeof b, "; copy %.0f GB/s; spot check %s", g_run.copy_gbps(),
                g_run.spot_check.c_str());
  s += b;
  return s;
}

std::string jtiming(const Timing& t) {
  std::string err_json = "null";
  if (!t.graph_error.empty())
    err_json = "\"" + json_escape(g_run.notes[static_cast<size_t>(t.note - 1)]) + "\"";
  return "{\"eager\": " + jstats(t.eager) + ", \"graph\": " + jstats(t.graph) +
         ", \"graph_error\": " + err_json + "}";
}

void write_json(bool complete) {
  FILE* f = open_json_with_header(g_run, complete);
  if (f == nullptr) return;
  const double cbw = g_run.copy_gbps();
  std::fprintf(f, "  \"floor_bytes_per_elem\": {\"delayed\": 4, \"current\": 6},\n");
  std::fprintf(f, "  \"rows\": [");
  const std::vector<Row> rows = sorted_rows();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    bool ratio_eager = false, frac_eager = false;
    const double ratio = ratio_of(r, &ratio_eager);
    const double gms = headline_ms(r.t[kGrouped], &frac_eager);
    const double gbps = gbps_of(r.floor_bytes, gms);
    bool nl_eager = false;
    const double nl_ms = headline_ms(r.t[kNLaunch], &nl_eager);
    std::fprintf(f,
                 "%s\n    {\"scaling\": \"%s\", \"n\": %d, \"split\": \"%s\", \"m\": %lld, "
                 "\"k\": %lld, \"min_rows\": %lld, \"max_rows\": %lld, \"empty_members\": %d, "
                 "\"rows_multiple_of_16\": %s, \"launches\": %d,\n     \"buffer_sets\": %d, "
                 "\"calls_per_sample\": %d, \"floor_bytes\": %.0f,\n",
                 i == 0 ? "" : ",", r.scaling.c_str(), r.n, r.split.c_str(),
                 static_cast<long long>(r.m), static_cast<long long>(r.k),
                 static_cast<long long>(r.min_rows), static_cast<long long>(r.max_rows), r.empty,
                 r.rows_mult16 ? "true" : "false", r.launches, r.nbuf, r.calls, r.floor_bytes);
    for (int v = 0; v < kVariants; ++v)
      std::fprintf(f, "     \"%s\": %s,\n", kVariantJson[v], jtiming(r.t[v]).c_str());
    std::fprintf(f,
                 "     \"grouped_over_single\": %s, \"ratio_from\": \"%s\", "
                 "\"n_launch_over_grouped\": %s,\n     \"grouped_gbps\": %s, \"gbps_from\": \"%s\", "
                 "\"fraction_of_copy\": %s}",
                 jnum(ratio).c_str(), ratio_eager ? "eager" : "graph",
                 jnum(nl_eager == frac_eager ? nl_ms / gms : NAN).c_str(), jnum(gbps).c_str(),
                 frac_eager ? "eager" : "graph", jnum(gbps / cbw).c_str());
  }
  std::fprintf(f, "\n  ],\n  \"spot_check\": \"%s\",\n  \"key\": \"%s\",\n",
               json_escape(g_run.spot_check).c_str(), json_escape(key_text()).c_str());
  close_json_with_warnings(f, g_run);
}

std::string cell(const Stats& s, const Timing& t, bool graph) {
  char b[200];
  if (graph && !t.graph_error.empty())
    std::snprintf(b, sizeof b, "capture failed: %s [%d]", t.graph_error.c_str(), t.note);
  else
    std::snprintf(b, sizeof b, "%9.4f", s.median_ms);
  return b;
}

void print_table() {
  const double cbw = g_run.copy_gbps();
  std::printf("\n== lowp_bench_grouped (lowp %s) on %s: %d SMs, L2 %.1f MB ==\n", lowp_version(),
              g_run.device.c_str(), g_run.sms, g_run.l2_mb);
  std::printf("copy D2D %.2f GB buffer, read+write: start %.0f GB/s, end %.0f GB/s -> %.0f GB/s\n",
              g_run.copy_buffer_gb, g_run.copy_gbps_start, g_run.copy_gbps_end, cbw);
  std::printf("E4M3 rowwise+columnwise from bf16; floor B/elem: delayed 4 (read x 2 + codes 1+1), "
              "current 6 (2 reads of x + codes 1+1)\n");
  std::printf("median of %d samples, ms per call (N-launch: its N lowp_quantize calls); "
              "g/s = grouped/single; frac = grouped floor GB/s / copy (graph; * = eager)\n",
              g_run.reps);
  std::printf("split: equal M/N rows; uneven seeded random, multiples of 16 (0 allowed); "
              "! = some member rows %% 16 != 0\n");
  std::printf("%-7s %3s %-7s %6s %5s %9s %9s %9s %9s %9s %9s %6s %6s\n", "scaling", "N", "split",
              "M", "K", "grp_eagr", "grp_grph", "sgl_eagr", "sgl_grph", "Nl_eagr", "Nl_grph",
              "g/s", "frac");
  for (const Row& r : sorted_rows()) {
    bool ratio_eager = false, frac_eager = false;
    const double ratio = ratio_of(r, &ratio_eager);
    const double gbps = gbps_of(r.floor_bytes, headline_ms(r.t[kGrouped], &frac_eager));
    const std::string split = r.split + (r.rows_mult16 ? "" : "!");
    std::printf("%-7s %3d %-7s %6lld %5lld %9s %9s %9s %9s %9s %9s %5.3f%s %5.3f%s\n",
                r.scaling.c_str(), r.n, split.c_str(), static_cast<long long>(r.m),
                static_cast<long long>(r.k), cell(r.t[kGrouped].eager, r.t[kGrouped], false).c_str(),
                cell(r.t[kGrouped].graph, r.t[kGrouped], true).c_str(),
                cell(r.t[kSingle].eager, r.t[kSingle], false).c_str(),
                cell(r.t[kSingle].graph, r.t[kSingle], true).c_str(),
                cell(r.t[kNLaunch].eager, r.t[kNLaunch], false).c_str(),
                cell(r.t[kNLaunch].graph, r.t[kNLaunch], true).c_str(), ratio,
                ratio_eager ? "*" : " ", gbps / cbw, frac_eager ? "*" : " ");
  }
  print_notes_and_warnings(g_run);
  std::printf("KEY: %s\n", key_text().c_str());
  std::fflush(stdout);
}

// What was measured so far, before a fatal error or crash ends the run (lowp_bench::g_dump).
void dump_partial() {
  if (!g_run.rows.empty()) {
    print_table();
    write_json(false);
  }
}

// ---------------------------------------------------------------------------------------------
// Options.

struct Options : CommonOptions {
  std::vector<Shape> shapes;
  std::vector<int> ns;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
      "usage: lowp_bench_grouped [--quick] [--m M] [--k K] [--n N] [--reps N] [--batch N]\n"
      "                          [--json FILE]\n"
      "  default sweep: M in {1024,2048,4096,8192,16384,32768} x K in {2048,4096,8192}, bf16,\n"
      "                 groups of N in {8,64,256} members (equal and uneven splits of M),\n"
      "                 DELAYED and CURRENT scaling, E4M3 rowwise + columnwise\n"
      "  --quick     only M=16384,K=8192 and M=4096,K=4096 with N in {8,64}\n"
      "  --m, --k    restrict the sweep to this M and/or K (any positive value)\n"
      "  --n N       restrict the groups to N members (any positive value)\n"
      "  --reps N    timed samples per column (median reported; default 30)\n"
      "  --batch N   calls per sample, at least (rounded up to a multiple of the buffer sets;\n"
      "              default 10)\n"
      "  --json FILE write the table as JSON\n");
  std::exit(code);
}

Options parse(int argc, char** argv) {
  Options o;
  int64_t n = 0;
  parse_common(argc, argv, usage, &o, [&](const std::string& a, auto value) {
    if (a != "--n") return false;
    n = parse_int("--n", value(), usage);
    return true;
  });
  if (n > (int64_t{1} << 20)) {
    std::fprintf(stderr, "lowp_bench_grouped: --n %lld is too large (at most 2^20)\n",
                 static_cast<long long>(n));
    usage(2);
  }
  o.shapes = sweep_shapes(o.quick, o.m, o.k);
  if (n != 0) o.ns = {static_cast<int>(n)};
  else if (o.quick) o.ns = {8, 64};
  else o.ns = {8, 64, 256};
  return o;
}

// ---------------------------------------------------------------------------------------------
// Groups: the rows of each member, and the layout arrays in device memory.

// Equal split: M / N rows each, the first M % N members one more.
std::vector<int64_t> equal_split(int64_t M, int n) {
  std::vector<int64_t> rows(static_cast<size_t>(n), M / n);
  for (int64_t t = 0; t < M % n; ++t) rows[static_cast<size_t>(t)] += 1;
  return rows;
}

// Uneven split: seeded random weights e^u, u uniform in [-ln 2, ln 2] (up to a 4x spread, like
// MoE routing); units of 16 rows in proportion, the leftover units one each to
// members drawn at random; M % 16 rows to the last member.
std::vector<int64_t> uneven_split(int64_t M, int n) {
  uint64_t s = 0x6d6f65ull ^ (static_cast<uint64_t>(M) * 0x9E3779B97F4A7C15ull) ^
               (static_cast<uint64_t>(n) << 40);
  auto uniform = [&]() { return static_cast<double>(splitmix64(s) >> 11) * 0x1.0p-53; };
  std::vector<double> w(static_cast<size_t>(n));
  double sum = 0;
  for (double& x : w) {
    x = std::exp((2.0 * uniform() - 1.0) * std::log(2.0));
    sum += x;
  }
  const int64_t units = M / 16;
  std::vector<int64_t> rows(static_cast<size_t>(n));
  int64_t given = 0;
  for (size_t t = 0; t < rows.size(); ++t) {
    const int64_t u = static_cast<int64_t>(std::floor(static_cast<double>(units) * w[t] / sum));
    rows[t] = u;
    given += u;
  }
  while (given < units) {
    rows[static_cast<size_t>(splitmix64(s) % static_cast<uint64_t>(n))] += 1;
    ++given;
  }
  for (int64_t& r : rows) r *= 16;
  rows.back() += M % 16;
  return rows;
}

// first_dims, last_dims, offsets: N int64 each, in device memory (one allocation for the
// largest N), uploaded once per group before anything is timed with it.
struct DeviceLayout {
  int cap = 0;
  int64_t* d = nullptr;  // [3][cap]
  const int64_t* first() const { return d; }
  const int64_t* last() const { return d + cap; }
  const int64_t* offsets() const { return d + 2 * static_cast<size_t>(cap); }

  void upload(const std::vector<int64_t>& rows, int64_t K, cudaStream_t stream) const {
    const size_t n = rows.size();
    if (n > static_cast<size_t>(cap)) fatal("layout of %zu members > capacity %d", n, cap);
    std::vector<int64_t> h(3 * static_cast<size_t>(cap), 0);
    int64_t off = 0;
    for (size_t t = 0; t < n; ++t) {
      h[t] = rows[t];
      h[static_cast<size_t>(cap) + t] = K;
      h[2 * static_cast<size_t>(cap) + t] = off;
      off += rows[t] * K;
    }
    // The stream is idle here (every timing ends with a synchronisation), and the upload
    // completes before anything else is issued.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpyAsync(d, h.data(), h.size() * sizeof(int64_t), cudaMemcpyHostToDevice,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

// Element offset of each member (host copy, for the N-launch calls and the spot check).
std::vector<int64_t> offsets_of(const std::vector<int64_t>& rows, int64_t K) {
  std::vector<int64_t> off(rows.size());
  int64_t o = 0;
  for (size_t t = 0; t < rows.size(); ++t) {
    off[t] = o;
    o += rows[t] * K;
  }
  return off;
}

// ---------------------------------------------------------------------------------------------
// Device buffers. Arenas are allocated once; a shape carves `nbuf` buffer sets out of them.
// Memory: 4 B per arena element (x bf16 2, row codes 1, col codes 1), with 2^30 elements
// (4 GiB) unless a shape needs more, plus small float vectors per shape. The code arena (row
// then col, 2 B per element) is also the destination of the copy-bandwidth measurement.

struct Arenas {
  size_t elems = 0;
  uint16_t* x = nullptr;      // bf16 inputs (random)
  uint8_t* codes = nullptr;   // [2][elems]: rowwise codes, then columnwise codes
  uint8_t* row() const { return codes; }
  uint8_t* col() const { return codes + elems; }
};

// Per-scaling state floats of one buffer set: [scale np][scale_inv np][amax np][single 3].
struct State {
  float* scale;
  float* scale_inv;
  float* amax;
  float* single;  // scale, scale_inv, amax of the single-tensor call
};

constexpr int kScalings = 2;
const lowp_scaling kScaling[kScalings] = {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT};
const char* const kScalingName[kScalings] = {"delayed", "current"};
const double kBytesPerElem[kScalings] = {4.0, 6.0};
constexpr float kDelayedScale = 32.0f;  // |x| < 3.5 -> well inside E4M3's 448

size_t state_floats(int np) { return 3 * static_cast<size_t>(np) + 64; }

State state_at(float* base, int np) {
  return {base, base + np, base + 2 * static_cast<size_t>(np), base + 3 * static_cast<size_t>(np)};
}

// Host image of the state of one scaling: DELAYED scale 32 (scale_inv 1/32), zero amax;
// CURRENT all zero (written by the calls).
void init_state(float* h, int np, int sc) {
  std::fill(h, h + state_floats(np), 0.0f);
  if (kScaling[sc] != LOWP_SCALING_DELAYED) return;
  State s = state_at(h, np);
  for (int t = 0; t < np; ++t) {
    s.scale[t] = kDelayedScale;
    s.scale_inv[t] = 1.0f / kDelayedScale;
  }
  s.single[0] = kDelayedScale;
  s.single[1] = 1.0f / kDelayedScale;
}

lowp_grouped_tensor group_view(uint16_t* x, int64_t M, int64_t K, int n, const DeviceLayout& L) {
  lowp_grouped_tensor g{};
  g.data = x;
  g.dtype = LOWP_DTYPE_BFLOAT16;
  g.num_tensors = n;
  g.total_elements = M * K;
  g.first_dims = L.first();
  g.last_dims = L.last();
  g.offsets = L.offsets();
  return g;
}

lowp_grouped_quantized_tensor group_out(uint8_t* row, uint8_t* col, int n, int sc, const State& s) {
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = kScaling[sc];
  q.num_tensors = n;
  q.rowwise_data = row;
  q.columnwise_data = col;
  q.scale = s.scale;
  q.scale_inv = s.scale_inv;
  q.amax = s.amax;
  q.amax_stride = 0;
  return q;
}

// An FP8 per-tensor quantized view of rows x K codes with its three state floats.
lowp_quantized_tensor tensor_out(uint8_t* row, uint8_t* col, int64_t rows, int64_t K, int sc,
                                 float* scale, float* scale_inv, float* amax) {
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = kScaling[sc];
  q.rows = rows;
  q.cols = K;
  q.rowwise.data = row;
  q.columnwise.data = col;
  q.scale = scale;
  q.scale_inv = scale_inv;
  q.amax = amax;
  return q;
}

// After grouped calls with device layout arrays: the layout must have been accepted (a bad
// layout writes nothing, which would time as a very fast no-op).
void check_layout_status(const void* ws, cudaStream_t stream, const char* when) {
  int64_t bad = -1;
  LOWP_CHECK(lowp_grouped_layout_error(ws, &bad, stream));
  if (bad != 0)
    fatal("lowp_grouped_layout_error after %s: member %lld broke a layout rule (%s)", when,
          static_cast<long long>(bad - 1), lowp_get_last_error());
}

// ---------------------------------------------------------------------------------------------
// One shape: buffer sets; for each scaling, N and split, the three variants timed.

struct Workspace {
  void* p = nullptr;
  size_t bytes = 0;
};

void bench_shape(const Options& o, const Arenas& A, const DeviceLayout& L, const Workspace& W,
                 int64_t M, int64_t K, size_t l2_bytes, cudaStream_t stream) {
  const size_t n = static_cast<size_t>(M) * static_cast<size_t>(K);
  const size_t stride = round_up(n, 256);  // elements; keeps every set 512-byte aligned
  const size_t capacity = A.elems / stride;
  // Enough sets that their inputs together are >= 4x L2, at least 2, at most what fits (and
  // 256, for tiny shapes that are launch-bound anyway).
  const size_t want_sets = std::max<size_t>(2, (4 * l2_bytes + 2 * n - 1) / (2 * n));
  const int nbuf = static_cast<int>(std::min<size_t>({want_sets, capacity, 256}));
  if (nbuf < 1) fatal("shape %lldx%lld does not fit the arenas", (long long)M, (long long)K);
  const int calls = static_cast<int>(round_up(static_cast<size_t>(std::max(o.batch, nbuf)),
                                              static_cast<size_t>(nbuf)));

  // State floats: [set][scaling] blocks for the largest N, each 256-byte aligned.
  int max_n = 1;
  for (int nn : o.ns) max_n = std::max(max_n, nn);
  const int np = static_cast<int>(round_up(static_cast<size_t>(max_n), 64));
  const size_t per_block = state_floats(np);
  const size_t blocks = static_cast<size_t>(nbuf) * kScalings;
  float* smalls = static_cast<float*>(device_alloc(per_block * blocks * sizeof(float), "state"));
  {
    std::vector<float> init(per_block * blocks);
    for (size_t b = 0; b < blocks; ++b)
      init_state(init.data() + b * per_block, np, static_cast<int>(b % kScalings));
    CUDA_CHECK(cudaMemcpyAsync(smalls, init.data(), init.size() * sizeof(float),
                               cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  auto set_x = [&](int s) { return A.x + static_cast<size_t>(s) * stride; };
  auto set_row = [&](int s) { return A.row() + static_cast<size_t>(s) * stride; };
  auto set_col = [&](int s) { return A.col() + static_cast<size_t>(s) * stride; };
  auto set_state = [&](int s, int sc) {
    return state_at(smalls + (static_cast<size_t>(s) * kScalings + static_cast<size_t>(sc)) * per_block, np);
  };
  void* st = stream;

  for (int sc = 0; sc < kScalings; ++sc) {
    for (int N : o.ns) {
      for (const char* split : {"equal", "uneven"}) {
        const bool uneven = std::strcmp(split, "uneven") == 0;
        const std::vector<int64_t> rows = uneven ? uneven_split(M, N) : equal_split(M, N);
        const std::vector<int64_t> off = offsets_of(rows, K);
        L.upload(rows, K, stream);

        Row r;
        r.scaling = kScalingName[sc];
        r.n = N;
        r.split = split;
        r.m = M;
        r.k = K;
        r.min_rows = *std::min_element(rows.begin(), rows.end());
        r.max_rows = *std::max_element(rows.begin(), rows.end());
        std::vector<int> members;  // non-empty: the N-launch calls
        for (size_t t = 0; t < rows.size(); ++t) {
          if (rows[t] == 0) ++r.empty;
          else members.push_back(static_cast<int>(t));
          if (rows[t] % 16 != 0) r.rows_mult16 = false;
        }
        r.launches = static_cast<int>(members.size());
        r.nbuf = nbuf;
        r.calls = calls;
        r.floor_bytes = kBytesPerElem[sc] * static_cast<double>(n);

        const Call calls_of[kVariants] = {
            // grouped: one call over the whole group.
            [&](int s) {
              lowp_grouped_tensor g = group_view(set_x(s), M, K, N, L);
              lowp_grouped_quantized_tensor q = group_out(set_row(s), set_col(s), N, sc, set_state(s, sc));
              return lowp_grouped_quantize(&g, &q, nullptr, W.p, W.bytes, st);
            },
            // single: the M x K buffer as one tensor.
            [&](int s) {
              lowp_tensor x{set_x(s), LOWP_DTYPE_BFLOAT16, M, K};
              const State S = set_state(s, sc);
              lowp_quantized_tensor q =
                  tensor_out(set_row(s), set_col(s), M, K, sc, S.single, S.single + 1, S.single + 2);
              return lowp_quantize(&x, &q, nullptr, st);
            },
            // N-launch: one lowp_quantize per non-empty member, its codes at the group layout.
            [&](int s) {
              const State S = set_state(s, sc);
              for (int t : members) {
                const size_t o_t = static_cast<size_t>(off[static_cast<size_t>(t)]);
                const int64_t rt = rows[static_cast<size_t>(t)];
                lowp_tensor x{set_x(s) + o_t, LOWP_DTYPE_BFLOAT16, rt, K};
                lowp_quantized_tensor q = tensor_out(set_row(s) + o_t, set_col(s) + o_t, rt, K, sc,
                                                     S.scale + t, S.scale_inv + t, S.amax + t);
                const lowp_status status = lowp_quantize(&x, &q, nullptr, st);
                if (status != LOWP_SUCCESS) return status;
              }
              return LOWP_SUCCESS;
            },
        };
        const char* const vname[kVariants] = {"grouped", "single", "N-launch"};
        for (int v = 0; v < kVariants; ++v) {
          Timing& t = r.t[v];
          std::snprintf(g_phase, sizeof g_phase, "%s N=%d %s %lldx%lld, %s eager", r.scaling.c_str(),
                        N, split, (long long)M, (long long)K, vname[v]);
          t.eager = time_eager(calls_of[v], nbuf, calls, o.reps, stream);
          if (v == kGrouped) check_layout_status(W.p, stream, "the eager grouped calls");
          std::snprintf(g_phase, sizeof g_phase, "%s N=%d %s %lldx%lld, %s graph capture and replay",
                        r.scaling.c_str(), N, split, (long long)M, (long long)K, vname[v]);
          std::string short_err, full_err;
          if (!time_graph(calls_of[v], nbuf, calls, o.reps, stream, &t.graph, &short_err,
                          &full_err)) {
            t.graph = Stats{};
            t.graph_error = short_err;
            t.note = g_run.add_note(full_err);
          } else if (v == kGrouped) {
            check_layout_status(W.p, stream, "the graph replays of the grouped calls");
          }
        }
        g_run.rows.push_back(r);
        // Progress line (the table at the end is the result).
        bool ratio_eager = false;
        const double ratio = ratio_of(r, &ratio_eager);
        auto g = [](const Timing& t) {
          return t.graph_error.empty() ? std::to_string(t.graph.median_ms)
                                       : "capture failed: " + t.graph_error;
        };
        std::printf("  [%6.1f s] %s N=%-3d %-6s %6lld x %-5lld sets %-3d calls %-4d graph ms: "
                    "grouped %s single %s N-launch %s  g/s %.3f%s\n",
                    elapsed_s(), r.scaling.c_str(), N, split, (long long)M, (long long)K, nbuf, calls,
                    g(r.t[kGrouped]).c_str(), g(r.t[kSingle]).c_str(), g(r.t[kNLaunch]).c_str(),
                    ratio, ratio_eager ? "*" : "");
        std::fflush(stdout);
      }
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(smalls));
}

// ---------------------------------------------------------------------------------------------
// Spot check: member 0 of a grouped call equals lowp_quantize of member 0 alone, byte for byte.
// Group: the first shape, the first N, the uneven split (equal when member 0 would be empty).
// The grouped outputs go to buffer set 0 of the arenas, the reference to its own buffers; the
// two are pre-filled with different patterns so that a byte left unwritten cannot match.
// Returns "" when everything matched, else what differed.

std::string spot_check(const Options& o, const Arenas& A, const DeviceLayout& L,
                       const Workspace& W, cudaStream_t stream) {
  const int64_t M = o.shapes.front().m, K = o.shapes.front().k;
  const int N = o.ns.front();
  std::vector<int64_t> rows = uneven_split(M, N);
  const char* split = "uneven";
  if (rows[0] == 0) {
    rows = equal_split(M, N);
    split = "equal";
  }
  const int64_t r0 = rows[0];
  const size_t total = static_cast<size_t>(M) * static_cast<size_t>(K);
  const size_t bytes0 = static_cast<size_t>(r0) * static_cast<size_t>(K);
  L.upload(rows, K, stream);

  const int np = static_cast<int>(round_up(static_cast<size_t>(N), 64));
  float* smalls = static_cast<float*>(device_alloc(state_floats(np) * sizeof(float), "spot state"));
  uint8_t* ref = static_cast<uint8_t*>(device_alloc(2 * bytes0, "spot reference codes"));
  std::vector<float> h(state_floats(np));
  std::vector<uint8_t> got(bytes0), want(bytes0);
  std::string what;
  char b[512];
  for (int sc = 0; sc < kScalings && what.empty(); ++sc) {
    std::snprintf(g_phase, sizeof g_phase, "spot check, %s N=%d %s %lldx%lld", kScalingName[sc], N,
                  split, (long long)M, (long long)K);
    init_state(h.data(), np, sc);
    CUDA_CHECK(cudaMemcpyAsync(smalls, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice,
                               stream));
    CUDA_CHECK(cudaMemsetAsync(A.row(), 0x7F, total, stream));
    CUDA_CHECK(cudaMemsetAsync(A.col(), 0x7F, total, stream));
    CUDA_CHECK(cudaMemsetAsync(ref, 0xFF, 2 * bytes0, stream));
    const State S = state_at(smalls, np);

    lowp_grouped_tensor g = group_view(A.x, M, K, N, L);
    lowp_grouped_quantized_tensor gq = group_out(A.row(), A.col(), N, sc, S);
    LOWP_CHECK(lowp_grouped_quantize(&g, &gq, nullptr, W.p, W.bytes, stream));
    check_layout_status(W.p, stream, "the spot-check grouped call");

    lowp_tensor x0{A.x, LOWP_DTYPE_BFLOAT16, r0, K};  // member 0 starts at element 0
    lowp_quantized_tensor q0 = tensor_out(ref, ref + bytes0, r0, K, sc, S.single, S.single + 1,
                                          S.single + 2);
    LOWP_CHECK(lowp_quantize(&x0, &q0, nullptr, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    // Member 0's rowwise codes are the first r0 x K bytes, its columnwise codes (K x r0) too.
    for (int part = 0; part < 2 && what.empty(); ++part) {
      CUDA_CHECK(cudaMemcpy(got.data(), part == 0 ? A.row() : A.col(), bytes0,
                            cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(want.data(), ref + (part == 0 ? 0 : bytes0), bytes0,
                            cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < bytes0; ++i) {
        if (got[i] == want[i]) continue;
        const size_t cols = part == 0 ? static_cast<size_t>(K) : static_cast<size_t>(r0);
        std::snprintf(b, sizeof b,
                      "%s %s codes of member 0 (%lld x %lld) differ at [%zu][%zu]: grouped 0x%02x, "
                      "lowp_quantize 0x%02x",
                      kScalingName[sc], part == 0 ? "rowwise" : "columnwise", (long long)r0,
                      (long long)K, i / cols, i % cols, got[i], want[i]);
        what = b;
        break;
      }
    }
    if (!what.empty()) break;
    CUDA_CHECK(cudaMemcpy(h.data(), smalls, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const State H = state_at(h.data(), np);
    const char* const names[2] = {"scale_inv", "amax"};
    const float grouped[2] = {H.scale_inv[0], H.amax[0]};
    const float single[2] = {H.single[1], H.single[2]};
    for (int i = 0; i < 2; ++i) {
      if (std::memcmp(&grouped[i], &single[i], sizeof(float)) == 0) continue;
      std::snprintf(b, sizeof b, "%s %s of member 0: grouped %.9g, lowp_quantize %.9g",
                    kScalingName[sc], names[i], static_cast<double>(grouped[i]),
                    static_cast<double>(single[i]));
      what = b;
      break;
    }
  }
  CUDA_CHECK(cudaFree(ref));
  CUDA_CHECK(cudaFree(smalls));
  std::snprintf(b, sizeof b, "member 0 = %lld x %lld of N=%d %s, %lld x %lld; delayed and current",
                (long long)r0, (long long)K, N, split, (long long)M, (long long)K);
  std::printf("%s: %s\n", what.empty() ? "spot check: ok" : "spot check: FAILED",
              what.empty() ? b : (what + " (" + b + ")").c_str());
  std::fflush(stdout);
  return what;
}

}  // namespace

int main(int argc, char** argv) {
  g_prog = "lowp_bench_grouped";
  const Options o = parse(argc, argv);
  const size_t l2_bytes = start_run(dump_partial, &g_run, o.reps, o.batch, o.json);

  size_t max_n = 0;
  for (const Shape& s : o.shapes)
    max_n = std::max(max_n, static_cast<size_t>(s.m) * static_cast<size_t>(s.k));
  int max_members = 1;
  for (int nn : o.ns) max_members = std::max(max_members, nn);
  Arenas A;
  A.elems = std::max<size_t>(size_t{1} << 30, 2 * round_up(max_n, 256));
  std::printf("lowp_bench_grouped: %s, %d SMs, L2 %.1f MB, %zu shapes x %zu N x 2 splits x 2 "
              "scalings, arenas %.1f GiB\n",
              g_run.device.c_str(), g_run.sms, g_run.l2_mb, o.shapes.size(), o.ns.size(),
              4.0 * static_cast<double>(A.elems) / (1u << 30));
  std::fflush(stdout);
  A.x = static_cast<uint16_t*>(device_alloc(A.elems * 2, "x arena"));
  A.codes = static_cast<uint8_t*>(device_alloc(A.elems * 2, "code arena"));

  DeviceLayout L;
  L.cap = max_members;
  L.d = static_cast<int64_t*>(
      device_alloc(3 * static_cast<size_t>(L.cap) * sizeof(int64_t), "layout arrays"));
  Workspace W;
  LOWP_CHECK(lowp_grouped_workspace_size(max_members, &W.bytes));
  W.p = device_alloc(std::max<size_t>(W.bytes, 256), "grouped workspace");

  std::snprintf(g_phase, sizeof g_phase, "input fill and copy bandwidth");
  fill_random(A.x, A.elems);
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const size_t copy_bytes = A.elems * 2;  // x arena -> code arena
  g_run.copy_buffer_gb = static_cast<double>(copy_bytes) / 1e9;
  g_run.copy_gbps_start =
      measure_copy_gbps(A.codes, A.x, copy_bytes, std::max(o.reps, 10), stream);
  std::printf("copy D2D (start): %.0f GB/s (read+write)\n", g_run.copy_gbps_start);
  std::fflush(stdout);

  for (const Shape& s : o.shapes) bench_shape(o, A, L, W, s.m, s.k, l2_bytes, stream);

  const std::string mismatch = spot_check(o, A, L, W, stream);
  g_run.spot_check = mismatch.empty() ? "ok" : "FAILED";
  if (!mismatch.empty()) g_run.warnings.push_back("spot check FAILED: " + mismatch);

  std::snprintf(g_phase, sizeof g_phase, "final copy bandwidth");
  g_run.copy_gbps_end = measure_copy_gbps(A.codes, A.x, copy_bytes, std::max(o.reps, 10), stream);

  print_table();
  write_json(true);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(W.p));
  CUDA_CHECK(cudaFree(L.d));
  CUDA_CHECK(cudaFree(A.x));
  CUDA_CHECK(cudaFree(A.codes));
  // A capture failure is a finding reported in the table, not a failure of the benchmark.
  return mismatch.empty() ? 0 : 3;
}
