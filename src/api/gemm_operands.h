// lowp_gemm's operand checks (lowp/gemm.h): each operand's recipe family and the chosen copy's
// buffers, then the pair's agreement (family, dtypes, K). Messages name the argument and the rule.
#pragma once
#include "core/gemm_args.h"
#include "lowp/lowp.h"

namespace lowp::gemm_api {

enum class Family { kFp8PerTensor, kFp8PerToken, kNvfp4PerTensor, kNvfp4PerToken, kNvfp4RowScaled };

inline bool is_fp8(Family f) { return f == Family::kFp8PerTensor || f == Family::kFp8PerToken; }

// The chosen copy of one operand: rows x k, its backend view, and NVFP4's outer maximum 6E
// (q->nvfp4_outer_max: 2688, or 1536 after 4over6 with E = 256).
struct Operand {
  Family family;
  int64_t rows, k;
  GemmOperand view;
  float outer_max;
};

// `q` (named `name`, e.g. "a"), its copy `which`: q not NULL, a known family, rows and cols >= 1,
// `which` a known orientation, and the copy's buffers present and aligned (data; FP8 per-tensor:
// q->scale_inv; FP8 per-token: the copy's scale_inv; NVFP4: a known scale layout, K % 16 == 0,
// the copy's scale_inv and amax, q->nvfp4_outer_max).
// `which` is taken by reference: it is read as an int before it is used as an enum (core/enums.h).
lowp_status operand(const lowp_quantized_tensor* q, const lowp_orientation& which, const char* name, Operand* out);

// Both operands of one family, FP8 dtypes Hopper's tensor cores take, equal K; FP8: K % 16 == 0 and
// N % 16 == 0 (N = b's rows).
lowp_status check_pair(const Operand& a, const Operand& b);

}  // namespace lowp::gemm_api
