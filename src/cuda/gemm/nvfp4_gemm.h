// NVFP4 GEMM on Hopper (exact emulation): D[i][j] = epilogue(sum_k A[i][k] * B[j][k]) with A and
// B the chosen K-contiguous copies of two NVFP4 tensors (numerics §8). The decoded values
// e2m1(q) * float(s) are exact in 16-bit floats, so the products are exact and only the fp32
// accumulation order differs from the reference.
//
// Epilogue, in fp32, in this order (every operation rounds to nearest even):
//   per-tensor:        alpha = (A_a[0] * A_b[0]) * inv_denominator;  r = alpha * acc
//   per-token floored: r = inv_denominator * (max(A_b[j], 1e-12f) * (max(A_a[i], 1e-12f) * acc))
//   per-row raw:       r = inv_denominator * (A_b[j] * (A_a[i] * acc))
//   bias (optional):   r = r + float(bias[j])
//   accumulate:        r = d_old[i][j] + r          (FLOAT32 D only)
//   store:             D[i][j] = round(r) in d_dtype
// The API layer validates every rule (shapes, recipes, alignment, memory space); this layer trusts
// its arguments.
#pragma once
#include <cstddef>
#include <cstdint>

#include "lowp/lowp.h"

namespace lowp::cuda {

struct Nvfp4GemmOperand {
  const uint8_t* codes;  // rows x k/2 bytes, row-major: the rowwise or columnwise copy
  const uint8_t* scales;  // UE4M3 [roundup(rows,128)][roundup(k/16,4)] in scale_layout
  lowp_scale_layout scale_layout;
  const float* amax;  // per-tensor: 1 float; per-token / per-row: `rows` floats
};

enum class Nvfp4OuterScale { kPerTensor, kPerTokenFloored, kPerRowRaw };

struct Nvfp4GemmArgs {
  int64_t m, n, k;  // D is m x n; A is m x k, B is n x k; k % 16 == 0; m, n, k >= 1
  Nvfp4GemmOperand a, b;
  Nvfp4OuterScale outer;
  float inv_denominator;  // fp32 1/2688^2 (1/(6E)^2 for 4over6)
  void* d;                // m x n row-major
  lowp_dtype d_dtype;     // BFLOAT16 or FLOAT32
  const void* bias;       // n values or nullptr
  lowp_dtype bias_dtype;  // FLOAT32 or BFLOAT16 (when bias != nullptr)
  bool accumulate;        // d_dtype FLOAT32 only: D = D_old + r
};

// Device workspace the call needs (e.g. swizzled copies of compact scales); 256-byte aligned.
size_t nvfp4_gemm_workspace_bytes(const Nvfp4GemmArgs& a);

// Enqueues the GEMM on `stream`; picks the fused tensor-core kernel when the shape and
// alignment allow it, else an exact simple kernel.
lowp_status nvfp4_gemm(const Nvfp4GemmArgs& a, void* workspace, size_t workspace_bytes, void* stream);

}  // namespace lowp::cuda
