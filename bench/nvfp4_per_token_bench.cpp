// lowp_bench_nvfp4_per_token: the NVFP4 per-token recipe (numerics §5) of the lowp C API, timed
// against the device-to-device copy bandwidth measured in the same run and against lowp's own
// NVFP4 per-tensor RHT + SR pipeline.
//
// Input: bf16 x[M][K] in device memory, random normal-ish (unit variance) with about one element
// in 65536 an outlier of magnitude 16..256. Every op makes both copies (rowwise + columnwise),
// compact scales unless named. Ops:
//   token          lowp_quantize, LOWP_SCALING_NVFP4_PER_TOKEN, RN, no RHT: K1 (amax pass) + K2
//   token_dequant  lowp_dequantize of token's rowwise copy to bf16 (compact scales)
//   k1             lowp_nvfp4_amax_per_token alone (row and column amaxes, no RHT)
//   k2             the token encode alone (cfg.amax_given = 1, the amaxes of k1)
//   k2_subnormal   k2 given amaxes 3e4 times k1's: every block's UE4M3 scale is subnormal, so the
//                  RN encode clamps every block (its slow path: each pass encoded twice)
//   token_row      token making the rowwise copy only (K1 folds row amaxes only)
//   token_col      token making the columnwise copy only
//   token_rht      token with cfg.rht = 1 (RHT16 on the columnwise copy, in K1 and K2)
//   token_sr       token with stochastic rounding (device rng_state)
//   token_rht_sr   token with RHT and SR
//   swz_fused      token with the scales written swizzled (scale_layout SWIZZLED)
//   swz_sep        token (compact) + lowp_nvfp4_swizzle_scales of both orientations (3 calls)
//   swizzle        the two lowp_nvfp4_swizzle_scales calls alone
//   tensor_rht_sr  lowp_quantize, LOWP_SCALING_NVFP4_PER_TENSOR, rht = 1, SR, amaxes computed
//                  (amax pass + exact post-RHT amax pass + cast: the composite, no estimation)
//   rs             token with LOWP_SCALING_NVFP4_ROW_SCALED (numerics §5b: the same K1, the
//                  per-tensor math per row): K1 + K2
//   rs_k2          rs's encode alone (cfg.amax_given = 1)
//   rs_4over6      rs with 4over6 (numerics §5c, MAE, E 448)
//   rs_rht_sr      rs with RHT (bf16) and SR
//   grouped8/64    lowp_nvfp4_grouped_quantize as token, N = 8 / 64 equal splits of M (in units
//                  of 16 rows), member_rows in device memory, workspace of
//                  lowp_grouped_workspace_size bytes; lowp_grouped_layout_error must be 0 after
//   grouped8_k1    lowp_nvfp4_grouped_amax of the N = 8 split (prep launch + K1), against k1
//   grouped8_k2    grouped8 with cfg.amax_given = 1 (prep launch + K2), against k2
//   grouped8_r128  grouped8 with cfg.group_row_multiple = 128 (when the split's rows are
//                  multiples of 128: launches sized for the real tile count, no idle blocks)
//   grouped8_host  grouped8 with member_rows in host memory (the launch knows the tile count)
//   grouped8_worst grouped8 with the split of the most tiles (M >= 1024, M % 1024 == 0): seven
//                  members of M/8 + 16 rows, one of M/8 - 112 (device rows: no surplus block)
//   grouped8_uneven grouped8 with a routing-like split (M % 1024 == 0): members of 1.5, 0.5,
//                  1.25, 0.75, 1, 1.375, 0.625 and 1 times M/8 rows
//
// Bytes that must move (the floor) with n = M*K, S = both orientations' padded scale arrays
// (roundup(R,128) * roundup(B,4) bytes each, the same in both layouts), Am = 4M + 4K:
//   token, token_*, swz_*  2 reads of x (2 * 2n) + codes (n/2 per copy) + S + Am
//   token_row, token_col   2 reads of x + n/2 codes + that copy's S and amaxes (4M or 4K)
//   k1                     1 read of x (2n) + Am
//   token_dequant          rowwise codes (n/2) + that copy's scales + 4M (read) + bf16 out (2n)
//   k2                     1 read of x (2n) + codes + S + Am (reads the amaxes)
//   swizzle                2S (read compact, write swizzled)
//   tensor_rht_sr          3 reads of x (6n) + codes + S + 8
//   rs, rs_4over6, rs_rht_sr  token's; rs_k2 k2's
//   groupedN, grouped8_r128, _host, _worst, _uneven
//                          token's, with S of the members' own padded arrays and Am = 4M + 4NK
//   grouped8_k1, _k2       k1's and k2's, with grouped8's S and Am
// frac = (floor / time) / copy bandwidth (read + write of a large D2D cudaMemcpyAsync, the better
// of a measurement at the start and one at the end of the run). x_token = time / token's time
// (tensor_rht_sr: per-tensor / per-token; groupedN: grouped / single tensor).
//
// Method (as lowp_bench_nvfp4): CUDA events, median of --reps samples, each sample a batch of
// calls rotating over buffer sets whose inputs together are >= 4x L2. Columns: eager and
// CUDA-graph replay; GB/s, frac and the ratios use the graph time (eager, marked *, when the
// capture failed). After each shape, set 0 is checked: the composite's bytes equal k1 then k2's,
// the amaxes are finite and positive; a failed check is a WARNING and exit status 3.
// A lowp or CUDA error prints lowp_get_last_error() / the CUDA error, what was measured so far,
// a KEY line naming the failure, and exits 1.
//
// Usage: lowp_bench_nvfp4_per_token [--quick] [--shape MxK] [--m M] [--k K] [--reps N]
//                                   [--batch N] [--ops A,B] [--json FILE]
// (--ops: only the named ops, e.g. for a profiler run)
#include <algorithm>
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

constexpr int64_t kHeadM = 16384, kHeadK = 8192;  // the headline shape (KEY line)
constexpr uint32_t kOutlierEvery = 65536;
constexpr int kMaxSets = 64;
// Grouped ops' member counts: N = 8 and 64 equal splits, and N = 8 split the worst way
// (grouped8_worst) and unevenly (grouped8_uneven).
constexpr int kGroups = 4;
constexpr int64_t kGroupN[kGroups] = {8, 64, 8, 8};
constexpr const char* kGroupName[kGroups] = {"grouped8", "grouped64", "grouped8_worst", "grouped8_uneven"};

// Offset of group g's member rows in Arenas::member_rows (the groups' rows back to back).
constexpr int64_t member_offset(int g) { return g == 0 ? 0 : member_offset(g - 1) + kGroupN[g - 1]; }

struct Run : RunInfo {
  std::vector<OpRow> rows;
};
Run g_run;

// Headline time of op at (m, k); `star` collects whether any value used comes from eager.
double ms(const char* op, int64_t m, int64_t k, bool* star = nullptr) {
  bool e = false;
  const double v = find_ms(g_run.rows, op, m, k, &e);
  if (star != nullptr && e) *star = true;
  return v;
}

double frac(const char* op, int64_t m, int64_t k, bool* star = nullptr) {
  for (const OpRow& r : g_run.rows)
    if (r.op == op && r.m == m && r.k == k) return gbps_of(r.floor_bytes, ms(op, m, k, star)) / g_run.copy_gbps();
  return NAN;
}

// The derived numbers of one shape (headline times).
struct Summary {
  int64_t m = 0, k = 0;
  double token = NAN, k1 = NAN, k2 = NAN, tensor = NAN, token_frac = NAN, k2_frac = NAN;
  double fused = NAN, sep = NAN, g8 = NAN, g64 = NAN;  // g8, g64: grouped / single
  double g8r = NAN;                                    // grouped8_r128 / single
  double g8h = NAN, g8w = NAN, g8u = NAN;              // grouped8_host, _worst, _uneven / single
  double rs = NAN, rs_frac = NAN;                      // row-scaled: rs / token, and its frac
  bool star = false;                                   // some value from an eager time
};

Summary summary_of(int64_t m, int64_t k) {
  Summary s;
  s.m = m;
  s.k = k;
  bool* st = &s.star;
  s.token = ms("token", m, k, st);
  s.k1 = ms("k1", m, k, st);
  s.k2 = ms("k2", m, k, st);
  s.tensor = ms("tensor_rht_sr", m, k, st);
  s.token_frac = frac("token", m, k, st);
  s.k2_frac = frac("k2", m, k, st);
  s.fused = ms("swz_fused", m, k, st);
  s.sep = ms("swz_sep", m, k, st);
  s.g8 = ms("grouped8", m, k, st) / s.token;
  s.g8r = ms("grouped8_r128", m, k, st) / s.token;
  s.g64 = ms("grouped64", m, k, st) / s.token;
  s.g8h = ms("grouped8_host", m, k, st) / s.token;
  s.g8w = ms("grouped8_worst", m, k, st) / s.token;
  s.g8u = ms("grouped8_uneven", m, k, st) / s.token;
  s.rs = ms("rs", m, k, st) / s.token;
  s.rs_frac = frac("rs", m, k, st);
  return s;
}

// The shape the KEY line reports: 16384x8192 when it ran, else the largest one that ran.
Shape key_shape() {
  Shape best{0, 0};
  for (const Shape& s : distinct_shapes(g_run.rows)) {
    if (s.m == kHeadM && s.k == kHeadK) return s;
    if (s.m * s.k > best.m * best.k) best = s;
  }
  return best;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// The KEY line's text (after "KEY: "); "graph (* some eager)" when a value is an eager time.
std::string key_text() {
  std::string t = fmt("copy %.0f GB/s", g_run.copy_gbps());
  const Shape sh = key_shape();
  if (sh.m == 0) return t + "; nothing measured";
  const Summary s = summary_of(sh.m, sh.k);
  t += "; " + std::to_string(sh.m) + "x" + std::to_string(sh.k) + (s.star ? " graph (* some eager)" : " graph");
  t += ": token frac " + fmt("%.3f", s.token_frac) + " (" + fmt("%.4f", s.token) + " ms)";
  t += ", tensor_rht_sr/token " + fmt("%.2f", s.tensor / s.token);
  t += ", rs frac " + fmt("%.3f", s.rs_frac) + " (rs/token " + fmt("%.3f", s.rs) + ")";
  t += ", grouped8/single " + fmt("%.2f", s.g8);
  t += ", swizzle fused " + fmt("%.4f", s.fused) + " ms vs separate " + fmt("%.4f", s.sep) + " ms";
  return t;
}

void write_json(bool complete, const std::string& key) {
  FILE* f = open_json_with_header(g_run, complete);
  if (f == nullptr) return;
  std::fprintf(f, "  \"outlier_every\": %u,\n  \"rows\": [", kOutlierEvery);
  for (size_t i = 0; i < g_run.rows.size(); ++i) {
    const OpRow& r = g_run.rows[i];
    std::fprintf(f, "%s\n    {%s, \"x_token\": %s}", i == 0 ? "" : ",", json_op_fields(r, g_run.copy_gbps()).c_str(),
                 jnum(ms(r.op.c_str(), r.m, r.k) / ms("token", r.m, r.k)).c_str());
  }
  std::fprintf(f, "\n  ],\n  \"shapes\": [");
  const std::vector<Shape> shapes = distinct_shapes(g_run.rows);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Summary s = summary_of(shapes[i].m, shapes[i].k);
    std::fprintf(f,
                 "%s\n    {\"m\": %lld, \"k\": %lld, \"token_ms\": %s, \"k1_ms\": %s, \"k2_ms\": %s, "
                 "\"tensor_rht_sr_ms\": %s, \"tensor_over_token\": %s, \"token_frac\": %s, \"k2_frac\": %s, "
                 "\"swz_fused_ms\": %s, \"swz_sep_ms\": %s, \"grouped8_over_single\": %s, "
                 "\"grouped64_over_single\": %s, \"grouped8_r128_over_single\": %s, \"rs_over_token\": %s, "
                 "\"rs_frac\": %s, \"some_eager\": %s}",
                 i == 0 ? "" : ",", static_cast<long long>(s.m), static_cast<long long>(s.k), jnum(s.token).c_str(),
                 jnum(s.k1).c_str(), jnum(s.k2).c_str(), jnum(s.tensor).c_str(), jnum(s.tensor / s.token).c_str(),
                 jnum(s.token_frac).c_str(), jnum(s.k2_frac).c_str(), jnum(s.fused).c_str(), jnum(s.sep).c_str(),
                 jnum(s.g8).c_str(), jnum(s.g64).c_str(), jnum(s.g8r).c_str(), jnum(s.rs).c_str(), jnum(s.rs_frac).c_str(),
                 s.star ? "true" : "false");
  }
  std::fprintf(f, "\n  ],\n  \"notes\": [");
  write_json_strings(f, g_run.notes);
  std::fprintf(f, "],\n  \"key\": \"%s\",\n  \"error\": \"%s\",\n", json_escape(key).c_str(),
               json_escape(g_fatal_msg).c_str());
  close_json_with_warnings(f, g_run);
}

// A time in a 9-wide column; "-" when absent.
std::string cell(double v) { return std::isnan(v) ? std::string("        -") : fmt("%9.4f", v); }

void print_table() {
  const double cbw = g_run.copy_gbps();
  std::printf("\n== lowp_bench_nvfp4_per_token (lowp %s) on %s: %d SMs, L2 %.1f MB ==\n", lowp_version(),
              g_run.device.c_str(), g_run.sms, g_run.l2_mb);
  std::printf("copy D2D read+write: start %.0f GB/s, end %.0f GB/s -> %.0f GB/s\n", g_run.copy_gbps_start,
              g_run.copy_gbps_end, cbw);
  std::printf("input bf16 normal-ish, 1 in %u an outlier (16..256); both copies; compact scales unless named\n",
              kOutlierEvery);
  std::printf("floor: token* 2 reads of x + codes + scales + 4(M+K); k1 1 read + 4(M+K); k2 1 read + codes + scales"
              " + 4(M+K);\n       tensor_rht_sr 3 reads + codes + scales; swizzle 2 x scales; groupedN as token,"
              " members' scales, 4(M+NK);\n       token_dequant rowwise codes + scales + 4M + bf16 out\n");
  std::printf("median of %d samples, ms per call; GB/s = floor/time (graph; * = eager); frac = GB/s / copy;"
              " x_token = time / token time\n",
              g_run.reps);
  std::printf("%-13s %6s %5s %9s %9s %7s %6s %7s\n", "op", "M", "K", "eager_ms", "graph_ms", "GB/s", "frac", "x_token");
  for (const OpRow& r : g_run.rows) {
    bool from_eager = false;
    const double t = headline_ms(r, &from_eager);
    const double gbps = gbps_of(r.floor_bytes, t);
    const std::string graph =
        r.graph_error.empty() ? fmt("%9.4f", r.graph.median_ms) : "failed[" + std::to_string(r.note) + "]";
    std::printf("%-13s %6lld %5lld %9.4f %9s %6.0f%s %6.3f %7.3f\n", r.op.c_str(), static_cast<long long>(r.m),
                static_cast<long long>(r.k), r.eager.median_ms, graph.c_str(), gbps, from_eager ? "*" : " ",
                gbps / cbw, t / ms("token", r.m, r.k));
  }
  std::printf("\nper shape (graph ms; * = some value from eager): tensor/token = tensor_rht_sr / token;"
              " frac of the floors;\nfused = swz_fused, sep = swz_sep; g8, g64 = grouped N / single token; g8r128 ="
              " grouped8_r128 / single token;\ng8h, g8w, g8u = grouped8_host, grouped8_worst, grouped8_uneven / single token;"
              " rs/tok = row-scaled rs / token\n");
  std::printf("%6s %5s %9s %9s %9s %9s %7s %6s %6s %9s %9s %5s %5s %6s %5s %5s %5s %6s\n", "M", "K", "token", "k1", "k2",
              "tensor", "ten/tok", "frac", "k2frac", "fused", "sep", "g8", "g64", "g8r128", "g8h", "g8w", "g8u", "rs/tok");
  for (const Shape& sh : distinct_shapes(g_run.rows)) {
    const Summary s = summary_of(sh.m, sh.k);
    std::printf("%6lld %5lld %s %s %s %s %7.2f %6.3f %6.3f %s %s %5.2f %5.2f %6.2f %5.2f %5.2f %5.2f %6.3f%s\n",
                static_cast<long long>(s.m), static_cast<long long>(s.k), cell(s.token).c_str(), cell(s.k1).c_str(),
                cell(s.k2).c_str(), cell(s.tensor).c_str(), s.tensor / s.token, s.token_frac, s.k2_frac,
                cell(s.fused).c_str(), cell(s.sep).c_str(), s.g8, s.g64, s.g8r, s.g8h, s.g8w, s.g8u, s.rs,
                s.star ? " *" : "");
  }
  print_notes_and_warnings(g_run);
  std::fflush(stdout);
}

// Before a fatal error or crash ends the run: what was measured, and a KEY line naming the failure.
void dump_partial() { dump_failure(!g_run.rows.empty(), print_table, write_json); }

struct Options : CommonOptions {
  std::vector<Shape> shapes;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: lowp_bench_nvfp4_per_token [--quick] [--shape MxK] [--m M] [--k K] [--reps N] [--batch N]\n"
               "                                  [--ops A,B] [--json FILE]\n"
               "  default sweep: M in {1024,...,32768} x K in {2048,4096,8192}; --quick: M in {16384,4096} x K in\n"
               "  {8192,4096}; --shape MxK (or --m and/or --k) restricts it. M and K must be multiples of 16.\n");
  std::exit(code);
}

Options parse(int argc, char** argv) {
  Options o;
  parse_common(argc, argv, usage, &o, [&](const std::string& a, auto value) {
    if (a != "--shape") return false;
    const std::string v = value();
    const size_t x = v.find('x');
    if (x == std::string::npos) {
      std::fprintf(stderr, "%s: --shape needs MxK, got '%s'\n", g_prog, v.c_str());
      usage(2);
    }
    o.m = parse_int("--shape (M)", v.substr(0, x).c_str(), usage);
    o.k = parse_int("--shape (K)", v.substr(x + 1).c_str(), usage);
    return true;
  });
  if (o.quick && o.m == 0 && o.k == 0)
    o.shapes = {{16384, 8192}, {16384, 4096}, {4096, 8192}, {4096, 4096}};
  else
    o.shapes = sweep_shapes(false, o.m, o.k);
  for (const Shape& s : o.shapes)
    if (s.m % 16 != 0 || s.k % 16 != 0) {
      std::fprintf(stderr, "%s: shape %lldx%lld: both copies need M %% 16 == 0 and K %% 16 == 0\n", g_prog,
                   static_cast<long long>(s.m), static_cast<long long>(s.k));
      usage(2);
    }
  return o;
}

// Equal split of M rows into N members in units of 16 rows (the first members get one unit more).
std::vector<int64_t> equal_split(int64_t M, int64_t N) {
  const int64_t units = M / 16;
  std::vector<int64_t> out(static_cast<size_t>(N));
  for (int64_t t = 0; t < N; ++t) out[static_cast<size_t>(t)] = 16 * (units / N + (t < units % N ? 1 : 0));
  return out;
}

// The split of M rows into 8 members with the most 128-row tiles: seven of M/8 + 16 rows (two
// tiles each when M/8 is a multiple of 128) and one of M/8 - 112; empty when M < 1024.
std::vector<int64_t> worst_split8(int64_t M) {
  if (M < 1024 || M % 1024 != 0) return {};
  std::vector<int64_t> out(7, M / 8 + 16);
  out.push_back(M / 8 - 112);
  return out;
}

// An uneven split of M rows into 8 members, as routing might give: 1.5, 0.5, 1.25, 0.75, 1,
// 1.375, 0.625 and 1 times M / 8 (multiples of 16 rows when M % 1024 == 0; empty otherwise).
std::vector<int64_t> uneven_split8(int64_t M) {
  if (M % 1024 != 0) return {};
  const int64_t parts[8] = {12, 4, 10, 6, 8, 11, 5, 8};  // in units of M / 64 rows: they sum to 64
  std::vector<int64_t> out;
  for (int64_t e : parts) out.push_back(e * (M / 64));
  return out;
}

// Scale bytes of a grouped output with these members (lowp.h's layout of lowp_nvfp4_grouped_quantize).
size_t grouped_scale_bytes(const std::vector<int64_t>& members, int64_t K) {
  const size_t C = round_up(static_cast<size_t>(K / 16), 4), Kp = round_up(static_cast<size_t>(K), 128);
  size_t s = 0;
  for (int64_t mt : members) {
    const size_t m = static_cast<size_t>(mt);
    s += round_up(m, 128) * C + Kp * round_up(m / 16, 4);
  }
  return s;
}

// Per-set strides and the number of sets of one shape.
struct Plan {
  int64_t m = 0, k = 0;
  size_t n = 0;
  size_t x_stride = 0;              // elements of x (codes: x_stride / 2 bytes)
  size_t rs_stride = 0, cs_stride = 0;  // scale bytes (rowwise, columnwise), >= single and grouped
  size_t ra_stride = 0, ca_stride = 0;  // amax floats (columnwise: room for the grouped [64][K])
  int nbuf = 0;
  lowp_quantized_sizes single{};        // per-token sizes of one tensor
};

Plan plan_of(const Shape& s, size_t l2_bytes) {
  Plan p;
  p.m = s.m;
  p.k = s.k;
  p.n = static_cast<size_t>(s.m) * static_cast<size_t>(s.k);
  p.x_stride = round_up(p.n, 1024);
  LOWP_CHECK(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, s.m, s.k, &p.single));
  lowp_quantized_sizes g{};
  LOWP_CHECK(lowp_nvfp4_grouped_sizes(kGroupN[1], s.m, s.k, &g));
  p.rs_stride = round_up(std::max(p.single.scale_inv_bytes[0], g.scale_inv_bytes[0]), 1024);
  p.cs_stride = round_up(std::max(p.single.scale_inv_bytes[1], g.scale_inv_bytes[1]), 1024);
  p.ra_stride = round_up(static_cast<size_t>(s.m), 256);
  p.ca_stride = round_up(static_cast<size_t>(kGroupN[1] * s.k), 256);
  p.nbuf = buffer_sets(l2_bytes, 2 * p.n, kMaxSets);
  return p;
}

// Device arenas shared by every shape (sized for the largest plan).
struct Arenas {
  size_t x_elems = 0, code_bytes = 0, rs_bytes = 0, cs_bytes = 0, ra_floats = 0, ca_floats = 0;
  uint16_t* x = nullptr;
  uint8_t *row = nullptr, *col = nullptr;      // codes
  uint8_t *row_s = nullptr, *col_s = nullptr;  // scales written by the quantize calls
  uint8_t *row_z = nullptr, *col_z = nullptr;  // standalone swizzle outputs
  float *row_a = nullptr, *col_a = nullptr;    // per-token amaxes
  float *row_big = nullptr, *col_big = nullptr;  // the same times kBigAmax (k2_subnormal)
  float* tensor_a = nullptr;                   // per-tensor amaxes, 2 per set
  uint64_t* rng = nullptr;
  uint16_t* out = nullptr;                     // token_dequant's output, one for every set
  int64_t* member_rows = nullptr;              // [8] then [64]
  void* ws = nullptr;
  size_t ws_bytes = 0;
};

struct Set {
  lowp_tensor x;
  uint8_t *row, *col, *row_s, *col_s, *row_z, *col_z;
  float *row_a, *col_a, *tensor_a;
  float *row_big, *col_big;
};

// k2_subnormal's amax factor: the largest block of a row then has v = 448 / 3e4 < 2^-6.
constexpr float kBigAmax = 3e4f;

// dst = src * kBigAmax, n floats of device memory.
void scaled_amaxes(const float* src, float* dst, int64_t n) {
  std::vector<float> h(static_cast<size_t>(n));
  CUDA_CHECK(cudaMemcpy(h.data(), src, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (float& v : h) v *= kBigAmax;
  CUDA_CHECK(cudaMemcpy(dst, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
}

lowp_quantized_tensor q_of(const Set& t, const Plan& p, lowp_scaling scaling, lowp_scale_layout layout) {
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E2M1;
  q.scaling = scaling;
  q.scale_layout = layout;
  q.rows = p.m;
  q.cols = p.k;
  const bool tensor = scaling == LOWP_SCALING_NVFP4_PER_TENSOR;
  q.rowwise = {t.row, t.row_s, tensor ? t.tensor_a : t.row_a};
  q.columnwise = {t.col, t.col_s, tensor ? t.tensor_a + 1 : t.col_a};
  return q;
}

// Set 0's composite bytes (codes, compact scales, amaxes of both copies) as one host buffer.
std::vector<uint8_t> host_outputs(const Set& t, const Plan& p) {
  const size_t sizes[6] = {p.n / 2, p.n / 2, p.single.scale_inv_bytes[0], p.single.scale_inv_bytes[1],
                           p.single.amax_bytes[0], p.single.amax_bytes[1]};
  const void* src[6] = {t.row, t.col, t.row_s, t.col_s, t.row_a, t.col_a};
  std::vector<uint8_t> h;
  for (int i = 0; i < 6; ++i) {
    const size_t at = h.size();
    h.resize(at + sizes[i]);
    CUDA_CHECK(cudaMemcpy(h.data() + at, src[i], sizes[i], cudaMemcpyDeviceToHost));
  }
  return h;
}

void bench_shape(const Options& o, const Arenas& A, const Plan& p, cudaStream_t stream) {
  const int64_t M = p.m, K = p.k;
  const int nbuf = p.nbuf;
  const int calls = calls_per_sample(o.batch, nbuf);
  const std::string shape = std::to_string(M) + "x" + std::to_string(K);
  std::vector<Set> sets(static_cast<size_t>(nbuf));
  for (int s = 0; s < nbuf; ++s) {
    const size_t i = static_cast<size_t>(s);
    Set& t = sets[i];
    t.x = {A.x + i * p.x_stride, LOWP_DTYPE_BFLOAT16, M, K};
    t.row = A.row + i * p.x_stride / 2;
    t.col = A.col + i * p.x_stride / 2;
    t.row_s = A.row_s + i * p.rs_stride;
    t.col_s = A.col_s + i * p.cs_stride;
    t.row_z = A.row_z + i * p.rs_stride;
    t.col_z = A.col_z + i * p.cs_stride;
    t.row_a = A.row_a + i * p.ra_stride;
    t.col_a = A.col_a + i * p.ca_stride;
    t.row_big = A.row_big + i * p.ra_stride;
    t.col_big = A.col_big + i * p.ca_stride;
    t.tensor_a = A.tensor_a + 2 * i;
  }
  // Grouped member rows, uploaded once per shape.
  std::vector<int64_t> members[kGroups];
  for (int g = 0; g < 2; ++g) members[g] = equal_split(M, kGroupN[g]);
  members[2] = worst_split8(M);
  members[3] = uneven_split8(M);
  int64_t* d_members[kGroups];
  for (int g = 0; g < kGroups; ++g) d_members[g] = A.member_rows + member_offset(g);
  for (int g = 0; g < kGroups; ++g)
    if (!members[g].empty())
      CUDA_CHECK(cudaMemcpy(d_members[g], members[g].data(), members[g].size() * sizeof(int64_t), cudaMemcpyHostToDevice));

  void* st = stream;
  auto token_cfg = [&](bool rht, bool sr, bool amax_given) {
    lowp_quant_config c;
    lowp_quant_config_default(&c);
    c.rht = rht;
    c.stochastic_rounding = sr;
    c.rng_state = sr ? A.rng : nullptr;
    c.amax_given = amax_given;
    return c;
  };
  // rows / cols false: that copy is not made.
  auto token = [&](bool rht, bool sr, bool amax_given, lowp_scale_layout layout, bool rows = true, bool cols = true) -> Call {
    return [&, rht, sr, amax_given, layout, rows, cols](int s) {
      const Set& t = sets[static_cast<size_t>(s)];
      lowp_quantized_tensor q = q_of(t, p, LOWP_SCALING_NVFP4_PER_TOKEN, layout);
      if (!rows) q.rowwise = lowp_quantized_part{};
      if (!cols) q.columnwise = lowp_quantized_part{};
      const lowp_quant_config c = token_cfg(rht, sr, amax_given);
      return lowp_quantize(&t.x, &q, &c, st);
    };
  };
  // Row-scaled NVFP4, both copies, compact scales.
  auto row_scaled = [&](bool rht, bool sr, bool amax_given, bool four_over_six) -> Call {
    return [&, rht, sr, amax_given, four_over_six](int s) {
      const Set& t = sets[static_cast<size_t>(s)];
      lowp_quantized_tensor q = q_of(t, p, LOWP_SCALING_NVFP4_ROW_SCALED, LOWP_SCALE_LAYOUT_COMPACT);
      lowp_quant_config c = token_cfg(rht, sr, amax_given);
      c.four_over_six = four_over_six;
      return lowp_quantize(&t.x, &q, &c, st);
    };
  };
  auto k1 = [&](int s) {
    const Set& t = sets[static_cast<size_t>(s)];
    const lowp_quant_config c = token_cfg(false, false, false);
    return lowp_nvfp4_amax_per_token(&t.x, t.row_a, t.col_a, &c, st);
  };
  auto swizzle = [&](int s) {
    const Set& t = sets[static_cast<size_t>(s)];
    lowp_status r = lowp_nvfp4_swizzle_scales(t.row_s, t.row_z, M, K / 16, st);
    if (r == LOWP_SUCCESS) r = lowp_nvfp4_swizzle_scales(t.col_s, t.col_z, K, M / 16, st);
    return r;
  };
  const Call token_rn = token(false, false, false, LOWP_SCALE_LAYOUT_COMPACT);
  auto swz_sep = [&](int s) {
    lowp_status r = token_rn(s);
    if (r == LOWP_SUCCESS) r = swizzle(s);
    return r;
  };
  auto tensor_rht_sr = [&](int s) {
    const Set& t = sets[static_cast<size_t>(s)];
    lowp_quantized_tensor q = q_of(t, p, LOWP_SCALING_NVFP4_PER_TENSOR, LOWP_SCALE_LAYOUT_COMPACT);
    lowp_quant_config c;
    lowp_quant_config_default(&c);
    c.rht = 1;
    c.stochastic_rounding = 1;
    c.rng_state = A.rng;
    c.amax_given = 0;
    c.amax_estimation = 0;
    return lowp_quantize(&t.x, &q, &c, st);
  };
  auto grouped = [&](int g, bool amax_given, int row_multiple, bool host_rows = false) -> Call {
    return [&, g, amax_given, row_multiple, host_rows](int s) {
      const Set& t = sets[static_cast<size_t>(s)];
      lowp_quantized_tensor q = q_of(t, p, LOWP_SCALING_NVFP4_PER_TOKEN, LOWP_SCALE_LAYOUT_COMPACT);
      lowp_quant_config c = token_cfg(false, false, amax_given);
      c.group_row_multiple = row_multiple;
      const int64_t* rows = host_rows ? members[g].data() : d_members[g];
      return lowp_nvfp4_grouped_quantize(&t.x, kGroupN[g], rows, &q, &c, A.ws, A.ws_bytes, st);
    };
  };
  auto grouped_k1 = [&](int s) {
    const Set& t = sets[static_cast<size_t>(s)];
    const lowp_quant_config c = token_cfg(false, false, false);
    return lowp_nvfp4_grouped_amax(&t.x, kGroupN[0], d_members[0], t.row_a, t.col_a, &c, A.ws, A.ws_bytes, st);
  };

  // Untimed: k1 on every set, so k2 (amax given) reads real amaxes; the first per-token call, so
  // an error (e.g. LOWP_ERROR_UNSUPPORTED) ends the run here.
  std::snprintf(g_phase, sizeof g_phase, "k1 (untimed amaxes for k2) %s", shape.c_str());
  for (int s = 0; s < nbuf; ++s) LOWP_CHECK(k1(s));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (const Set& t : sets) {
    scaled_amaxes(t.row_a, t.row_big, M);
    scaled_amaxes(t.col_a, t.col_big, K);
  }
  auto k2_subnormal = [&](int s) {
    const Set& t = sets[static_cast<size_t>(s)];
    lowp_quantized_tensor q = q_of(t, p, LOWP_SCALING_NVFP4_PER_TOKEN, LOWP_SCALE_LAYOUT_COMPACT);
    q.rowwise.amax = t.row_big;
    q.columnwise.amax = t.col_big;
    const lowp_quant_config c = token_cfg(false, false, true);
    return lowp_quantize(&t.x, &q, &c, st);
  };

  // Real codes, compact scales and amaxes in every set before token_dequant reads them.
  for (int s = 0; s < nbuf; ++s) LOWP_CHECK(token_rn(s));
  auto token_dequant = [&](int s) {
    const Set& t = sets[static_cast<size_t>(s)];
    const lowp_quantized_tensor q = q_of(t, p, LOWP_SCALING_NVFP4_PER_TOKEN, LOWP_SCALE_LAYOUT_COMPACT);
    lowp_tensor out{A.out, LOWP_DTYPE_BFLOAT16, M, K};
    return lowp_dequantize(&q, LOWP_ROWWISE, &out, st);
  };

  const double n = static_cast<double>(p.n);
  const double S = static_cast<double>(p.single.scale_inv_bytes[0] + p.single.scale_inv_bytes[1]);
  const double Am = 4.0 * static_cast<double>(M + K);
  const double token_floor = 4 * n + n + S + Am;
  struct Op {
    const char* name;
    double bytes;
    Call call;
    int group;  // index into kGroupN for the grouped ops, else -1
  };
  std::vector<Op> ops = {
      {"token", token_floor, token_rn, -1},
      {"token_dequant", n / 2 + static_cast<double>(p.single.scale_inv_bytes[0]) + 4.0 * M + 2 * n, token_dequant, -1},
      {"k1", 2 * n + Am, k1, -1},
      {"k2", 2 * n + n + S + Am, token(false, false, true, LOWP_SCALE_LAYOUT_COMPACT), -1},
      {"k2_subnormal", 2 * n + n + S + Am, k2_subnormal, -1},
      {"token_row", 4 * n + n / 2 + static_cast<double>(p.single.scale_inv_bytes[0]) + 4.0 * M, token(false, false, false, LOWP_SCALE_LAYOUT_COMPACT, true, false), -1},
      {"token_col", 4 * n + n / 2 + static_cast<double>(p.single.scale_inv_bytes[1]) + 4.0 * K, token(false, false, false, LOWP_SCALE_LAYOUT_COMPACT, false, true), -1},
      {"token_rht", token_floor, token(true, false, false, LOWP_SCALE_LAYOUT_COMPACT), -1},
      {"token_sr", token_floor, token(false, true, false, LOWP_SCALE_LAYOUT_COMPACT), -1},
      {"token_rht_sr", token_floor, token(true, true, false, LOWP_SCALE_LAYOUT_COMPACT), -1},
      {"swz_fused", token_floor, token(false, false, false, LOWP_SCALE_LAYOUT_SWIZZLED), -1},
      {"swz_sep", token_floor, swz_sep, -1},
      {"swizzle", 2 * S, swizzle, -1},
      {"tensor_rht_sr", 6 * n + n + S + 8, tensor_rht_sr, -1},
      {"rs", token_floor, row_scaled(false, false, false, false), -1},
      {"rs_k2", 2 * n + n + S + Am, row_scaled(false, false, true, false), -1},
      {"rs_4over6", token_floor, row_scaled(false, false, false, true), -1},
      {"rs_rht_sr", token_floor, row_scaled(true, true, false, false), -1},
  };
  for (int g = 0; g < kGroups; ++g) {
    if (members[g].empty()) continue;
    const double Sg = static_cast<double>(grouped_scale_bytes(members[g], K));
    const double Ag = 4.0 * static_cast<double>(M + kGroupN[g] * K);
    ops.push_back({kGroupName[g], 4 * n + n + Sg + Ag, grouped(g, false, 0), g});
    if (g == 0) {  // the two halves of grouped8, against k1 and k2; grouped8 told its rows are 128-multiples
      ops.push_back({"grouped8_k1", 2 * n + Ag, grouped_k1, g});
      ops.push_back({"grouped8_k2", 2 * n + n + Sg + Ag, grouped(g, true, 0), g});
      if (std::all_of(members[g].begin(), members[g].end(), [](int64_t m) { return m % 128 == 0; }))
        ops.push_back({"grouped8_r128", 4 * n + n + Sg + Ag, grouped(g, false, 128), g});
      ops.push_back({"grouped8_host", 4 * n + n + Sg + Ag, grouped(g, false, 0, true), g});
    }
  }
  for (const Op& op : ops) {
    if (!o.runs(op.name)) continue;
    OpRow r;
    r.op = op.name;
    r.m = M;
    r.k = K;
    r.floor_bytes = op.bytes;
    std::snprintf(g_phase, sizeof g_phase, "%s %s", op.name, shape.c_str());
    time_both(op.call, nbuf, calls, o.reps, stream, &g_run, &r);
    g_run.rows.push_back(r);
    if (op.group >= 0) {
      int64_t bad = 0;
      LOWP_CHECK(lowp_grouped_layout_error(A.ws, &bad, st));
      if (bad != 0)
        g_run.warnings.push_back(std::string(op.name) + " at " + shape + ": lowp_grouped_layout_error reports member " +
                                 std::to_string(bad - 1));
    }
    bool e = false;
    std::printf("  %-13s %6lld x %-5lld %.4f ms%s\n", op.name, (long long)M, (long long)K, headline_ms(r, &e),
                e ? " (eager)" : "");
    std::fflush(stdout);
  }

  // Checks on set 0: the composite equals k1 then k2 byte for byte; amaxes finite and positive.
  std::snprintf(g_phase, sizeof g_phase, "check %s", shape.c_str());
  LOWP_CHECK(token_rn(0));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<uint8_t> composite = host_outputs(sets[0], p);
  {  // clobber every output of set 0 first, so that k1 then k2 must write all of it
    const Set& t = sets[0];
    void* dst[6] = {t.row, t.col, t.row_s, t.col_s, t.row_a, t.col_a};
    const size_t sizes[6] = {p.n / 2, p.n / 2, p.single.scale_inv_bytes[0], p.single.scale_inv_bytes[1],
                             p.single.amax_bytes[0], p.single.amax_bytes[1]};
    for (int i = 0; i < 6; ++i) CUDA_CHECK(cudaMemsetAsync(dst[i], 0xAB, sizes[i], stream));
  }
  LOWP_CHECK(k1(0));
  const Call k2 = token(false, false, true, LOWP_SCALE_LAYOUT_COMPACT);
  LOWP_CHECK(k2(0));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<uint8_t> split = host_outputs(sets[0], p);
  if (composite != split) g_run.warnings.push_back("token at " + shape + ": composite bytes differ from k1 then k2");
  std::vector<float> am(static_cast<size_t>(M + K));
  std::memcpy(am.data(), composite.data() + composite.size() - am.size() * sizeof(float), am.size() * sizeof(float));
  const bool ok = std::all_of(am.begin(), am.end(), [](float v) { return std::isfinite(v) && v > 0.0f; });
  if (!ok) g_run.warnings.push_back("token at " + shape + ": an amax of set 0 is not finite and positive");
}

}  // namespace

int main(int argc, char** argv) {
  g_prog = "lowp_bench_nvfp4_per_token";
  const Options o = parse(argc, argv);
  const size_t l2_bytes = start_run(dump_partial, &g_run, o.reps, o.batch, o.json);

  std::vector<Plan> plans;
  Arenas A;
  A.x_elems = size_t{1} << 30;  // also the 2 GiB source of the copy-bandwidth measurement
  for (const Shape& s : o.shapes) {
    plans.push_back(plan_of(s, l2_bytes));
    const Plan& p = plans.back();
    const size_t sets = static_cast<size_t>(p.nbuf);
    A.x_elems = std::max(A.x_elems, sets * p.x_stride);
    A.rs_bytes = std::max(A.rs_bytes, sets * p.rs_stride);
    A.cs_bytes = std::max(A.cs_bytes, sets * p.cs_stride);
    A.ra_floats = std::max(A.ra_floats, sets * p.ra_stride);
    A.ca_floats = std::max(A.ca_floats, sets * p.ca_stride);
  }
  A.code_bytes = A.x_elems / 2;
  LOWP_CHECK(lowp_grouped_workspace_size(kGroupN[1], &A.ws_bytes));
  A.x = static_cast<uint16_t*>(device_alloc(A.x_elems * 2, "x arena"));
  A.row = static_cast<uint8_t*>(device_alloc(A.code_bytes, "rowwise codes"));
  A.col = static_cast<uint8_t*>(device_alloc(A.code_bytes, "columnwise codes"));
  A.row_s = static_cast<uint8_t*>(device_alloc(A.rs_bytes, "rowwise scales"));
  A.col_s = static_cast<uint8_t*>(device_alloc(A.cs_bytes, "columnwise scales"));
  A.row_z = static_cast<uint8_t*>(device_alloc(A.rs_bytes, "rowwise swizzled scales"));
  A.col_z = static_cast<uint8_t*>(device_alloc(A.cs_bytes, "columnwise swizzled scales"));
  A.row_a = static_cast<float*>(device_alloc(A.ra_floats * sizeof(float), "rowwise amaxes"));
  A.col_a = static_cast<float*>(device_alloc(A.ca_floats * sizeof(float), "columnwise amaxes"));
  A.row_big = static_cast<float*>(device_alloc(A.ra_floats * sizeof(float), "rowwise amaxes x kBigAmax"));
  A.col_big = static_cast<float*>(device_alloc(A.ca_floats * sizeof(float), "columnwise amaxes x kBigAmax"));
  A.tensor_a = static_cast<float*>(device_alloc(2 * kMaxSets * sizeof(float), "per-tensor amaxes"));
  A.rng = static_cast<uint64_t*>(device_alloc(16, "rng state"));
  const int64_t member_slots = member_offset(kGroups);
  A.member_rows = static_cast<int64_t*>(device_alloc(static_cast<size_t>(member_slots) * sizeof(int64_t), "member rows"));
  A.ws = device_alloc(std::max<size_t>(A.ws_bytes, 8), "grouped workspace");
  size_t max_n = 0;
  for (const Plan& p : plans) max_n = std::max(max_n, p.n);
  A.out = static_cast<uint16_t*>(device_alloc(max_n * 2, "dequantize output"));
  const uint64_t rng[2] = {1234, 0};
  CUDA_CHECK(cudaMemcpy(A.rng, rng, 16, cudaMemcpyHostToDevice));
  fill_random(A.x, A.x_elems, kOutlierEvery);

  const size_t copy_bytes = (size_t{1} << 30) * 2;
  void* copy_dst = device_alloc(copy_bytes, "copy destination");
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  g_run.copy_buffer_gb = static_cast<double>(copy_bytes) / 1e9;
  std::snprintf(g_phase, sizeof g_phase, "copy bandwidth (start)");
  g_run.copy_gbps_start = measure_copy_gbps(copy_dst, A.x, copy_bytes, std::max(o.reps, 10), stream);
  std::printf("lowp_bench_nvfp4_per_token: %s, copy D2D (start) %.0f GB/s\n", g_run.device.c_str(),
              g_run.copy_gbps_start);
  for (const Plan& p : plans) bench_shape(o, A, p, stream);
  std::snprintf(g_phase, sizeof g_phase, "copy bandwidth (end)");
  g_run.copy_gbps_end = measure_copy_gbps(copy_dst, A.x, copy_bytes, std::max(o.reps, 10), stream);
  print_table();
  const std::string key = key_text();
  write_json(true, key);
  std::printf("KEY: %s\n", key.c_str());
  CUDA_CHECK(cudaStreamDestroy(stream));
  return g_run.warnings.empty() ? 0 : 3;
}
