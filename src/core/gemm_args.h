// POD arguments of lowp_gemm (numerics §8) for both backends, and the backends' GEMM entry
// points. The API layer fills them after validation (lowp/gemm.h lists the rules); backends
// trust them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "lowp/lowp.h"

namespace lowp {

// How the outer scales multiply the fp32 sum (numerics/gemm.h has each formula).
enum class GemmOuter {
  kFp8PerTensor,          // (sa * sb) * acc, one scale_inv per operand
  kFp8PerRow,             // (sa[i] * sb[j]) * acc, FP8 per-token scale_inv vectors
  kNvfp4PerTensor,        // ((A_a * A_b) * inv_denominator) * acc
  kNvfp4PerTokenFloored,  // inv_denominator * (max(A_b[j], 1e-12) * (max(A_a[i], 1e-12) * acc))
  kNvfp4PerRowRaw,        // the same with raw amaxes (row-scaled NVFP4, numerics §5b)
};

inline bool is_nvfp4(GemmOuter o) { return o != GemmOuter::kFp8PerTensor && o != GemmOuter::kFp8PerRow; }
inline bool has_row_scales(GemmOuter o) { return o != GemmOuter::kFp8PerTensor && o != GemmOuter::kNvfp4PerTensor; }

// One operand: the chosen copy, `rows` x k elements, K-contiguous.
struct GemmOperand {
  const uint8_t* codes;        // FP8: rows * k bytes; E2M1: rows * k / 2 bytes (two codes a byte)
  lowp_dtype dtype;            // E4M3, E5M2 or E2M1
  const uint8_t* block_scales; // E2M1: UE4M3 [roundup(rows,128)][roundup(k/16,4)] in scale_layout
  lowp_scale_layout scale_layout;
  const float* outer;          // FP8: scale_inv; NVFP4: amax. One float, or `rows` with row scales
};

struct GemmArgs {
  int64_t m, n, k;  // D is m x n; a is m x k, b is n x k
  GemmOperand a, b;
  GemmOuter outer;
  float inv_denominator;  // NVFP4: fp32 1 / (6E_a * 6E_b): 1/2688^2, other with 4over6's E = 256
  void* d;                // m x n row-major
  lowp_dtype d_dtype;     // BFLOAT16 or FLOAT32
  const void* bias;       // n values or nullptr
  lowp_dtype bias_dtype;  // FLOAT32 or BFLOAT16
  bool accumulate;        // FLOAT32 D only
  bool fast_accumulation; // FP8 on cuBLASLt only
};

namespace cpu {
// The reference: exact products summed in fp64, the sum rounded to fp32 once, then the epilogue.
lowp_status gemm(const GemmArgs& a);
}  // namespace cpu

namespace cuda {
// Device workspace bytes gemm() needs for these arguments (FP8: the cuBLASLt algorithm's).
lowp_status gemm_workspace_bytes(const GemmArgs& a, size_t* bytes);
// Checks the workspace against gemm_workspace_bytes (nothing enqueued when it falls short), then
// enqueues the GEMM on `stream`.
lowp_status gemm(const GemmArgs& a, void* workspace, size_t workspace_bytes, void* stream);
}  // namespace cuda

}  // namespace lowp
