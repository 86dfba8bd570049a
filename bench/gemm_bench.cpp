// lowp_bench_gemm: lowp_gemm (FP8 on cuBLASLt, NVFP4 as exact emulation) against cuBLAS bf16
// timed in the same run, for the three products of a linear layer, and the quantize + GEMM
// pipelines of a training step.
//
// Shapes M x N x K: 8192^3, 4096^3, 16384 x 4096 x 4096, 16384 x 4096 x 14336,
// 16384 x 14336 x 4096 (--quick: the first two). Every GEMM row is D (M x N, bf16) = A . B^T over K:
//   fprop  A = x (M x K) rowwise,         B = W (N x K) rowwise
//   dgrad  A = dy (M x K) rowwise,        B = W (K x N) columnwise
//   wgrad  A = dy (K x M) columnwise,     B = x (K x N) columnwise
// Operands come from random bf16 (normal-ish, never zero) quantized by lowp_quantize on the GPU:
//   bf16                cublasLtMatmul on the unquantized tensors (bf16 in and out, fp32
//                       accumulate; fprop TN, dgrad NN, wgrad NT as a bf16 framework calls it)
//   fp8_tensor          FP8 current scaling: x, W E4M3, dy E5M2 (fprop E4M3 x E4M3; dgrad and
//                       wgrad the E5M2 x E4M3 hybrid)
//   fp8_token           FP8 per-token (per-row scales; per-column for the columnwise copies), E4M3
//   nvfp4_tensor        NVFP4 per-tensor with the role defaults (x input: RHT on the columnwise
//                       copy; W weight: 16x16 blocks; dy gradient: RHT + SR), swizzled scales,
//                       the workspace lowp_gemm_workspace_size asks for (the default path)
//   nvfp4_tensor_fused  the same operands with no workspace: the fused kernel alone
//   nvfp4_token         NVFP4 per-token (x: RHT on the columnwise copy; dy: RHT + SR; W: plain),
//                       swizzled scales, with workspace
//   nvfp4_token_fused   the same operands with no workspace
// Pipelines, a linear layer of tokens M, out N, in K (x: M x K, W: N x K, dy: M x N; W quantized
// once beforehand, as per optimizer step):
//   fwd  quantize x (both copies) + fprop (y = x W^T)
//   bwd  quantize dy once (both copies) + dgrad (dx = dy W) + wgrad (dW = dy^T x, x's columnwise
//        copy from the forward)
// with per recipe: bf16 the GEMMs alone; fp8_tensor current scaling (x E4M3, dy E5M2);
// fp8_token per-token E4M3; nvfp4_tensor the RHT + SR recipe (exact amax passes, both copies) for
// x and dy; nvfp4_token K1 + K2 with the swizzle fused (round to nearest, no RHT); NVFP4 GEMMs on
// the default path.
//
// TFLOP/s = 2 M N K per GEMM / time; x_bf16 = TFLOP/s over cuBLAS bf16's for the same shape and
// product (pipelines: over the bf16 GEMMs of the same step). rel_l2: ||D - D_bf16|| / ||D_bf16|| on
// 16 sampled rows of set 0, D_bf16 the cuBLAS product of the unquantized operands: the
// quantization error, and a check that each path computes the product it should (a WARNING and
// exit status 3 above 0.5; the two NVFP4 paths must also agree to 0.02).
//
// Method: CUDA events, median of --reps samples after a warm-up, each sample --batch calls (at
// least one per buffer set) rotating over buffer sets of operands: enough for 4x L2 together, at
// most 4, one when a set alone exceeds 4x L2 (so consecutive calls read different operands).
// Columns: eager and CUDA-graph replay; TFLOP/s and x_bf16 use the graph time (eager, marked *,
// when the capture failed). A product's graph samples are interleaved: sample r of cuBLAS bf16
// and of every lowp op replay back to back, in an order that rotates from sample to sample, so
// each ratio compares times taken under the same clocks (the pipelines are timed one op after
// another). A problem lowp cannot
// run (LOWP_ERROR_UNSUPPORTED) is listed with its message; any other error ends the run with what
// was measured so far and a KEY line naming the failure.
//
// Usage: lowp_bench_gemm [--quick] [--shape MxNxK] [--reps N] [--batch N] [--ops A,B] [--json FILE]
// (--ops: only these ops, e.g. nvfp4_tensor,nvfp4_tensor_fused; bf16 is always timed when any
// other op runs, as the rows' reference)
#include <cublasLt.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "lowp/gemm.h"
#include "lowp/lowp.h"

namespace {

using namespace lowp_bench;

struct Dims {
  int64_t m, n, k;
};
const Dims kShapes[] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {16384, 4096, 4096}, {16384, 4096, 14336},
                        {16384, 14336, 4096}};
constexpr int kQuickShapes = 2;
constexpr int kMaxSets = 4;
constexpr int kSampleRows = 16;
constexpr double kMaxRelL2 = 0.5, kMaxPathRelL2 = 0.02;
constexpr size_t kArenaElems = size_t{1} << 29;  // random bf16 every tensor is a view of (1 GiB)
constexpr size_t kCublasWorkspace = size_t{32} << 20;

std::string dims_text(const Dims& d) {
  return std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k);
}

// ---------------------------------------------------------------------------------------------
// Products, roles, recipes.

enum class Product { kFprop, kDgrad, kWgrad };
const char* product_name(Product p) { return p == Product::kFprop ? "fprop" : p == Product::kDgrad ? "dgrad" : "wgrad"; }

enum class Role { kX, kW, kDy };

// The tensors behind a product at M x N x K: A (a_rows x a_cols) read through a_copy, B likewise.
struct Operands {
  int64_t a_rows, a_cols, b_rows, b_cols;
  lowp_orientation a_copy, b_copy;
  Role a_role, b_role;
};

Operands operands_of(Product p, const Dims& d) {
  switch (p) {
    case Product::kFprop: return {d.m, d.k, d.n, d.k, LOWP_ROWWISE, LOWP_ROWWISE, Role::kX, Role::kW};
    case Product::kDgrad: return {d.m, d.k, d.k, d.n, LOWP_ROWWISE, LOWP_COLUMNWISE, Role::kDy, Role::kW};
    default: return {d.k, d.m, d.k, d.n, LOWP_COLUMNWISE, LOWP_COLUMNWISE, Role::kDy, Role::kX};
  }
}

enum class Family { kFp8Tensor, kFp8Token, kNvfp4Tensor, kNvfp4Token };
struct Recipe {
  const char* name;
  Family family;
  bool nvfp4() const { return family == Family::kNvfp4Tensor || family == Family::kNvfp4Token; }
};
const Recipe kRecipes[] = {{"fp8_tensor", Family::kFp8Tensor},
                           {"fp8_token", Family::kFp8Token},
                           {"nvfp4_tensor", Family::kNvfp4Tensor},
                           {"nvfp4_token", Family::kNvfp4Token}};

// How one tensor is quantized.
struct Quant {
  lowp_dtype dtype;
  lowp_scaling scaling;
  lowp_scale_layout layout;
  lowp_quant_config cfg;
};

// GEMM rows: the shipped role defaults. pipeline: the recipes of the pipelines (header comment).
Quant quant_of(Family f, Role r, bool pipeline, const uint64_t* rng_state) {
  Quant q{LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, LOWP_SCALE_LAYOUT_COMPACT, {}};
  lowp_quant_config_default(&q.cfg);
  switch (f) {
    case Family::kFp8Tensor:
      q.dtype = r == Role::kDy ? LOWP_DTYPE_E5M2 : LOWP_DTYPE_E4M3;
      break;
    case Family::kFp8Token:
      q.scaling = LOWP_SCALING_PER_TOKEN;
      break;
    case Family::kNvfp4Tensor:
      q.dtype = LOWP_DTYPE_E2M1;
      q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR;
      q.layout = LOWP_SCALE_LAYOUT_SWIZZLED;
      lowp_quant_config_nvfp4(r == Role::kX ? LOWP_ROLE_INPUT : r == Role::kW ? LOWP_ROLE_WEIGHT : LOWP_ROLE_GRADIENT,
                              &q.cfg);
      if (pipeline && r != Role::kW) q.cfg.rht = q.cfg.stochastic_rounding = 1;
      break;
    case Family::kNvfp4Token:
      q.dtype = LOWP_DTYPE_E2M1;
      q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
      q.layout = LOWP_SCALE_LAYOUT_SWIZZLED;
      if (!pipeline) {
        q.cfg.rht = r != Role::kW;
        q.cfg.stochastic_rounding = r == Role::kDy;
      }
      break;
  }
  if (q.cfg.stochastic_rounding) q.cfg.rng_state = rng_state;
  return q;
}

// One tensor quantized into both copies, in device memory it owns.
class QTensor {
 public:
  QTensor(const Quant& qt, int64_t rows, int64_t cols) : cfg_(qt.cfg) {
    lowp_quantized_sizes s{};
    LOWP_CHECK(lowp_quantized_sizes_query(qt.dtype, qt.scaling, rows, cols, &s));
    q_.dtype = qt.dtype;
    q_.scaling = qt.scaling;
    q_.scale_layout = qt.layout;
    q_.rows = rows;
    q_.cols = cols;
    lowp_quantized_part* parts[2] = {&q_.rowwise, &q_.columnwise};
    for (int o = 0; o < 2; ++o) {
      *parts[o] = {alloc(s.data_bytes[o]), alloc(s.scale_inv_bytes[o]), static_cast<float*>(alloc(s.amax_bytes[o]))};
      copy_bytes_[o] = s.data_bytes[o] + s.scale_inv_bytes[o];
    }
    q_.scale = static_cast<float*>(alloc(s.tensor_scale_bytes));
    q_.scale_inv = static_cast<float*>(alloc(s.tensor_scale_bytes));
    q_.amax = static_cast<float*>(alloc(s.tensor_scale_bytes));
  }
  ~QTensor() {
    for (void* p : owned_) cudaFree(p);
  }
  QTensor(const QTensor&) = delete;
  QTensor& operator=(const QTensor&) = delete;

  lowp_status quantize(const lowp_tensor& x, cudaStream_t st) { return lowp_quantize(&x, &q_, &cfg_, st); }
  const lowp_quantized_tensor* q() const { return &q_; }
  bool rht() const { return cfg_.rht != 0; }
  size_t copy_bytes(lowp_orientation o) const { return copy_bytes_[o == LOWP_ROWWISE ? 0 : 1]; }

 private:
  void* alloc(size_t bytes) {
    if (bytes == 0) return nullptr;
    owned_.push_back(device_alloc(bytes, "quantized tensor"));
    return owned_.back();
  }
  lowp_quant_config cfg_;
  lowp_quantized_tensor q_ = LOWP_QUANTIZED_TENSOR_INIT;
  size_t copy_bytes_[2] = {0, 0};
  std::vector<void*> owned_;
};
using QTensors = std::vector<std::unique_ptr<QTensor>>;

// ---------------------------------------------------------------------------------------------
// cuBLAS bf16: D (row-major M x N) = the product's bf16 tensors, as cuBLASLt's column-major
// D^T (N x M) = op(P) . op(Q) with P our B tensor and Q our A tensor.

void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fatal("%s: cuBLASLt status %s", what, cublasLtGetStatusName(s));
}

class Bf16Gemm {
 public:
  Bf16Gemm(cublasLtHandle_t h, Product p, const Dims& d) : h_(h) {
    const int64_t m = d.m, n = d.n, k = d.k;
    // (rows, cols, ld) of P and Q as stored (column-major), and whether cuBLAS transposes them.
    struct Stored {
      int64_t rows, cols;
      bool t;
    } P{}, Q{};
    switch (p) {
      case Product::kFprop: P = {k, n, true}, Q = {k, m, false}; break;   // B (N x K), A (M x K) row-major
      case Product::kDgrad: P = {n, k, false}, Q = {k, m, false}; break;  // B (K x N), A (M x K)
      case Product::kWgrad: P = {n, k, false}, Q = {m, k, true}; break;   // B (K x N), A (K x M)
    }
    cublas_check(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "bf16 matmul descriptor");
    const cublasOperation_t ta = P.t ? CUBLAS_OP_T : CUBLAS_OP_N, tb = Q.t ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublas_check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
    cublas_check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
    cublas_check(cublasLtMatrixLayoutCreate(&p_, CUDA_R_16BF, P.rows, P.cols, P.rows), "bf16 layout P");
    cublas_check(cublasLtMatrixLayoutCreate(&q_, CUDA_R_16BF, Q.rows, Q.cols, Q.rows), "bf16 layout Q");
    cublas_check(cublasLtMatrixLayoutCreate(&d_, CUDA_R_16BF, n, m, n), "bf16 layout D");
    cublasLtMatmulPreference_t pref = nullptr;
    cublas_check(cublasLtMatmulPreferenceCreate(&pref), "preference");
    const size_t ws = kCublasWorkspace;
    cublas_check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                 "preference workspace");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublas_check(cublasLtMatmulAlgoGetHeuristic(h_, op_, p_, q_, d_, d_, pref, 1, &result, &found), "bf16 heuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    if (found == 0) fatal("cuBLASLt has no bf16 algorithm for %s %s", product_name(p), dims_text(d).c_str());
    algo_ = result.algo;
  }
  ~Bf16Gemm() {
    cublasLtMatrixLayoutDestroy(d_);
    cublasLtMatrixLayoutDestroy(q_);
    cublasLtMatrixLayoutDestroy(p_);
    cublasLtMatmulDescDestroy(op_);
  }
  Bf16Gemm(const Bf16Gemm&) = delete;
  Bf16Gemm& operator=(const Bf16Gemm&) = delete;

  lowp_status run(const void* a, const void* b, void* d, void* ws, cudaStream_t st) const {
    const float one = 1.0f, zero = 0.0f;
    cublas_check(cublasLtMatmul(h_, op_, &one, b, p_, a, q_, &zero, d, d_, d, d_, &algo_, ws, kCublasWorkspace, st),
                 "cublasLtMatmul (bf16)");
    return LOWP_SUCCESS;
  }

 private:
  cublasLtHandle_t h_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t p_ = nullptr, q_ = nullptr, d_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

// ---------------------------------------------------------------------------------------------
// What was measured.

struct Row : Timing {
  std::string op;       // bf16 or a recipe (with _fused: the NVFP4 fused path)
  std::string product;  // fprop, dgrad, wgrad; fwd, bwd for the pipelines
  Dims d{};
  double flops = 0;
  double rel_l2 = NAN;  // vs cuBLAS bf16 on the unquantized operands (GEMM rows)
  size_t workspace = 0;
  std::string unsupported;  // lowp's message when the problem does not run
};

struct Run : RunInfo {
  std::vector<Row> rows;
};
Run g_run;

bool is_pipeline(const Row& r) { return r.product == "fwd" || r.product == "bwd"; }

double tflops(const Row& r, bool* from_eager) {
  const double ms = headline_ms(r, from_eager);
  return r.flops / (ms * 1e-3) / 1e12;
}

// TFLOP/s of `r` over the bf16 row of the same shape and product (NaN without one).
double x_bf16(const Row& r) {
  for (const Row& b : g_run.rows)
    if (b.op == "bf16" && b.product == r.product && b.d.m == r.d.m && b.d.n == r.d.n && b.d.k == r.d.k) {
      bool e = false;
      return tflops(r, &e) / tflops(b, &e);
    }
  return NAN;
}

const Row* find_row(const std::string& op, const std::string& product, const Dims& d) {
  for (const Row& r : g_run.rows)
    if (r.op == op && r.product == product && r.d.m == d.m && r.d.n == d.n && r.d.k == d.k) return &r;
  return nullptr;
}

std::string fmt(const char* f, double v) {
  if (!std::isfinite(v)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void print_table() {
  std::printf("\n== lowp_bench_gemm (lowp %s) on %s: %d SMs, L2 %.1f MB ==\n", lowp_version(), g_run.device.c_str(),
              g_run.sms, g_run.l2_mb);
  std::printf("median of %d samples, ms per call; TFLOP/s = 2MNK per GEMM / time (graph; * = eager); x_bf16 = TFLOP/s"
              " / cuBLAS bf16's;\nrel_l2 = vs the bf16 product of the unquantized operands (16 sampled rows)\n",
              g_run.reps);
  std::printf("%-19s %-6s %6s %6s %6s %9s %9s %8s %7s %7s\n", "op", "prod", "M", "N", "K", "eager_ms", "graph_ms",
              "TFLOP/s", "x_bf16", "rel_l2");
  const Row* prev = nullptr;
  for (const Row& r : g_run.rows) {
    if (prev != nullptr && (prev->d.m != r.d.m || prev->d.n != r.d.n || prev->d.k != r.d.k ||
                            prev->product != r.product))
      std::printf("\n");
    prev = &r;
    std::printf("%-19s %-6s %6lld %6lld %6lld ", r.op.c_str(), r.product.c_str(), static_cast<long long>(r.d.m),
                static_cast<long long>(r.d.n), static_cast<long long>(r.d.k));
    if (!r.unsupported.empty()) {
      std::printf("unsupported: %s\n", r.unsupported.c_str());
      continue;
    }
    bool from_eager = false;
    const double tf = tflops(r, &from_eager);
    const std::string graph = r.graph_error.empty() ? fmt("%9.4f", r.graph.median_ms) : "failed[" + std::to_string(r.note) + "]";
    std::printf("%9.4f %9s %7.1f%s %7s %7s\n", r.eager.median_ms, graph.c_str(), tf, from_eager ? "*" : " ",
                fmt("%.3f", x_bf16(r)).c_str(), fmt("%.4f", r.rel_l2).c_str());
  }
  // x_bf16 per shape and product, one column per op.
  const char* const ops[] = {"fp8_tensor", "fp8_token", "nvfp4_tensor", "nvfp4_tensor_fused", "nvfp4_token",
                             "nvfp4_token_fused"};
  std::printf("\nx_bf16 (graph): TFLOP/s over cuBLAS bf16's, same shape and product\n%-19s %-6s", "M x N x K", "prod");
  for (const char* op : ops) std::printf(" %18s", op);
  std::printf("\n");
  for (const Row& b : g_run.rows) {
    if (b.op != "bf16") continue;
    std::printf("%-19s %-6s", dims_text(b.d).c_str(), b.product.c_str());
    for (const char* op : ops) {
      const Row* r = find_row(op, b.product, b.d);
      std::printf(" %18s", r == nullptr || !r->unsupported.empty() ? "-" : fmt("%.3f", x_bf16(*r)).c_str());
    }
    std::printf("\n");
  }
  print_notes_and_warnings(g_run);
  std::fflush(stdout);
}

void write_json(bool complete, const std::string& key) {
  FILE* f = open_json_with_header(g_run, complete, false);
  if (f == nullptr) return;
  std::fprintf(f, "  \"rows\": [");
  for (size_t i = 0; i < g_run.rows.size(); ++i) {
    const Row& r = g_run.rows[i];
    bool from_eager = false;
    const double tf = r.unsupported.empty() ? tflops(r, &from_eager) : NAN;
    std::fprintf(f,
                 "%s\n    {\"op\": \"%s\", \"product\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, "
                 "\"pipeline\": %s, \"flops\": %.0f, \"eager\": %s, \"graph\": %s, \"graph_error\": \"%s\", "
                 "\"tflops\": %s, \"tflops_from\": \"%s\", \"x_bf16\": %s, \"rel_l2_vs_bf16\": %s, "
                 "\"workspace_bytes\": %zu, \"unsupported\": \"%s\"}",
                 i == 0 ? "" : ",", json_escape(r.op).c_str(), r.product.c_str(), static_cast<long long>(r.d.m),
                 static_cast<long long>(r.d.n), static_cast<long long>(r.d.k), is_pipeline(r) ? "true" : "false",
                 r.flops, jstats(r.eager).c_str(), jstats(r.graph).c_str(), json_escape(r.graph_error).c_str(),
                 jnum(tf).c_str(), from_eager ? "eager" : "graph", jnum(x_bf16(r)).c_str(), jnum(r.rel_l2).c_str(),
                 r.workspace, json_escape(r.unsupported).c_str());
  }
  std::fprintf(f, "\n  ],\n  \"notes\": [");
  write_json_strings(f, g_run.notes);
  std::fprintf(f, "],\n  \"key\": \"%s\",\n  \"error\": \"%s\",\n", json_escape(key).c_str(),
               json_escape(g_fatal_msg).c_str());
  close_json_with_warnings(f, g_run);
}

// The KEY line: x_bf16 of fprop at 8192^3 and 16384x4096x14336 (else the first shape that ran).
std::string key_text() {
  std::string t;
  for (const Row& b : g_run.rows) {
    if (b.op != "bf16" || b.product != "fprop") continue;
    const bool headline = (b.d.m == 8192 && b.d.n == 8192 && b.d.k == 8192) ||
                          (b.d.m == 16384 && b.d.n == 4096 && b.d.k == 14336);
    if (!headline && !t.empty()) continue;
    t += (t.empty() ? "" : "; ") + dims_text(b.d) + " fprop x_bf16:";
    for (const char* op : {"fp8_tensor", "fp8_token", "nvfp4_tensor", "nvfp4_tensor_fused", "nvfp4_token",
                           "nvfp4_token_fused"}) {
      const Row* r = find_row(op, "fprop", b.d);
      if (r != nullptr && r->unsupported.empty()) t += std::string(" ") + op + " " + fmt("%.3f", x_bf16(*r));
    }
  }
  return t.empty() ? "nothing measured" : t;
}

void dump_partial() { dump_failure(!g_run.rows.empty(), print_table, write_json); }

// ---------------------------------------------------------------------------------------------
// Options.

struct Options : CommonOptions {
  std::vector<Dims> shapes;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: lowp_bench_gemm [--quick] [--shape MxNxK] [--reps N] [--batch N] [--ops A,B] [--json FILE]\n"
               "  shapes (M x N x K): 8192^3, 4096^3, 16384x4096x4096, 16384x4096x14336, 16384x14336x4096;\n"
               "  --quick: the first two; --shape: that one (M, N, K multiples of 16).\n"
               "  ops: bf16, fp8_tensor, fp8_token, nvfp4_tensor, nvfp4_tensor_fused, nvfp4_token,\n"
               "  nvfp4_token_fused (bf16 always runs: the reference)\n");
  std::exit(code);
}

Options parse(int argc, char** argv) {
  Options o;
  o.reps = 25;
  o.batch = 2;
  Dims one{0, 0, 0};
  parse_common(argc, argv, usage, &o, [&](const std::string& a, auto value) {
    if (a != "--shape") return false;
    const std::string v = value();
    long long m = 0, n = 0, k = 0;
    char tail = 0;
    if (std::sscanf(v.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m <= 0 || n <= 0 || k <= 0 ||
        m % 16 != 0 || n % 16 != 0 || k % 16 != 0) {
      std::fprintf(stderr, "%s: --shape needs MxNxK, positive multiples of 16; got '%s'\n", g_prog, v.c_str());
      usage(2);
    }
    one = {m, n, k};
    return true;
  });
  if (o.m != 0 || o.k != 0) {
    std::fprintf(stderr, "%s: --m / --k do not apply here; use --shape MxNxK\n", g_prog);
    usage(2);
  }
  if (one.m != 0)
    o.shapes = {one};
  else
    o.shapes.assign(std::begin(kShapes), o.quick ? std::begin(kShapes) + kQuickShapes : std::end(kShapes));
  return o;
}

// ---------------------------------------------------------------------------------------------
// The run.

// Device state every row uses.
struct Context {
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* lt_ws = nullptr;
  uint16_t* arena = nullptr;  // random bf16
  uint16_t* d = nullptr;      // outputs
  size_t d_elems = 0;
  void* ws = nullptr;  // lowp_gemm workspace, grown on demand
  size_t ws_bytes = 0;
  uint64_t* rng = nullptr;  // {seed, offset}
  size_t l2_bytes = 0;

  void reserve_workspace(size_t bytes) {
    if (bytes <= ws_bytes) return;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (ws != nullptr) CUDA_CHECK(cudaFree(ws));
    ws = device_alloc(bytes, "lowp_gemm workspace");
    ws_bytes = bytes;
  }
};

// A rows x cols bf16 view of the arena; `salt` picks where (the same salt, the same values).
lowp_tensor view(const Context& c, int64_t rows, int64_t cols, uint64_t salt) {
  const size_t elems = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  if (elems > kArenaElems) fatal("a %lldx%lld tensor exceeds the arena", (long long)rows, (long long)cols);
  const size_t slots = (kArenaElems - elems) / 256 + 1;
  const size_t at = (splitmix64(salt) % slots) * 256;
  return {c.arena + at, LOWP_DTYPE_BFLOAT16, rows, cols};
}

uint64_t salt_of(const Dims& d, int tensor, int set) {
  return (static_cast<uint64_t>(d.m) * 1000003u + static_cast<uint64_t>(d.n)) * 1000003u + static_cast<uint64_t>(d.k) +
         static_cast<uint64_t>(tensor) * 7919u + static_cast<uint64_t>(set) * 104729u;
}

// Buffer sets of bytes_per_set: enough for 4x L2 together (at most kMaxSets); 1 when one set
// alone is that large.
int sets_for(const Context& c, size_t bytes_per_set) {
  return bytes_per_set >= 4 * c.l2_bytes ? 1 : buffer_sets(c.l2_bytes, bytes_per_set, kMaxSets);
}

// Rows kSampleRows of a bf16 M x N output spread over M, as floats (synchronises).
std::vector<float> sampled_rows(const Context& c, const uint16_t* d, int64_t m, int64_t n) {
  CUDA_CHECK(cudaStreamSynchronize(c.stream));
  std::vector<uint16_t> h(static_cast<size_t>(kSampleRows * n));
  for (int j = 0; j < kSampleRows; ++j) {
    const int64_t i = (static_cast<int64_t>(j) * m) / kSampleRows + (j % 3);
    CUDA_CHECK(cudaMemcpy(h.data() + j * n, d + std::min(i, m - 1) * n, static_cast<size_t>(n) * 2, cudaMemcpyDeviceToHost));
  }
  std::vector<float> out(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    const uint32_t u = static_cast<uint32_t>(h[i]) << 16;
    std::memcpy(&out[i], &u, 4);
  }
  return out;
}

double rel_l2(const std::vector<float>& got, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = static_cast<double>(got[i]) - ref[i];
    num += e * e;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return std::sqrt(num / den);
}

Row& add_row(const std::string& op, const std::string& product, const Dims& d, double flops) {
  Row r;
  r.op = op;
  r.product = product;
  r.d = d;
  r.flops = flops;
  g_run.rows.push_back(r);
  return g_run.rows.back();
}

void print_row(const Row& r) {
  bool e = false;
  std::printf("  %-19s %-5s %-17s %8.4f ms %7.1f TFLOP/s%s\n", r.op.c_str(), r.product.c_str(), dims_text(r.d).c_str(),
              headline_ms(r, &e), tflops(r, &e), e ? " (eager)" : "");
  std::fflush(stdout);
}

void time_row(const Options& o, const Context& c, const Call& call, int nbuf, Row& r) {
  std::snprintf(g_phase, sizeof g_phase, "%s %s %s", r.op.c_str(), r.product.c_str(), dims_text(r.d).c_str());
  time_both(call, nbuf, calls_per_sample(o.batch, nbuf), o.reps, c.stream, &g_run, &r);
  print_row(r);
}

// lowp_gemm's workspace for these arguments; false (the row marked unsupported) when lowp cannot
// run the problem.
bool query_workspace(const lowp_quantized_tensor* a, lowp_orientation ac, const lowp_quantized_tensor* b,
                     lowp_orientation bc, const lowp_tensor& d, const lowp_gemm_config& cfg, Row& r, size_t* bytes) {
  const lowp_status s = lowp_gemm_workspace_size(a, ac, b, bc, &d, &cfg, bytes);
  if (s == LOWP_ERROR_UNSUPPORTED) {
    r.unsupported = lowp_get_last_error();
    std::printf("  %-19s %-5s %-17s unsupported: %s\n", r.op.c_str(), r.product.c_str(), dims_text(r.d).c_str(),
                r.unsupported.c_str());
    return false;
  }
  LOWP_CHECK(s);
  return true;
}

lowp_gemm_config gemm_config(const QTensor& a, const QTensor& b) {
  lowp_gemm_config cfg;
  lowp_gemm_config_default(&cfg);
  cfg.a_columnwise_rht = a.rht();
  cfg.b_columnwise_rht = b.rht();
  return cfg;
}

void check_rel(const Row& r, double rel, double limit, const std::string& against) {
  if (!(rel <= limit))
    g_run.warnings.push_back(r.op + " " + r.product + " " + dims_text(r.d) + ": rel_l2 " + fmt("%.4f", rel) + " vs " +
                             against + " exceeds " + fmt("%.2f", limit));
}

// The operand sets of one recipe, shared by its default and fused ops.
struct OperandSets {
  QTensors a, b;
};

// One lowp op of a product (a recipe on one path), kept until the product's ops are timed together.
struct LowpOp {
  std::shared_ptr<OperandSets> sets;
  lowp_gemm_config cfg{};
  size_t workspace = 0;
  size_t row = 0;                        // index into g_run.rows
  const LowpOp* default_path = nullptr;  // the fused op's default-path twin, when that runs too
  std::vector<float> out;                // sampled rows of its output
};

// Every op of one product at one shape: cuBLAS bf16 and the lowp ops timed interleaved
// (time_interleaved), then each output checked against bf16's.
void bench_product(const Options& o, Context& c, const Dims& d, Product p) {
  const Operands t = operands_of(p, d);
  const std::string prod = product_name(p);
  const double flops = 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k);
  lowp_tensor dt{c.d, LOWP_DTYPE_BFLOAT16, d.m, d.n};

  // cuBLAS bf16 on the unquantized tensors; its set-0 output is every row's reference.
  const int nbf = sets_for(c, 2 * static_cast<size_t>(t.a_rows * t.a_cols + t.b_rows * t.b_cols));
  const Bf16Gemm bf(c.lt, p, d);
  auto bf16 = [&](int s) {
    return bf.run(view(c, t.a_rows, t.a_cols, salt_of(d, 0, s)).data, view(c, t.b_rows, t.b_cols, salt_of(d, 1, s)).data,
                  c.d, c.lt_ws, c.stream);
  };
  const size_t bf_row = g_run.rows.size();
  add_row("bf16", prod, d, flops);

  std::vector<std::unique_ptr<LowpOp>> ops;
  for (const Recipe& rc : kRecipes) {
    const std::string fused = std::string(rc.name) + "_fused";
    const bool run_default = o.runs(rc.name), run_fused = rc.nvfp4() && o.runs(fused);
    if (!run_default && !run_fused) continue;
    std::snprintf(g_phase, sizeof g_phase, "quantizing %s operands of %s %s", rc.name, prod.c_str(), dims_text(d).c_str());
    const Quant qa = quant_of(rc.family, t.a_role, false, c.rng), qb = quant_of(rc.family, t.b_role, false, c.rng);
    auto sets = std::make_shared<OperandSets>();
    QTensors& A = sets->a;
    QTensors& B = sets->b;
    A.push_back(std::make_unique<QTensor>(qa, t.a_rows, t.a_cols));
    B.push_back(std::make_unique<QTensor>(qb, t.b_rows, t.b_cols));
    const int nbuf = sets_for(c, A[0]->copy_bytes(t.a_copy) + B[0]->copy_bytes(t.b_copy));
    for (int s = 1; s < nbuf; ++s) {
      A.push_back(std::make_unique<QTensor>(qa, t.a_rows, t.a_cols));
      B.push_back(std::make_unique<QTensor>(qb, t.b_rows, t.b_cols));
    }
    for (int s = 0; s < nbuf; ++s) {
      LOWP_CHECK(A[s]->quantize(view(c, t.a_rows, t.a_cols, salt_of(d, 0, s)), c.stream));
      LOWP_CHECK(B[s]->quantize(view(c, t.b_rows, t.b_cols, salt_of(d, 1, s)), c.stream));
    }
    const lowp_gemm_config cfg = gemm_config(*A[0], *B[0]);
    size_t ws = 0;
    Row probe;
    probe.op = rc.name;
    probe.product = prod;
    probe.d = d;
    if (!query_workspace(A[0]->q(), t.a_copy, B[0]->q(), t.b_copy, dt, cfg, probe, &ws)) {
      g_run.rows.push_back(probe);
      continue;
    }
    c.reserve_workspace(ws);
    const LowpOp* default_op = nullptr;
    for (int path = 0; path < 2; ++path) {
      const bool is_fused = path == 1;
      if (is_fused ? !run_fused : !run_default) continue;
      auto op = std::make_unique<LowpOp>();
      op->sets = sets;
      op->cfg = cfg;
      op->workspace = is_fused ? 0 : ws;
      op->row = g_run.rows.size();
      op->default_path = is_fused ? default_op : nullptr;
      add_row(is_fused ? fused : rc.name, prod, d, flops).workspace = op->workspace;
      if (!is_fused) default_op = op.get();
      ops.push_back(std::move(op));
    }
  }

  const auto call_of = [&](const LowpOp* op) -> Call {
    return [&c, &t, &dt, op](int s) {
      return lowp_gemm(op->sets->a[s]->q(), t.a_copy, op->sets->b[s]->q(), t.b_copy, &dt, &op->cfg,
                       op->workspace ? c.ws : nullptr, op->workspace, c.stream);
    };
  };
  std::snprintf(g_phase, sizeof g_phase, "timing %s %s", prod.c_str(), dims_text(d).c_str());
  std::vector<TimedOp> timed{{bf16, nbf, calls_per_sample(o.batch, nbf), &g_run.rows[bf_row]}};
  for (const auto& op : ops) {
    const int n = static_cast<int>(op->sets->a.size());
    timed.push_back({call_of(op.get()), n, calls_per_sample(o.batch, n), &g_run.rows[op->row]});
  }
  time_interleaved(timed, o.reps, c.stream, &g_run);
  print_row(g_run.rows[bf_row]);

  LOWP_CHECK(bf16(0));
  const std::vector<float> ref = sampled_rows(c, c.d, d.m, d.n);
  for (const auto& op : ops) {
    Row& r = g_run.rows[op->row];
    print_row(r);
    LOWP_CHECK(call_of(op.get())(0));
    op->out = sampled_rows(c, c.d, d.m, d.n);
    r.rel_l2 = rel_l2(op->out, ref);
    check_rel(r, r.rel_l2, kMaxRelL2, "cuBLAS bf16");
    if (op->default_path != nullptr) check_rel(r, rel_l2(op->out, op->default_path->out), kMaxPathRelL2, "the default path");
  }
}

// The fwd and bwd pipelines of a linear layer with tokens M, out N, in K.
void bench_pipelines(const Options& o, Context& c, const Dims& d) {
  const int64_t M = d.m, N = d.n, K = d.k;
  const double gemm_flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  enum { kX = 10, kW = 11, kDy = 12 };  // salts of the layer's tensors
  uint16_t* y = c.d;
  uint16_t* dx = c.d;
  uint16_t* dw = c.d + M * K;
  const int nbf = sets_for(c, 2 * static_cast<size_t>(M * K + N * K + M * N));
  const Bf16Gemm fprop(c.lt, Product::kFprop, d), dgrad(c.lt, Product::kDgrad, {M, K, N}),
      wgrad(c.lt, Product::kWgrad, {N, K, M});
  auto x_of = [&](int s) { return view(c, M, K, salt_of(d, kX, s)); };
  auto w_of = [&](int s) { return view(c, N, K, salt_of(d, kW, s)); };
  auto dy_of = [&](int s) { return view(c, M, N, salt_of(d, kDy, s)); };
  time_row(o, c, [&](int s) { return fprop.run(x_of(s).data, w_of(s).data, y, c.lt_ws, c.stream); }, nbf,
           add_row("bf16", "fwd", d, gemm_flops));
  time_row(o, c,
           [&](int s) {
             LOWP_CHECK(dgrad.run(dy_of(s).data, w_of(s).data, dx, c.lt_ws, c.stream));
             return wgrad.run(dy_of(s).data, x_of(s).data, dw, c.lt_ws, c.stream);
           },
           nbf, add_row("bf16", "bwd", d, 2 * gemm_flops));
  for (const Recipe& rc : kRecipes) {
    if (!o.runs(rc.name)) continue;
    std::snprintf(g_phase, sizeof g_phase, "pipeline operands %s %s", rc.name, dims_text(d).c_str());
    const Quant qx = quant_of(rc.family, Role::kX, true, c.rng), qw = quant_of(rc.family, Role::kW, true, c.rng),
                qdy = quant_of(rc.family, Role::kDy, true, c.rng);
    QTensors X, W, DY;
    const auto add_set = [&] {
      X.push_back(std::make_unique<QTensor>(qx, M, K));
      W.push_back(std::make_unique<QTensor>(qw, N, K));
      DY.push_back(std::make_unique<QTensor>(qdy, M, N));
    };
    add_set();
    const int nbuf = sets_for(c, X[0]->copy_bytes(LOWP_ROWWISE) * 2 + W[0]->copy_bytes(LOWP_ROWWISE) * 2 +
                                     DY[0]->copy_bytes(LOWP_ROWWISE) * 2 + 2 * static_cast<size_t>(M * K + M * N));
    while (static_cast<int>(X.size()) < nbuf) add_set();
    for (int s = 0; s < nbuf; ++s) {  // W once per step; x's copies for the backward's wgrad
      LOWP_CHECK(W[s]->quantize(w_of(s), c.stream));
      LOWP_CHECK(X[s]->quantize(x_of(s), c.stream));
      LOWP_CHECK(DY[s]->quantize(dy_of(s), c.stream));
    }
    const lowp_gemm_config fcfg = gemm_config(*X[0], *W[0]), dcfg = gemm_config(*DY[0], *W[0]),
                           wcfg = gemm_config(*DY[0], *X[0]);
    lowp_tensor yt{y, LOWP_DTYPE_BFLOAT16, M, N}, dxt{dx, LOWP_DTYPE_BFLOAT16, M, K},
        dwt{dw, LOWP_DTYPE_BFLOAT16, N, K};
    Row fwd_probe, bwd_probe;
    fwd_probe.op = bwd_probe.op = rc.name;
    fwd_probe.product = "fwd";
    bwd_probe.product = "bwd";
    fwd_probe.d = bwd_probe.d = d;
    size_t wf = 0, wd = 0, ww = 0;
    if (!query_workspace(X[0]->q(), LOWP_ROWWISE, W[0]->q(), LOWP_ROWWISE, yt, fcfg, fwd_probe, &wf)) {
      g_run.rows.push_back(fwd_probe);
      continue;
    }
    if (!query_workspace(DY[0]->q(), LOWP_ROWWISE, W[0]->q(), LOWP_COLUMNWISE, dxt, dcfg, bwd_probe, &wd) ||
        !query_workspace(DY[0]->q(), LOWP_COLUMNWISE, X[0]->q(), LOWP_COLUMNWISE, dwt, wcfg, bwd_probe, &ww)) {
      g_run.rows.push_back(bwd_probe);
      continue;
    }
    c.reserve_workspace(std::max({wf, wd, ww}));
    auto fwd = [&](int s) {
      lowp_status st = X[s]->quantize(x_of(s), c.stream);
      if (st == LOWP_SUCCESS)
        st = lowp_gemm(X[s]->q(), LOWP_ROWWISE, W[s]->q(), LOWP_ROWWISE, &yt, &fcfg, c.ws, wf, c.stream);
      return st;
    };
    auto bwd = [&](int s) {
      lowp_status st = DY[s]->quantize(dy_of(s), c.stream);
      if (st == LOWP_SUCCESS)
        st = lowp_gemm(DY[s]->q(), LOWP_ROWWISE, W[s]->q(), LOWP_COLUMNWISE, &dxt, &dcfg, c.ws, wd, c.stream);
      if (st == LOWP_SUCCESS)
        st = lowp_gemm(DY[s]->q(), LOWP_COLUMNWISE, X[s]->q(), LOWP_COLUMNWISE, &dwt, &wcfg, c.ws, ww, c.stream);
      return st;
    };
    Row& f = add_row(rc.name, "fwd", d, gemm_flops);
    f.workspace = wf;
    time_row(o, c, fwd, nbuf, f);
    Row& b = add_row(rc.name, "bwd", d, 2 * gemm_flops);
    b.workspace = std::max(wd, ww);
    time_row(o, c, bwd, nbuf, b);
  }
}

}  // namespace

int main(int argc, char** argv) {
  g_prog = "lowp_bench_gemm";
  const Options o = parse(argc, argv);
  Context c;
  c.l2_bytes = start_run(dump_partial, &g_run, o.reps, o.batch, o.json);
  std::snprintf(g_phase, sizeof g_phase, "set-up");
  for (const Dims& d : o.shapes)
    c.d_elems = std::max({c.d_elems, static_cast<size_t>(d.m * d.n), static_cast<size_t>(d.m * d.k + d.n * d.k)});
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  cublas_check(cublasLtCreate(&c.lt), "cublasLtCreate");
  c.lt_ws = device_alloc(kCublasWorkspace, "cuBLASLt workspace");
  c.arena = static_cast<uint16_t*>(device_alloc(kArenaElems * 2, "bf16 arena"));
  c.d = static_cast<uint16_t*>(device_alloc(c.d_elems * 2, "outputs"));
  c.rng = static_cast<uint64_t*>(device_alloc(16, "rng state"));
  const uint64_t rng[2] = {1234, 0};
  CUDA_CHECK(cudaMemcpy(c.rng, rng, 16, cudaMemcpyHostToDevice));
  fill_random(c.arena, kArenaElems);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("lowp_bench_gemm: %s, %zu shapes, median of %d samples\n", g_run.device.c_str(), o.shapes.size(), o.reps);

  for (const Dims& d : o.shapes) {
    for (Product p : {Product::kFprop, Product::kDgrad, Product::kWgrad}) bench_product(o, c, d, p);
    bench_pipelines(o, c, d);
  }
  print_table();
  const std::string key = key_text();
  write_json(true, key);
  std::printf("KEY: %s\n", key.c_str());
  cublasLtDestroy(c.lt);
  CUDA_CHECK(cudaStreamDestroy(c.stream));
  return g_run.warnings.empty() ? 0 : 3;
}
