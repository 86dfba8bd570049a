/**
 * @file gemm.h
 * @brief lowp GEMMs on quantized tensors: D = A . B^T with FP8 or NVFP4 operands (numerics §8).
 *
 * The operands are copies made by lowp_quantize (lowp.h): every GEMM is "TN" (both operands
 * K-contiguous), so a caller picks the rowwise or the columnwise copy of each tensor. The three
 * products of a linear layer y = x W^T (x: tokens x in, W: out x in, dy: tokens x out) are one
 * call each:
 *
 * | product | D             | a, a_copy        | b, b_copy        | K      |
 * |---------|---------------|------------------|------------------|--------|
 * | fprop   | y  (tokens x out) | x,  LOWP_ROWWISE    | W, LOWP_ROWWISE    | in     |
 * | dgrad   | dx (tokens x in)  | dy, LOWP_ROWWISE    | W, LOWP_COLUMNWISE | out    |
 * | wgrad   | dW (out x in)     | dy, LOWP_COLUMNWISE | x, LOWP_COLUMNWISE | tokens |
 *
 * Conventions are lowp.h's: all pointers of a call in one memory space (host: the CPU reference,
 * synchronous and multi-threaded; CUDA device memory: the CUDA backend on `stream`), every
 * argument validated before anything is written, lowp_get_last_error() naming the argument and
 * the rule on failure. docs/gemm.md has the semantics in full, the accuracy contract and what
 * runs where.
 */
#ifndef LOWP_GEMM_H
#define LOWP_GEMM_H

#include "lowp/lowp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** sizeof(lowp_gemm_config) of its first release (through `b_columnwise_rht`, then 4 bytes of
    padding, now `reserved0`): the smallest struct_size. */
#define LOWP_GEMM_CONFIG_FIRST_SIZE 40

/**
 * Options of a GEMM, a growable struct (lowp.h, "Structs that grow": the same rules). Initialise
 * with lowp_gemm_config_default() (it sets struct_size) and override what you need; a NULL
 * config means the defaults. Members are only ever appended: a caller built against an older
 * lowp passes its smaller struct_size and gets the defaults for the members it does not know.
 */
typedef struct lowp_gemm_config {
  size_t struct_size;    /**< sizeof(lowp_gemm_config) as the caller knows it; set by
                              lowp_gemm_config_default(); 0 is rejected */
  const void* bias;      /**< optional (NULL: none): N values of bias_dtype, bias[j] added to
                              column j in fp32 after the outer scales, before accumulate and the
                              output rounding; aligned to its element size (FP8 on CUDA: 16 bytes) */
  lowp_dtype bias_dtype; /**< LOWP_DTYPE_BFLOAT16 (default) or, for NVFP4 operands only,
                              LOWP_DTYPE_FLOAT32 (cuBLASLt's FP8 GEMMs on Hopper read a bf16 bias
                              for bf16 and fp32 outputs alike). Not read when bias is NULL (any
                              value is accepted then). */
  int accumulate;        /**< 1: D = D_old + result (D FLOAT32 only, e.g. wgrad accumulation);
                              default 0: D is overwritten and not read */
  int fast_accumulation; /**< FP8 only; 1: cuBLASLt's FAST_ACCUM (Hopper's FP8 tensor cores then
                              keep partial sums at reduced precision, no periodic promotion to fp32;
                              TE uses it for fprop only). Default 0. The CPU reference computes
                              exactly either way. Must be 0 for NVFP4. */
  int a_columnwise_rht;  /**< NVFP4: 1 when a's columnwise copy was made with the random Hadamard
                              transform (lowp_quant_config.rht), i.e. lives in the RHT domain.
                              Describes the tensor: it matters only when a_copy is COLUMNWISE.
                              Must be 0 for FP8 (FP8 has no RHT). Default 0. */
  int b_columnwise_rht;  /**< The same for b. The two copies a GEMM reads must both be in the RHT
                              domain or neither: with both, the transform cancels in the product
                              ((H/4)(H/4)^T = I, when both copies used the same rht_sign_mask,
                              which lowp cannot check); one RHT copy against a plain copy is an
                              error. In a linear layer only wgrad may read two RHT copies. */
  uint32_t reserved0;    /**< the first release's tail padding: never read (a first-release
                              caller's struct_size, 40, covers it with whatever it holds) */
} lowp_gemm_config;

/** Fills `cfg` with the defaults above (struct_size = sizeof(lowp_gemm_config)). NULL: no-op. */
LOWP_API void lowp_gemm_config_default(lowp_gemm_config* cfg);

/**
 * D = A . B^T, with A (M x K) the `a_copy` copy of a and B (N x K) the `b_copy` copy of b.
 * The rowwise copy of a tensor x (rows x cols) is rows x cols, its columnwise copy cols x rows
 * (x^T); the chosen copies must have the same K. D: M x N, row-major, dtype LOWP_DTYPE_BFLOAT16
 * or LOWP_DTYPE_FLOAT32 (round to nearest even), written whole (read too with cfg->accumulate).
 *
 * Recipes: a and b must be of one family, and its formula gives r[i][j] from the fp32 sum
 * acc[i][j] = sum_k A[i][k] * B[j][k] of the decoded operand values (every operation in fp32,
 * round to nearest even, in the order written):
 * - FP8 per-tensor (dtype E4M3 or E5M2, scaling DELAYED or CURRENT, either per operand):
 *   r = (sa * sb) * acc with sa = *a->scale_inv, sb = *b->scale_inv (both copies of a tensor
 *   share it). E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3; E5M2 x E5M2 is rejected (Hopper's FP8
 *   tensor cores do not take it).
 * - FP8 per-token (scaling PER_TOKEN, same dtypes): r = (sa[i] * sb[j]) * acc with sa, sb the
 *   chosen copies' scale_inv vectors (M and N floats).
 * - NVFP4 per-tensor (E2M1, NVFP4_PER_TENSOR): A[i][k] = e2m1(q) * float(s) (code times its UE4M3
 *   block scale, exact); r = ((A_a * A_b) * d) * acc with A_a, A_b the chosen copies' amax (one
 *   float each) and d = 1 / (6E_a * 6E_b), 6E = q->nvfp4_outer_max (0 reads as 2688: d = 1/2688^2;
 *   1536 after 4over6 with E = 256).
 * - NVFP4 per-token (E2M1, NVFP4_PER_TOKEN): r = d * (A_b[j] * (A_a[i] * acc)) with
 *   A_a[i] = max(a copy's amax[i], 1e-12) and A_b[j] likewise, as the encoder used them.
 * - NVFP4 row-scaled (E2M1, NVFP4_ROW_SCALED, numerics §5b): as per-token with the raw amaxes
 *   (no floor) and d as per-tensor's.
 * Then r = r + float(bias[j]) with a bias, r = D_old[i][j] + r with cfg->accumulate, and
 * D[i][j] = round(r) to D's dtype. The CPU reference accumulates acc exactly in fp64 and rounds
 * it to fp32 once; the CUDA backend accumulates in fp32 (see docs/gemm.md for the error bound).
 * NaN and Inf follow IEEE arithmetic; NaN payloads are unspecified.
 *
 * Requirements (each checked; the message names the argument and the rule):
 * - a, b, d not NULL; a_copy, b_copy LOWP_ROWWISE or LOWP_COLUMNWISE; a and b of one family as
 *   above; rows, cols >= 1; the chosen copies' K equal; d->rows == M and d->cols == N; d->data
 *   aligned to its element size (4 bytes for FLOAT32, 2 for BFLOAT16; FP8 on CUDA: 16).
 * - The chosen copy of each operand present: its data, and FP8 per-tensor: the tensor's
 *   scale_inv; FP8 per-token: the copy's scale_inv; NVFP4: the copy's scale_inv (block scales, in
 *   the tensor's scale_layout, compact or swizzled) and amax, and a valid nvfp4_outer_max (lowp.h:
 *   0 or 2688, or 1536 for per-tensor and row-scaled). Scale and amax pointers 4-byte aligned.
 * - FP8: K % 16 == 0 and N % 16 == 0 (cuBLASLt's FP8 kernels need 16-byte-aligned rows of the
 *   operands and of D); on CUDA the copies' data, d->data and the bias 16-byte aligned.
 *   NVFP4: K % 16 == 0 (a columnwise copy exists only then), M, N any.
 * - cfg: struct_size not 0, not below LOWP_GEMM_CONFIG_FIRST_SIZE and at most
 *   sizeof(lowp_gemm_config); accumulate only with a FLOAT32
 *   D; bias_dtype as documented; fast_accumulation only with FP8; RHT flags as documented.
 * - CUDA: workspace_bytes >= lowp_gemm_workspace_size(...); the workspace in device memory,
 *   256-byte aligned (NULL allowed when the size is 0). The CPU backend ignores the workspace.
 *
 * CUDA: FP8 runs on cuBLASLt (handle and algorithm choice cached per device and per problem,
 * thread-safe); NVFP4 runs as exact emulation (decoded values are exact in bf16 and fp32; only
 * the fp32 accumulation order differs from the reference). No allocation, no host
 * synchronisation; a call can be captured in a CUDA graph (the first call of a new problem does
 * host-only setup). A problem cuBLASLt finds no algorithm for returns LOWP_ERROR_UNSUPPORTED,
 * nothing written.
 *
 * Aliasing: d->data (read too with cfg->accumulate: in place) and the CUDA workspace overlap none
 * of the chosen copies' buffers (codes, block scales, scale_inv or amax), the bias or each other
 * (checked).
 */
LOWP_API lowp_status lowp_gemm(const lowp_quantized_tensor* a, lowp_orientation a_copy,
                               const lowp_quantized_tensor* b, lowp_orientation b_copy, lowp_tensor* d,
                               const lowp_gemm_config* cfg, void* workspace, size_t workspace_bytes,
                               void* stream);

/**
 * Workspace bytes lowp_gemm needs for these arguments (the same checks, without the workspace):
 * 0 for host pointers; on CUDA what the chosen kernel asks for. FP8: room to stage the two
 * operands' scales (cuBLASLt reads scale pointers only at 16-byte alignment; misaligned ones are
 * copied there) plus the workspace of the algorithm cuBLASLt picks, at most 32 MiB;
 * LOWP_ERROR_UNSUPPORTED when it has none. NVFP4: the two-stage path's workspace (both operands
 * decoded to fp16, M*K + N*K halves); a call given less (0 included) runs the fused kernel, which
 * needs none but is slower (docs/perf/nvfp4-gemm.md). The same
 * arguments give the same size on the same device. Writes *bytes only on success.
 * Aliasing: as lowp_gemm, without the workspace; writes *bytes only.
 */
LOWP_API lowp_status lowp_gemm_workspace_size(const lowp_quantized_tensor* a, lowp_orientation a_copy,
                                              const lowp_quantized_tensor* b, lowp_orientation b_copy,
                                              const lowp_tensor* d, const lowp_gemm_config* cfg,
                                              size_t* bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOWP_GEMM_H */
