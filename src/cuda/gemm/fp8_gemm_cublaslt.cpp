// FP8 GEMMs on cuBLASLt. lowp's D = A . B^T (row-major M x N) is cuBLASLt's column-major
// D^T (N x M) = op(B) . A^T with op = transpose: cuBLASLt's "A" is our b (K x N column-major,
// ld K, transposed) and its "B" our a (K x M, ld K): the TN layout Hopper's FP8 kernels take.
// cuBLASLt's scale vectors then run along its M (= our N: b's scales) and N (= our M: a's).
//
// Descriptors live on the stack (the *Init calls, no allocation per call); the handle is one per
// device and the algorithm choice one per problem, both cached under a lock for the process.
#include "cuda/gemm/fp8_gemm_cublaslt.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "core/error.h"
#include "cuda/gemm/gemm_workspace.h"

namespace lowp::cuda {
namespace {

constexpr size_t kMaxWorkspaceBytes = size_t{32} << 20;  // what TE gives cuBLASLt on Hopper
// cuBLASLt's FP8 kernels refuse (NOT_SUPPORTED at cublasLtMatmul) scale pointers that are not
// 16-byte aligned; such scales are staged through the front of the workspace.
constexpr uintptr_t kScaleAlignment = 16;

size_t round_up_256(size_t v) { return (v + 255) / 256 * 256; }

// Floats of one operand's scale: 1 (per-tensor) or its rows (per-token).
size_t scale_count(const GemmArgs& g, bool operand_a) {
  if (g.outer != GemmOuter::kFp8PerRow) return 1;
  return static_cast<size_t>(operand_a ? g.m : g.n);
}

// The workspace's front: room to stage both operands' scales (always reserved, so the size a
// problem needs does not depend on where its scales live).
size_t staging_bytes(const GemmArgs& g) {
  return round_up_256(scale_count(g, true) * 4) + round_up_256(scale_count(g, false) * 4);
}

lowp_status check_cublas(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_CUDA, "%s: cuBLASLt status %s (%s)", what, cublasLtGetStatusName(s), cublasLtGetStatusString(s));
}

cudaDataType_t cuda_type(lowp_dtype t) {
  switch (t) {
    case LOWP_DTYPE_E4M3: return CUDA_R_8F_E4M3;
    case LOWP_DTYPE_E5M2: return CUDA_R_8F_E5M2;
    case LOWP_DTYPE_BFLOAT16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// Largest power of two (at most 256) dividing the address: cuBLASLt's alignment preference.
uint32_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  uint32_t a = 256;
  while (a > 1 && v % a != 0) a /= 2;
  return a;
}

// Everything cuBLASLt's algorithm choice depends on.
struct ProblemKey {
  int device;
  int64_t m, n, k;
  lowp_dtype a_type, b_type, d_type;
  bool per_row, bias, accumulate, fast;
  uint32_t align_a, align_b, align_d;
  auto tie() const {
    return std::tie(device, m, n, k, a_type, b_type, d_type, per_row, bias, accumulate, fast, align_a, align_b, align_d);
  }
  bool operator<(const ProblemKey& o) const { return tie() < o.tie(); }
};

struct Plan {
  bool found;
  cublasLtMatmulAlgo_t algo;
  size_t workspace_bytes;
};

// The matmul and its four layouts, initialised in place.
struct Descriptors {
  cublasLtMatmulDescOpaque_t op;
  cublasLtMatrixLayoutOpaque_t a, b, c, d;  // cuBLASLt's A (our b), B (our a), C = D
};

template <typename T>
cublasStatus_t set(cublasLtMatmulDescOpaque_t& op, cublasLtMatmulDescAttributes_t attr, const T& v) {
  return cublasLtMatmulDescSetAttribute(&op, attr, &v, sizeof v);
}

lowp_status describe(const GemmArgs& g, Descriptors* ds) {
  const char* what = "FP8 GEMM descriptors";
  LOWP_TRY(check_cublas(cublasLtMatmulDescInit(&ds->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), what));
  const cublasOperation_t trans = CUBLAS_OP_T, no_trans = CUBLAS_OP_N;
  const int8_t fast = g.fast_accumulation ? 1 : 0;
  const void* a_scale = g.b.outer;  // cuBLASLt's A is our b
  const void* b_scale = g.a.outer;
  LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_TRANSA, trans), what));
  LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_TRANSB, no_trans), what));
  LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast), what));
  LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scale), what));
  LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scale), what));
  if (g.outer == GemmOuter::kFp8PerRow) {
#if CUBLAS_VERSION >= 120900
    const int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode), what));
    LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode), what));
#else
    return fail(LOWP_ERROR_UNSUPPORTED,
                "FP8 per-token GEMM: this lowp was built with cuBLAS %d, whose cuBLASLt has no "
                "CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F (cuBLAS 12.9 or newer)", CUBLAS_VERSION);
#endif
  }
  const cublasLtEpilogue_t epilogue = g.bias != nullptr ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue), what));
  if (g.bias != nullptr) {
    const int32_t bias_type = CUDA_R_16BF;  // the API admits only bf16 bias for FP8
    LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, g.bias), what));
    LOWP_TRY(check_cublas(set(ds->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_type), what));
  }
  const auto k = static_cast<uint64_t>(g.k), m = static_cast<uint64_t>(g.m), n = static_cast<uint64_t>(g.n);
  LOWP_TRY(check_cublas(cublasLtMatrixLayoutInit(&ds->a, cuda_type(g.b.dtype), k, n, g.k), what));
  LOWP_TRY(check_cublas(cublasLtMatrixLayoutInit(&ds->b, cuda_type(g.a.dtype), k, m, g.k), what));
  LOWP_TRY(check_cublas(cublasLtMatrixLayoutInit(&ds->c, cuda_type(g.d_dtype), n, m, g.n), what));
  return check_cublas(cublasLtMatrixLayoutInit(&ds->d, cuda_type(g.d_dtype), n, m, g.n), what);
}

// The device's handle, created on its first use.
lowp_status handle_of(int device, cublasLtHandle_t* h) {
  static std::mutex mutex;
  static std::map<int, cublasLtHandle_t> handles;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(device);
  if (it == handles.end()) {
    cublasLtHandle_t created = nullptr;
    LOWP_TRY(check_cublas(cublasLtCreate(&created), "cublasLtCreate"));
    it = handles.emplace(device, created).first;
  }
  *h = it->second;
  return LOWP_SUCCESS;
}

ProblemKey key_of(const GemmArgs& g, int device) {
  return {device,
          g.m,
          g.n,
          g.k,
          g.a.dtype,
          g.b.dtype,
          g.d_dtype,
          g.outer == GemmOuter::kFp8PerRow,
          g.bias != nullptr,
          g.accumulate,
          g.fast_accumulation,
          alignment_of(g.b.codes),
          alignment_of(g.a.codes),
          alignment_of(g.d)};
}

// cuBLASLt's first-choice algorithm for the problem (cached; found = false when it has none).
lowp_status plan_of(const GemmArgs& g, cublasLtHandle_t handle, const ProblemKey& key, const Descriptors& ds,
                    Plan* plan) {
  static std::mutex mutex;
  static std::map<ProblemKey, Plan> plans;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = plans.find(key); it != plans.end()) {
    *plan = it->second;
    return LOWP_SUCCESS;
  }
  const char* what = "FP8 GEMM algorithm choice";
  cublasLtMatmulPreferenceOpaque_t pref;
  LOWP_TRY(check_cublas(cublasLtMatmulPreferenceInit(&pref), what));
  const uint64_t max_ws = kMaxWorkspaceBytes;
  LOWP_TRY(check_cublas(cublasLtMatmulPreferenceSetAttribute(&pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws,
                                                             sizeof max_ws), what));
  const uint32_t aligns[4] = {key.align_a, key.align_b, key.align_d, key.align_d};
  const cublasLtMatmulPreferenceAttributes_t attrs[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i)
    LOWP_TRY(check_cublas(cublasLtMatmulPreferenceSetAttribute(&pref, attrs[i], &aligns[i], sizeof aligns[i]), what));
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  auto& d = const_cast<Descriptors&>(ds);  // cuBLASLt takes non-const descriptor handles
  const cublasStatus_t s =
      cublasLtMatmulAlgoGetHeuristic(handle, &d.op, &d.a, &d.b, &d.c, &d.d, &pref, 1, &result, &returned);
  Plan p{};
  if (s == CUBLAS_STATUS_SUCCESS && returned > 0) {
    p = {true, result.algo, result.workspaceSize};
  } else if (s != CUBLAS_STATUS_SUCCESS && s != CUBLAS_STATUS_NOT_SUPPORTED && s != CUBLAS_STATUS_INVALID_VALUE) {
    return check_cublas(s, what);  // not cached: a transient failure may pass next time
  }
  plans.emplace(key, p);
  *plan = p;
  return LOWP_SUCCESS;
}

// Handle, descriptors and plan of a call; fails with LOWP_ERROR_UNSUPPORTED when cuBLASLt has
// no algorithm for the problem.
lowp_status prepare(const GemmArgs& g, cublasLtHandle_t* handle, Descriptors* ds, Plan* plan) {
  int device = 0;
  const cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return fail(LOWP_ERROR_CUDA, "FP8 GEMM: cudaGetDevice: %s", cudaGetErrorString(e));
  LOWP_TRY(handle_of(device, handle));
  LOWP_TRY(describe(g, ds));
  LOWP_TRY(plan_of(g, *handle, key_of(g, device), *ds, plan));
  if (!plan->found)
    return fail(LOWP_ERROR_UNSUPPORTED,
                "FP8 GEMM: cuBLASLt %zu has no algorithm for M x N x K = %lld x %lld x %lld, %s x %s, %s scales, "
                "D %s%s%s%s on this device",
                cublasLtGetVersion(), static_cast<long long>(g.m), static_cast<long long>(g.n),
                static_cast<long long>(g.k), g.a.dtype == LOWP_DTYPE_E4M3 ? "E4M3" : "E5M2",
                g.b.dtype == LOWP_DTYPE_E4M3 ? "E4M3" : "E5M2",
                g.outer == GemmOuter::kFp8PerRow ? "per-token (OUTER_VEC_32F)" : "per-tensor",
                g.d_dtype == LOWP_DTYPE_FLOAT32 ? "FLOAT32" : "BFLOAT16", g.bias ? ", bf16 bias" : "",
                g.accumulate ? ", accumulate" : "", g.fast_accumulation ? ", fast accumulation" : "");
  return LOWP_SUCCESS;
}

}  // namespace

lowp_status fp8_gemm_workspace_bytes(const GemmArgs& g, size_t* bytes) {
  cublasLtHandle_t handle;
  Descriptors ds;
  Plan plan;
  LOWP_TRY(prepare(g, &handle, &ds, &plan));
  *bytes = staging_bytes(g) + plan.workspace_bytes;
  return LOWP_SUCCESS;
}

lowp_status fp8_gemm(const GemmArgs& g, void* workspace, size_t workspace_bytes, void* stream) {
  cublasLtHandle_t handle;
  Descriptors ds;
  Plan plan;
  LOWP_TRY(prepare(g, &handle, &ds, &plan));
  const size_t staging = staging_bytes(g);
  LOWP_TRY(check_gemm_workspace(staging + plan.workspace_bytes, workspace, workspace_bytes));
  auto* ws = static_cast<uint8_t*>(workspace);
  auto s = static_cast<cudaStream_t>(stream);
  // Staged copies of misaligned scales, and the descriptors' scale pointers set to them.
  const void* scales[2] = {g.b.outer, g.a.outer};  // cuBLASLt's A is our b
  const size_t counts[2] = {scale_count(g, false), scale_count(g, true)};
  const cublasLtMatmulDescAttributes_t attrs[2] = {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                   CUBLASLT_MATMUL_DESC_B_SCALE_POINTER};
  size_t at = 0;
  for (int i = 0; i < 2; ++i) {
    if (reinterpret_cast<uintptr_t>(scales[i]) % kScaleAlignment != 0) {
      const cudaError_t e = cudaMemcpyAsync(ws + at, scales[i], counts[i] * 4, cudaMemcpyDeviceToDevice, s);
      if (e != cudaSuccess) return fail(LOWP_ERROR_CUDA, "FP8 GEMM: staging a scale: %s", cudaGetErrorString(e));
      const void* staged = ws + at;
      LOWP_TRY(check_cublas(set(ds.op, attrs[i], staged), "FP8 GEMM descriptors"));
    }
    at += round_up_256(counts[i] * 4);
  }
  const size_t lt_bytes = workspace_bytes - staging;
  const float alpha = 1.0f, beta = g.accumulate ? 1.0f : 0.0f;  // the scales come from the scale pointers
  return check_cublas(cublasLtMatmul(handle, &ds.op, &alpha, g.b.codes, &ds.a, g.a.codes, &ds.b, &beta, g.d, &ds.c, g.d,
                                     &ds.d, &plan.algo, lt_bytes > 0 ? ws + staging : nullptr, lt_bytes, s),
                      "cublasLtMatmul (FP8 GEMM)");
}

}  // namespace lowp::cuda
