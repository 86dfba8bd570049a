// lowp_bench_nvfp4: the NVFP4 quantization ops of the lowp C API, timed against the
// device-to-device copy bandwidth measured in the same run.
//
// Ops (bf16 input x[M][K], rowwise + columnwise codes, compact scales unless named):
//   rn          per-tensor cast, amax given (the encode kernel alone), round to nearest
//   rht         the same with RHT16 on the columnwise copy
//   rht_sr      RHT + stochastic rounding
//   2d          16x16 block scales (weights)
//   fos         rn with 4over6 (numerics §5c: both candidates per block, MAE, E 448)
//   fos_mse     4over6 with MSE and E 256
//   fos_2d      4over6 on 16x16 block scales
//   swz         rn with the scales written swizzled (fused)
//   pipe_exact  the whole columnwise-RHT recipe: amax pass + exact post-RHT amax pass + cast
//   pipe_est    the same with amax estimation: amax pass + cast (no post-RHT amax pass)
//   amax        the pipelines' flat amax pass alone (lowp_amax of x)
//   dequant     lowp_dequantize of the rowwise copy to bf16
//   dequant_f32 the same to fp32
//   dequant_swz the same from swizzled scales (the swizzle op's output)
//   dequant_col lowp_dequantize of the columnwise copy (RHT domain, made by pipe_*) to bf16
//   swizzle     lowp_nvfp4_swizzle_scales of the rowwise scales (compact -> swizzled)
//
// Bytes that must move per element of x (the floor): codes 0.5 per copy, scales 1/16 per copy.
//   cast ops    2 (read x) + 2 x (0.5 + 1/16)                    = 3.125 B
//   pipe_exact  3 reads of x (amax, RHT amax, cast) + 1.125      = 7.125 B
//   pipe_est    2 reads of x (amax, cast) + 1.125                = 5.125 B
//   amax        1 read of x                                      = 2 B
//   dequant     0.5 + 1/16 (read codes, scales) + 2 (write bf16) = 2.5625 B (also _swz, _col)
//   dequant_f32 0.5 + 1/16 + 4 (write fp32)                      = 4.5625 B
//   swizzle     2 x 1/16 (read and write the rowwise scales)     = 0.125 B
// frac = (floor / time) / copy bandwidth (read + write of a large D2D cudaMemcpyAsync, the
// better of a measurement at the start and one at the end of the run).
//
// Method: CUDA events, median of --reps samples, each sample a batch of calls rotating over
// buffer sets whose inputs together are >= 4x L2. Columns: eager and CUDA-graph replay; GB/s and
// frac use the graph time (eager, marked *, when the capture failed).
//
// Usage: lowp_bench_nvfp4 [--quick] [--m M] [--k K] [--reps N] [--batch N] [--ops A,B] [--json FILE]
// (--ops: only the named ops, e.g. for a profiler run)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "lowp/lowp.h"

namespace {

using namespace lowp_bench;

struct Run : RunInfo {
  std::vector<OpRow> rows;
};
Run g_run;

void write_json(bool complete) {
  FILE* f = open_json_with_header(g_run, complete);
  if (f == nullptr) return;
  std::fprintf(f, "  \"rows\": [");
  for (size_t i = 0; i < g_run.rows.size(); ++i)
    std::fprintf(f, "%s\n    {%s}", i == 0 ? "" : ",", json_op_fields(g_run.rows[i], g_run.copy_gbps()).c_str());
  std::fprintf(f, "\n  ],\n");
  close_json_with_warnings(f, g_run);
}

// The time of op `name` at (m, k), graph when it captured; NaN when absent.
double ms_of(const std::string& name, int64_t m, int64_t k) { return find_ms(g_run.rows, name, m, k); }

void print_table() {
  const double cbw = g_run.copy_gbps();
  std::printf("\n== lowp_bench_nvfp4 (lowp %s) on %s: %d SMs, L2 %.1f MB ==\n", lowp_version(), g_run.device.c_str(),
              g_run.sms, g_run.l2_mb);
  std::printf("copy D2D read+write: start %.0f GB/s, end %.0f GB/s -> %.0f GB/s\n", g_run.copy_gbps_start,
              g_run.copy_gbps_end, cbw);
  std::printf("floor B/elem: cast 3.125, pipe_exact 7.125, pipe_est 5.125, dequant 2.5625 (f32 4.5625), swizzle 0.125\n");
  std::printf("median of %d samples, ms per call; GB/s = floor/time (graph; * = eager); frac = GB/s / copy\n", g_run.reps);
  std::printf("%-10s %6s %5s %9s %9s %7s %6s\n", "op", "M", "K", "eager_ms", "graph_ms", "GB/s", "frac");
  for (const OpRow& r : g_run.rows) {
    bool from_eager = false;
    const double gbps = gbps_of(r.floor_bytes, headline_ms(r, &from_eager));
    std::printf("%-10s %6lld %5lld %9.4f %9s %6.0f%s %6.3f\n", r.op.c_str(), static_cast<long long>(r.m),
                static_cast<long long>(r.k), r.eager.median_ms,
                r.graph_error.empty() ? std::to_string(r.graph.median_ms).substr(0, 9).c_str() : "failed", gbps,
                from_eager ? "*" : " ", gbps / cbw);
  }
  // The saving of amax estimation on the columnwise-RHT pipeline, per shape.
  for (const auto& [m, k] : distinct_shapes(g_run.rows)) {
    const double ex = ms_of("pipe_exact", m, k), es = ms_of("pipe_est", m, k);
    if (!std::isnan(ex) && !std::isnan(es))
      std::printf("estimation saves %.1f%% of the RHT pipeline at %lldx%lld (%.4f -> %.4f ms)\n", 100.0 * (1.0 - es / ex),
                  static_cast<long long>(m), static_cast<long long>(k), ex, es);
  }
  print_notes_and_warnings(g_run);
  std::fflush(stdout);
}

void dump_partial() {
  if (!g_run.rows.empty()) {
    print_table();
    write_json(false);
  }
}

struct Options : CommonOptions {
  std::vector<Shape> shapes;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: lowp_bench_nvfp4 [--quick] [--m M] [--k K] [--reps N] [--batch N] [--ops A,B] [--json FILE]\n"
               "  default sweep: M in {1024,...,32768} x K in {2048,4096,8192}; --quick: 16384x8192, 4096x4096\n");
  std::exit(code);
}

Options parse(int argc, char** argv) {
  Options o;
  parse_common(argc, argv, usage, &o, [](const std::string&, auto) { return false; });
  o.shapes = sweep_shapes(o.quick, o.m, o.k);
  return o;
}

// Arenas shared by every shape: x (bf16), both code copies, both scale arrays, dequant output.
struct Arenas {
  size_t elems = 0;
  uint16_t* x = nullptr;
  uint8_t *row = nullptr, *col = nullptr, *row_s = nullptr, *col_s = nullptr, *swz = nullptr;
  uint16_t* out = nullptr;
  float* amax = nullptr;  // 4 floats per set
  uint64_t* rng = nullptr;
};

struct Set {
  lowp_tensor x, out, out_f32;
  lowp_quantized_tensor q;
  uint8_t* swz;
  int64_t row_scale_rows, row_blocks;
};

void bench_shape(const Options& o, const Arenas& A, int64_t M, int64_t K, size_t l2_bytes, cudaStream_t stream) {
  const size_t n = static_cast<size_t>(M) * static_cast<size_t>(K);
  const size_t stride = round_up(n, 1024);
  const size_t scale_stride = round_up(n / 16 + 128 * 1024, 1024);  // >= either padded scale array
  const int nbuf = static_cast<int>(std::min<size_t>(buffer_sets(l2_bytes, 2 * n, 64), A.elems / stride));
  if (nbuf < 1) fatal("shape %lldx%lld does not fit the arenas", (long long)M, (long long)K);
  const int calls = calls_per_sample(o.batch, nbuf);
  std::vector<Set> sets(static_cast<size_t>(nbuf));
  for (int s = 0; s < nbuf; ++s) {
    Set& t = sets[static_cast<size_t>(s)];
    const size_t off = static_cast<size_t>(s) * stride, soff = static_cast<size_t>(s) * scale_stride;
    t.x = {A.x + off, LOWP_DTYPE_BFLOAT16, M, K};
    t.out = {A.out + off, LOWP_DTYPE_BFLOAT16, M, K};
    t.out_f32 = {A.out, LOWP_DTYPE_FLOAT32, M, K};  // one output for every set: 4 bytes an element
    t.q = LOWP_QUANTIZED_TENSOR_INIT;
    t.q.dtype = LOWP_DTYPE_E2M1;
    t.q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR;
    t.q.rows = M;
    t.q.cols = K;
    t.q.rowwise = {A.row + off / 2, A.row_s + soff, A.amax + 4 * s};
    t.q.columnwise = {A.col + off / 2, A.col_s + soff, A.amax + 4 * s + 1};
    t.swz = A.swz + soff;
    t.row_scale_rows = M;
    t.row_blocks = K / 16;
  }
  void* st = stream;
  // 0 rn, 1 rht, 2 rht_sr, 3 2d, 4 exact pipe, 5 est pipe, 6 4over6, 7 4over6 MSE E 256, 8 4over6 2D
  auto cfg_of = [](int kind) {
    lowp_quant_config c;
    lowp_quant_config_default(&c);
    c.amax_given = kind <= 3 || kind >= 6;
    c.rht = kind == 1 || kind == 2 || kind == 4 || kind == 5;
    c.stochastic_rounding = kind == 2;
    c.block_2d = kind == 3 || kind == 8;
    c.amax_estimation = kind == 5;
    c.amax_estimation_factor = 2.0f;
    c.four_over_six = kind >= 6;
    c.four_over_six_error = kind == 7 ? LOWP_FOUR_OVER_SIX_MSE : LOWP_FOUR_OVER_SIX_MAE;
    c.four_over_six_scale_max = kind == 7 ? 256.0f : 448.0f;
    return c;
  };
  auto quant = [&](int kind, lowp_scale_layout layout) {
    return [&, kind, layout](int s) {
      Set& t = sets[static_cast<size_t>(s)];
      lowp_quant_config c = cfg_of(kind);
      c.rng_state = A.rng;
      t.q.scale_layout = layout;
      return lowp_quantize(&t.x, &t.q, &c, st);
    };
  };
  // Amaxes for the amax-given ops: one real pass first (not timed).
  for (Set& t : sets) {
    lowp_quant_config c = cfg_of(4);
    LOWP_CHECK(lowp_quantize(&t.x, &t.q, &c, st));
  }
  // Swizzled copies of the rowwise scales for dequant_swz (the swizzle op rewrites the same bytes).
  for (Set& t : sets)
    LOWP_CHECK(lowp_nvfp4_swizzle_scales(t.q.rowwise.scale_inv, t.swz, t.row_scale_rows, t.row_blocks, st));
  auto dequant = [&](lowp_orientation which, bool f32, bool swizzled) {
    return [&, which, f32, swizzled](int s) {
      Set& t = sets[static_cast<size_t>(s)];
      lowp_quantized_tensor q = t.q;
      q.scale_layout = swizzled ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
      if (swizzled) q.rowwise.scale_inv = t.swz;
      lowp_tensor out = f32 ? t.out_f32 : t.out;
      if (which == LOWP_COLUMNWISE) std::swap(out.rows, out.cols);
      return lowp_dequantize(&q, which, &out, st);
    };
  };
  struct Op {
    const char* name;
    double bytes;
    Call call;
  };
  const std::vector<Op> ops = {
      {"rn", 3.125, quant(0, LOWP_SCALE_LAYOUT_COMPACT)},
      {"rht", 3.125, quant(1, LOWP_SCALE_LAYOUT_COMPACT)},
      {"rht_sr", 3.125, quant(2, LOWP_SCALE_LAYOUT_COMPACT)},
      {"2d", 3.125, quant(3, LOWP_SCALE_LAYOUT_COMPACT)},
      {"fos", 3.125, quant(6, LOWP_SCALE_LAYOUT_COMPACT)},
      {"fos_mse", 3.125, quant(7, LOWP_SCALE_LAYOUT_COMPACT)},
      {"fos_2d", 3.125, quant(8, LOWP_SCALE_LAYOUT_COMPACT)},
      {"swz", 3.125, quant(0, LOWP_SCALE_LAYOUT_SWIZZLED)},
      {"pipe_exact", 7.125, quant(4, LOWP_SCALE_LAYOUT_COMPACT)},
      {"pipe_est", 5.125, quant(5, LOWP_SCALE_LAYOUT_COMPACT)},
      {"amax", 2.0,
       [&](int s) {
         Set& t = sets[static_cast<size_t>(s)];
         return lowp_amax(&t.x, A.amax + 4 * s + 2, st);
       }},
      {"dequant", 2.5625, dequant(LOWP_ROWWISE, false, false)},
      {"dequant_f32", 4.5625, dequant(LOWP_ROWWISE, true, false)},
      {"dequant_swz", 2.5625, dequant(LOWP_ROWWISE, false, true)},
      {"dequant_col", 2.5625, dequant(LOWP_COLUMNWISE, false, false)},
      {"swizzle", 0.125,
       [&](int s) {
         Set& t = sets[static_cast<size_t>(s)];
         return lowp_nvfp4_swizzle_scales(t.q.rowwise.scale_inv, t.swz, t.row_scale_rows, t.row_blocks, st);
       }},
  };
  for (const Op& op : ops) {
    if (!o.runs(op.name)) continue;
    OpRow r;
    r.op = op.name;
    r.m = M;
    r.k = K;
    r.floor_bytes = op.bytes * static_cast<double>(n);
    std::snprintf(g_phase, sizeof g_phase, "%s %lldx%lld", op.name, (long long)M, (long long)K);
    time_both(op.call, nbuf, calls, o.reps, stream, &g_run, &r);
    g_run.rows.push_back(r);
    bool e = false;
    std::printf("  %-10s %6lld x %-5lld %.4f ms\n", op.name, (long long)M, (long long)K, headline_ms(r, &e));
    std::fflush(stdout);
  }
  // Sanity: the exact post-RHT amax of set 0 is positive and finite, and the estimate is 2x A_row.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  float am[2];
  CUDA_CHECK(cudaMemcpy(am, A.amax, sizeof am, cudaMemcpyDeviceToHost));
  if (!(std::isfinite(am[0]) && am[0] > 0.5f && std::isfinite(am[1]) && am[1] > 0.0f))
    g_run.warnings.push_back("amaxes of set 0 look wrong at " + std::to_string(M) + "x" + std::to_string(K));
}

}  // namespace

int main(int argc, char** argv) {
  g_prog = "lowp_bench_nvfp4";
  const Options o = parse(argc, argv);
  const size_t l2_bytes = start_run(dump_partial, &g_run, o.reps, o.batch, o.json);
  size_t max_n = 0;
  for (const Shape& sh : o.shapes) max_n = std::max(max_n, static_cast<size_t>(sh.m) * static_cast<size_t>(sh.k));
  Arenas A;
  A.elems = std::max<size_t>(size_t{1} << 30, 2 * round_up(max_n, 1024));
  const size_t scale_bytes = (A.elems / 16 + 64 * 128 * 1024) + 4096;
  A.x = static_cast<uint16_t*>(device_alloc(A.elems * 2, "x arena"));
  A.out = static_cast<uint16_t*>(device_alloc(A.elems * 2, "output arena"));
  A.row = static_cast<uint8_t*>(device_alloc(A.elems / 2, "rowwise codes"));
  A.col = static_cast<uint8_t*>(device_alloc(A.elems / 2, "columnwise codes"));
  A.row_s = static_cast<uint8_t*>(device_alloc(scale_bytes, "rowwise scales"));
  A.col_s = static_cast<uint8_t*>(device_alloc(scale_bytes, "columnwise scales"));
  A.swz = static_cast<uint8_t*>(device_alloc(scale_bytes, "swizzled scales"));
  A.amax = static_cast<float*>(device_alloc(64 * 4 * sizeof(float), "amaxes"));
  A.rng = static_cast<uint64_t*>(device_alloc(16, "rng state"));
  const uint64_t rng[2] = {1234, 0};
  CUDA_CHECK(cudaMemcpy(A.rng, rng, 16, cudaMemcpyHostToDevice));
  fill_random(A.x, A.elems);
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const size_t copy_bytes = A.elems * 2;
  g_run.copy_buffer_gb = static_cast<double>(copy_bytes) / 1e9;
  g_run.copy_gbps_start = measure_copy_gbps(A.out, A.x, copy_bytes, std::max(o.reps, 10), stream);
  std::printf("lowp_bench_nvfp4: %s, copy D2D (start) %.0f GB/s\n", g_run.device.c_str(), g_run.copy_gbps_start);
  for (const Shape& sh : o.shapes) bench_shape(o, A, sh.m, sh.k, l2_bytes, stream);
  g_run.copy_gbps_end = measure_copy_gbps(A.out, A.x, copy_bytes, std::max(o.reps, 10), stream);
  print_table();
  write_json(true);
  std::printf("KEY: copy %.0f GB/s", g_run.copy_gbps());
  for (const OpRow& r : g_run.rows)
    if (r.m == 16384 && r.k == 8192 && (r.op == "rn" || r.op == "rht" || r.op == "rht_sr" || r.op == "2d" || r.op == "fos" || r.op == "fos_mse" || r.op == "fos_2d" ||
                                        r.op == "pipe_est" || r.op == "dequant" || r.op == "dequant_f32")) {
      bool e = false;
      std::printf("; %s %.3f", r.op.c_str(), gbps_of(r.floor_bytes, headline_ms(r, &e)) / g_run.copy_gbps());
    }
  std::printf("\n");
  CUDA_CHECK(cudaStreamDestroy(stream));
  return g_run.warnings.empty() ? 0 : 3;
}
