// lowp_bench_fp8: the FP8 quantization ops of the lowp C API, timed against the
// device-to-device copy bandwidth measured in the same run.
//
// Ops (E4M3 codes, bf16 input x[M][K]):
//   delayed    lowp_quantize, DELAYED scaling, rowwise + columnwise
//   current    lowp_quantize, CURRENT scaling (amax pass + cast), rowwise + columnwise
//   per_token  lowp_quantize, PER_TOKEN scaling (row/col amax pass + cast), rowwise + columnwise
//   dequant    lowp_dequantize of the rowwise copy to bf16 (per-tensor scale_inv)
//   amax       lowp_amax
//   amax_tok   lowp_amax_per_token (row and column amax)
//
// Bytes that must move (the floor), per element of x. The per-row/per-column float vectors
// (at most 16·(M+K) bytes) and the per-tensor scalars are left out:
//   delayed   = 2 (read x) + 1 (row codes) + 1 (col codes)                 = 4 B
//   current   = 2·2 (amax pass, then cast pass, read x) + 1 + 1            = 6 B
//   per_token = 2·2 (row/col amax pass, then cast pass, read x) + 1 + 1    = 6 B
//   dequant   = 1 (read row codes) + 2 (write bf16)                        = 3 B
//   amax      = 2 (read x)                                                 = 2 B
//   amax_tok  = 2 (read x)                                                 = 2 B
// GB/s = floor bytes / time (1 GB = 1e9 B). frac = GB/s / copy GB/s, where the copy bandwidth
// counts bytes read + bytes written of a large cudaMemcpyAsync D2D (the better of a measurement
// at the start and one at the end of the run).
//
// Method: CUDA events; median over --reps samples after warm-up. A sample is a batch of
// back-to-back calls and gives time per call = sample / calls. Inputs and outputs rotate among
// several buffer sets whose inputs together are at least 4x the L2 size, so L2 does not hold
// them. Two columns: eager (lowp calls issued one after another on a stream; when the host is
// slower than the GPU this includes each call's host cost) and graph (the same batch captured
// once with cudaStreamCaptureModeGlobal, then replayed). A capture that fails is reported as
// "capture failed: <error>" in its cell, with the full message under the table.
// The GB/s and frac columns use the graph time, or the eager time (marked *) when capture failed.
//
// Usage: lowp_bench_fp8 [--quick] [--m M] [--k K] [--ops a,b,...] [--reps N] [--batch N]
//                       [--json FILE]
#include <algorithm>
#include <cerrno>
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

struct Row : Timing {
  std::string op;
  int64_t m = 0, k = 0;
  int nbuf = 0;            // buffer sets rotated
  int calls = 0;           // calls per timed sample
  double floor_bytes = 0;  // bytes that must move per call
};

struct Run : RunInfo {
  std::vector<Row> rows;
};

Run g_run;

void write_json(bool complete) {
  FILE* f = open_json_with_header(g_run, complete);
  if (f == nullptr) return;
  const double cbw = g_run.copy_gbps();
  std::fprintf(f, "  \"rows\": [");
  for (size_t i = 0; i < g_run.rows.size(); ++i) {
    const Row& r = g_run.rows[i];
    bool from_eager = false;
    const double ms = headline_ms(r, &from_eager);
    const double gbps = gbps_of(r.floor_bytes, ms);
    std::string err_json = "null";
    if (!r.graph_error.empty()) {
      err_json = "\"";
      err_json += json_escape(g_run.notes[static_cast<size_t>(r.note - 1)]);
      err_json += "\"";
    }
    std::fprintf(f,
                 "%s\n    {\"op\": \"%s\", \"m\": %lld, \"k\": %lld, \"buffer_sets\": %d, "
                 "\"calls_per_sample\": %d, \"floor_bytes\": %.0f,\n     \"eager\": %s,\n"
                 "     \"graph\": %s, \"graph_error\": %s,\n"
                 "     \"eager_gbps\": %s, \"graph_gbps\": %s, \"gbps\": %s, \"gbps_from\": \"%s\", "
                 "\"fraction_of_copy\": %s}",
                 i == 0 ? "" : ",", r.op.c_str(), static_cast<long long>(r.m),
                 static_cast<long long>(r.k), r.nbuf, r.calls, r.floor_bytes,
                 jstats(r.eager).c_str(), jstats(r.graph).c_str(),
                 err_json.c_str(),
                 jnum(gbps_of(r.floor_bytes, r.eager.median_ms)).c_str(),
                 jnum(gbps_of(r.floor_bytes, r.graph.median_ms)).c_str(), jnum(gbps).c_str(),
                 from_eager ? "eager" : "graph", jnum(gbps / cbw).c_str());
  }
  std::fprintf(f, "\n  ],\n");
  close_json_with_warnings(f, g_run);
}

void print_table() {
  const double cbw = g_run.copy_gbps();
  std::printf("\n== lowp_bench_fp8 (lowp %s) on %s: %d SMs, L2 %.1f MB ==\n", lowp_version(),
              g_run.device.c_str(), g_run.sms, g_run.l2_mb);
  std::printf("copy D2D %.2f GB buffer, read+write: start %.0f GB/s, end %.0f GB/s -> %.0f GB/s\n",
              g_run.copy_buffer_gb, g_run.copy_gbps_start, g_run.copy_gbps_end, cbw);
  std::printf("floor B/elem: delayed 4, current 6, per_token 6 (2 reads of x + 2 codes), "
              "dequant 3, amax 2, amax_tok 2\n");
  std::printf("median of %d samples, ms per call; GB/s = floor/time (graph; * = eager); "
              "frac = GB/s / copy\n",
              g_run.reps);
  std::printf("%-9s %6s %5s %9s %9s %7s %6s\n", "op", "M", "K", "eager_ms", "graph_ms", "GB/s",
              "frac");
  for (const Row& r : g_run.rows) {
    bool from_eager = false;
    const double ms = headline_ms(r, &from_eager);
    const double gbps = gbps_of(r.floor_bytes, ms);
    char graph_cell[160];
    if (r.graph_error.empty())
      std::snprintf(graph_cell, sizeof graph_cell, "%9.4f", r.graph.median_ms);
    else
      std::snprintf(graph_cell, sizeof graph_cell, "capture failed: %s [%d]",
                    r.graph_error.c_str(), r.note);
    std::printf("%-9s %6lld %5lld %9.4f %9s %6.0f%s %6.3f\n", r.op.c_str(),
                static_cast<long long>(r.m), static_cast<long long>(r.k), r.eager.median_ms,
                graph_cell, gbps, from_eager ? "*" : " ", gbps / cbw);
  }
  print_notes_and_warnings(g_run);
  std::fflush(stdout);
}

// What was measured so far, before a fatal error or crash ends the run (lowp_bench::g_dump).
void dump_partial() {
  if (!g_run.rows.empty()) {
    print_table();
    write_json(false);
  }
}

void set_phase(const char* op, int64_t m, int64_t k, const char* what) {
  std::snprintf(g_phase, sizeof g_phase, "%s %lldx%lld, %s", op, static_cast<long long>(m),
                static_cast<long long>(k), what);
}

// ---------------------------------------------------------------------------------------------
// Options.

struct Options : CommonOptions {
  std::vector<Shape> shapes;
  std::vector<std::string> ops;
};

const char* const kAllOps[] = {"delayed", "current", "per_token", "dequant", "amax", "amax_tok"};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
      "usage: lowp_bench_fp8 [--quick] [--m M] [--k K] [--ops LIST] [--reps N] [--batch N]\n"
      "                      [--json FILE]\n"
      "  default sweep: M in {1024,2048,4096,8192,16384,32768} x K in {2048,4096,8192}, bf16\n"
      "  --quick     only M=16384,K=8192 and M=4096,K=4096\n"
      "  --m, --k    restrict the sweep to this M and/or K (any positive value)\n"
      "  --ops LIST  comma-separated subset of delayed,current,per_token,dequant,amax,amax_tok\n"
      "  --reps N    timed samples per column (median reported; default 30)\n"
      "  --batch N   calls per sample, at least (rounded up to a multiple of the buffer sets;\n"
      "              default 10)\n"
      "  --json FILE write the table as JSON\n");
  std::exit(code);
}


Options parse(int argc, char** argv) {
  Options o;
  std::string ops;
  parse_common(argc, argv, usage, &o, [&](const std::string& a, auto value) {
    if (a != "--ops") return false;
    ops = value();
    return true;
  });
  o.shapes = sweep_shapes(o.quick, o.m, o.k);
  if (ops.empty()) {
    for (const char* op : kAllOps) o.ops.emplace_back(op);
  } else {
    size_t p = 0;
    while (p <= ops.size()) {
      const size_t q = std::min(ops.find(',', p), ops.size());
      const std::string name = ops.substr(p, q - p);
      if (std::find(std::begin(kAllOps), std::end(kAllOps), name) == std::end(kAllOps)) {
        std::fprintf(stderr, "lowp_bench_fp8: unknown op '%s'\n", name.c_str());
        usage(2);
      }
      o.ops.push_back(name);
      p = q + 1;
    }
  }
  return o;
}

bool want(const Options& o, const char* op) {
  return std::find(o.ops.begin(), o.ops.end(), op) != o.ops.end();
}

// ---------------------------------------------------------------------------------------------
// Device buffers. Arenas are allocated once; a shape carves `nbuf` buffer sets out of them.
// Memory: 6 B per arena element (x bf16 2, row codes 1, col codes 1, dequant out bf16 2), with
// 2^30 elements (6 GiB) unless a shape needs more, plus small float vectors per shape.

struct Arenas {
  size_t elems = 0;
  uint16_t* x = nullptr;      // bf16 inputs (random)
  uint8_t* row = nullptr;     // rowwise codes
  uint8_t* col = nullptr;     // columnwise codes
  uint16_t* out = nullptr;    // dequantize output; also the copy destination
};

// ---------------------------------------------------------------------------------------------
// One shape: buffer sets, the op calls, timing, sanity checks.

struct Set {
  lowp_tensor x;
  lowp_tensor deq_out;
  lowp_quantized_tensor q_delayed, q_current, q_token;
  float* amax;       // lowp_amax output
  float* tok_row;    // lowp_amax_per_token outputs
  float* tok_col;
};

void bench_shape(const Options& o, const Arenas& A, int64_t M, int64_t K, size_t l2_bytes,
                 cudaStream_t stream) {
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

  // Small float buffers per set, each sub-array 256-byte aligned.
  const size_t fm = round_up(static_cast<size_t>(M), 64), fk = round_up(static_cast<size_t>(K), 64);
  const size_t per_set = 64 * 3 + 3 * (fm + fk);
  float* smalls = static_cast<float*>(device_alloc(per_set * nbuf * sizeof(float), "scales"));
  std::vector<float> init(per_set * static_cast<size_t>(nbuf), 0.0f);

  std::vector<Set> sets(static_cast<size_t>(nbuf));
  for (int s = 0; s < nbuf; ++s) {
    Set& t = sets[static_cast<size_t>(s)];
    const size_t off = static_cast<size_t>(s) * stride;
    float* f = smalls + static_cast<size_t>(s) * per_set;
    float* fi = init.data() + static_cast<size_t>(s) * per_set;
    t.x = {A.x + off, LOWP_DTYPE_BFLOAT16, M, K};
    t.deq_out = {A.out + off, LOWP_DTYPE_BFLOAT16, M, K};

    lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E4M3;
    q.rows = M;
    q.cols = K;
    q.rowwise.data = A.row + off;
    q.columnwise.data = A.col + off;

    t.q_delayed = q;
    t.q_delayed.scaling = LOWP_SCALING_DELAYED;
    t.q_delayed.scale = f + 0;
    t.q_delayed.scale_inv = f + 1;
    t.q_delayed.amax = f + 2;
    fi[0] = 32.0f;  // |x| < 3.5 -> well inside E4M3's 448
    fi[1] = 1.0f / 32.0f;

    t.q_current = q;
    t.q_current.scaling = LOWP_SCALING_CURRENT;
    t.q_current.scale = f + 64;
    t.q_current.scale_inv = f + 65;
    t.q_current.amax = f + 66;

    t.amax = f + 128;

    float* v = f + 192;
    t.q_token = q;
    t.q_token.scaling = LOWP_SCALING_PER_TOKEN;
    t.q_token.rowwise.scale_inv = v;
    t.q_token.rowwise.amax = v + fm;
    t.q_token.columnwise.scale_inv = v + 2 * fm;
    t.q_token.columnwise.amax = v + 2 * fm + fk;
    t.tok_row = v + 2 * fm + 2 * fk;
    t.tok_col = v + 3 * fm + 2 * fk;
  }
  CUDA_CHECK(cudaMemcpy(smalls, init.data(), init.size() * sizeof(float), cudaMemcpyHostToDevice));

  void* st = stream;
  struct Op {
    const char* name;
    double bytes_per_elem;
    Call call;
  };
  const std::vector<Op> ops = {
      {"delayed", 4.0, [&](int s) { auto& t = sets[s]; return lowp_quantize(&t.x, &t.q_delayed, nullptr, st); }},
      {"current", 6.0, [&](int s) { auto& t = sets[s]; return lowp_quantize(&t.x, &t.q_current, nullptr, st); }},
      {"per_token", 6.0, [&](int s) { auto& t = sets[s]; return lowp_quantize(&t.x, &t.q_token, nullptr, st); }},
      {"dequant", 3.0, [&](int s) { auto& t = sets[s]; return lowp_dequantize(&t.q_delayed, LOWP_ROWWISE, &t.deq_out, st); }},
      {"amax", 2.0, [&](int s) { auto& t = sets[s]; return lowp_amax(&t.x, t.amax, st); }},
      {"amax_tok", 2.0, [&](int s) { auto& t = sets[s]; return lowp_amax_per_token(&t.x, t.tok_row, t.tok_col, st); }},
  };

  for (const Op& op : ops) {
    if (!want(o, op.name)) continue;
    if (std::strcmp(op.name, "dequant") == 0) {
      set_phase(op.name, M, K, "delayed cast of every set (dequant input)");
      // Codes and scale_inv from a delayed cast of every set (not timed).
      for (int s = 0; s < nbuf; ++s)
        LOWP_CHECK(lowp_quantize(&sets[static_cast<size_t>(s)].x,
                                 &sets[static_cast<size_t>(s)].q_delayed, nullptr, st));
    }
    Row r;
    r.op = op.name;
    r.m = M;
    r.k = K;
    r.nbuf = nbuf;
    r.calls = calls;
    r.floor_bytes = op.bytes_per_elem * static_cast<double>(n);
    set_phase(op.name, M, K, "eager, then graph capture and replay");
    time_both(op.call, nbuf, calls, o.reps, stream, &g_run, &r);
    g_run.rows.push_back(r);
    bool from_eager = false;
    const double ms = headline_ms(r, &from_eager);
    // Progress line (the table at the end is the result).
    std::printf("  %-9s %6lld x %-5lld sets %-3d calls %-4d eager %.4f ms  graph %s  %.0f GB/s\n",
                op.name, (long long)M, (long long)K, nbuf, calls, r.eager.median_ms,
                r.graph_error.empty() ? std::to_string(r.graph.median_ms).c_str()
                                      : ("capture failed: " + r.graph_error).c_str(),
                gbps_of(r.floor_bytes, ms));
    std::fflush(stdout);
  }

  // Sanity (cheap): the outputs of set 0 look like the outputs of a real pass over x.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const Set& t0 = sets[0];
  auto read1 = [](const float* p) {
    float v = 0;
    CUDA_CHECK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    return v;
  };
  char buf[256];
  auto check = [&](bool ok, const char* what, float v) {
    if (ok) return;
    std::snprintf(buf, sizeof buf, "%lldx%lld: %s = %g looks wrong", (long long)M, (long long)K,
                  what, static_cast<double>(v));
    g_run.warnings.emplace_back(buf);
  };
  if (want(o, "amax")) {
    const float a = read1(t0.amax);
    check(std::isfinite(a) && a > 0.5f && a < 8.0f, "amax", a);
  }
  if (want(o, "amax_tok")) {
    const float a = read1(t0.tok_row), b = read1(t0.tok_col);
    check(std::isfinite(a) && a > 0.0f && a < 8.0f, "row_amax[0]", a);
    check(std::isfinite(b) && b > 0.0f && b < 8.0f, "col_amax[0]", b);
  }
  if (want(o, "current")) {
    const float s = read1(t0.q_current.scale), a = read1(t0.q_current.amax);
    check(std::isfinite(a) && a > 0.5f && a < 8.0f, "current amax", a);
    check(std::isfinite(s) && std::fabs(s * a - 448.0f) < 1.0f, "current scale*amax", s * a);
  }
  if (want(o, "delayed")) {
    const float a = read1(t0.q_delayed.amax);
    check(std::isfinite(a) && a > 0.5f && a < 8.0f, "delayed amax (folded)", a);
  }
  if (want(o, "per_token")) {
    const float a = read1(t0.q_token.rowwise.amax);
    check(std::isfinite(a) && a > 0.0f && a < 8.0f, "per_token row amax[0]", a);
  }
  CUDA_CHECK(cudaFree(smalls));
}

}  // namespace

int main(int argc, char** argv) {
  g_prog = "lowp_bench_fp8";
  const Options o = parse(argc, argv);
  const size_t l2_bytes = start_run(dump_partial, &g_run, o.reps, o.batch, o.json);

  size_t max_n = 0;
  for (const Shape& s : o.shapes)
    max_n = std::max(max_n, static_cast<size_t>(s.m) * static_cast<size_t>(s.k));
  Arenas A;
  A.elems = std::max<size_t>(size_t{1} << 30, 2 * round_up(max_n, 256));
  std::printf("lowp_bench_fp8: %s, %d SMs, L2 %.1f MB, %zu shapes x %zu ops, arenas %.1f GiB\n",
              g_run.device.c_str(), g_run.sms, g_run.l2_mb, o.shapes.size(), o.ops.size(),
              6.0 * static_cast<double>(A.elems) / (1u << 30));
  std::fflush(stdout);
  A.x = static_cast<uint16_t*>(device_alloc(A.elems * 2, "x arena"));
  A.row = static_cast<uint8_t*>(device_alloc(A.elems, "rowwise code arena"));
  A.col = static_cast<uint8_t*>(device_alloc(A.elems, "columnwise code arena"));
  A.out = static_cast<uint16_t*>(device_alloc(A.elems * 2, "output arena"));
  std::snprintf(g_phase, sizeof g_phase, "input fill and copy bandwidth");
  fill_random(A.x, A.elems);
  CUDA_CHECK(cudaMemset(A.row, 0x38, A.elems));  // E4M3 1.0: valid codes before any cast
  CUDA_CHECK(cudaMemset(A.col, 0x38, A.elems));
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const size_t copy_bytes = A.elems * 2;  // x arena -> output arena
  g_run.copy_buffer_gb = static_cast<double>(copy_bytes) / 1e9;
  g_run.copy_gbps_start = measure_copy_gbps(A.out, A.x, copy_bytes, std::max(o.reps, 10), stream);
  std::printf("copy D2D (start): %.0f GB/s (read+write)\n", g_run.copy_gbps_start);
  std::fflush(stdout);

  for (const Shape& s : o.shapes) bench_shape(o, A, s.m, s.k, l2_bytes, stream);

  std::snprintf(g_phase, sizeof g_phase, "final copy bandwidth");
  g_run.copy_gbps_end = measure_copy_gbps(A.out, A.x, copy_bytes, std::max(o.reps, 10), stream);

  print_table();
  write_json(true);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(A.x));
  CUDA_CHECK(cudaFree(A.row));
  CUDA_CHECK(cudaFree(A.col));
  CUDA_CHECK(cudaFree(A.out));
  // A capture failure is a finding reported in the table, not a failure of the benchmark.
  return g_run.warnings.empty() ? 0 : 3;
}
