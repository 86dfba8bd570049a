#include "api/gemm_operands.h"

#include <cstdio>

#include "core/enums.h"
#include "core/error.h"
#include "core/growable.h"
#include "core/validate.h"
#include "numerics/nvfp4_scaling.h"
#include "recipes/nvfp4_rules.h"

namespace lowp::gemm_api {
namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

const char* family_name(Family f) {
  switch (f) {
    case Family::kFp8PerTensor: return "FP8 per-tensor (DELAYED or CURRENT)";
    case Family::kFp8PerToken: return "FP8 per-token (PER_TOKEN)";
    case Family::kNvfp4PerTensor: return "NVFP4 per-tensor (NVFP4_PER_TENSOR)";
    case Family::kNvfp4PerToken: return "NVFP4 per-token (NVFP4_PER_TOKEN)";
    case Family::kNvfp4RowScaled: return "NVFP4 row-scaled (NVFP4_ROW_SCALED)";
  }
  return "?";
}

lowp_status family_of(const lowp_quantized_tensor& q, const char* name, Family* f) {
  const int dtype = raw(q.dtype), s = raw(q.scaling);
  if (dtype == LOWP_DTYPE_E2M1) {
    switch (s) {
      case LOWP_SCALING_NVFP4_PER_TENSOR: *f = Family::kNvfp4PerTensor; return LOWP_SUCCESS;
      case LOWP_SCALING_NVFP4_PER_TOKEN: *f = Family::kNvfp4PerToken; return LOWP_SUCCESS;
      case LOWP_SCALING_NVFP4_ROW_SCALED: *f = Family::kNvfp4RowScaled; return LOWP_SUCCESS;
      default: break;
    }
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s->scaling %s does not fit dtype E2M1; expected LOWP_SCALING_NVFP4_PER_TENSOR, "
                "LOWP_SCALING_NVFP4_PER_TOKEN or LOWP_SCALING_NVFP4_ROW_SCALED",
                name, enum_text<lowp_scaling>(s).text);
  }
  if (dtype != LOWP_DTYPE_E4M3 && dtype != LOWP_DTYPE_E5M2)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->dtype is %s; a GEMM operand is E4M3, E5M2 or E2M1", name,
                enum_text<lowp_dtype>(dtype).text);
  if (s == LOWP_SCALING_DELAYED || s == LOWP_SCALING_CURRENT || s == LOWP_SCALING_PER_TOKEN) {
    *f = s == LOWP_SCALING_PER_TOKEN ? Family::kFp8PerToken : Family::kFp8PerTensor;
    return LOWP_SUCCESS;
  }
  return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s->scaling %s is not an FP8 scaling (DELAYED, CURRENT or PER_TOKEN)", name,
              enum_text<lowp_scaling>(s).text);
}

// A float pointer of the copy: not NULL and 4-byte aligned.
lowp_status check_floats(const void* p, const char* name, const char* why) {
  if (p == nullptr) return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is NULL; %s", name, why);
  return check_aligned(p, 4, name);
}

}  // namespace

lowp_status operand(const lowp_quantized_tensor* caller_q, const lowp_orientation& which, const char* name,
                    Operand* out) {
  LOWP_TRY(check_not_null(caller_q, name));
  lowp_quantized_tensor read;
  LOWP_TRY(read_quantized_tensor(caller_q, name, &read));
  const lowp_quantized_tensor* q = &read;
  char copy_arg[16];
  std::snprintf(copy_arg, sizeof copy_arg, "%s_copy", name);
  LOWP_TRY(check_orientation(which, copy_arg));
  Family f = Family::kFp8PerTensor;
  LOWP_TRY(family_of(*q, name, &f));
  LOWP_TRY(check_shape(q->rows, q->cols, name));
  const bool row = which == LOWP_ROWWISE;
  const char* orient = row ? "rowwise" : "columnwise";
  const lowp_quantized_part& part = row ? q->rowwise : q->columnwise;
  const int64_t rows = row ? q->rows : q->cols, k = row ? q->cols : q->rows;
  char data_name[48], scale_name[48], amax_name[48], tensor_scale_name[48], why[96];
  std::snprintf(data_name, sizeof data_name, "%s->%s.data", name, orient);
  std::snprintf(scale_name, sizeof scale_name, "%s->%s.scale_inv", name, orient);
  std::snprintf(amax_name, sizeof amax_name, "%s->%s.amax", name, orient);
  std::snprintf(tensor_scale_name, sizeof tensor_scale_name, "%s->scale_inv", name);
  std::snprintf(why, sizeof why, "%s %s reads the %s copy", copy_arg, row ? "LOWP_ROWWISE" : "LOWP_COLUMNWISE", orient);
  if (part.data == nullptr) return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is NULL; %s", data_name, why);

  // scale_layout is read (as an enum) only for NVFP4, after its check: FP8 callers may leave it unset.
  GemmOperand v{static_cast<const uint8_t*>(part.data), q->dtype, nullptr, LOWP_SCALE_LAYOUT_COMPACT, nullptr};
  float outer_max = num::kNvfp4OuterMax;
  switch (f) {
    case Family::kFp8PerTensor:
      LOWP_TRY(check_floats(q->scale_inv, tensor_scale_name, "FP8 per-tensor GEMMs multiply by the tensor's scale_inv"));
      v.outer = q->scale_inv;
      break;
    case Family::kFp8PerToken:
      LOWP_TRY(check_floats(part.scale_inv, scale_name, "FP8 per-token GEMMs multiply by the copy's scale_inv vector"));
      v.outer = static_cast<const float*>(part.scale_inv);
      break;
    case Family::kNvfp4PerTensor:
    case Family::kNvfp4PerToken:
    case Family::kNvfp4RowScaled:
      LOWP_TRY(nvfp4_outer_max_of(*q, name, &outer_max));
      if (k % 16 != 0)
        return fail(LOWP_ERROR_INVALID_ARGUMENT,
                    "%s's %s copy has K = %lld; NVFP4 needs K %% 16 == 0 (16-element blocks along K)", name, orient,
                    ll(k));
      if (!known<lowp_scale_layout>(raw(q->scale_layout)))
        return fail(LOWP_ERROR_INVALID_ARGUMENT,
                    "%s->scale_layout is %s; expected LOWP_SCALE_LAYOUT_COMPACT or LOWP_SCALE_LAYOUT_SWIZZLED", name,
                    enum_text(q->scale_layout).text);
      if (part.scale_inv == nullptr)
        return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is NULL; NVFP4 GEMMs read the copy's block scales", scale_name);
      LOWP_TRY(check_floats(part.amax, amax_name, "NVFP4 GEMMs multiply by the copy's outer amax"));
      v.block_scales = static_cast<const uint8_t*>(part.scale_inv);
      v.scale_layout = q->scale_layout;
      v.outer = part.amax;
      break;
  }
  *out = {f, rows, k, v, outer_max};
  return LOWP_SUCCESS;
}

lowp_status check_pair(const Operand& a, const Operand& b) {
  if (a.family != b.family)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "a is %s but b is %s; both GEMM operands must come from one recipe family", family_name(a.family),
                family_name(b.family));
  if (a.k != b.k)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "the chosen copies have different K: a's is %lld x %lld, b's is %lld x %lld (D = A . B^T needs "
                "A's cols == B's cols)",
                ll(a.rows), ll(a.k), ll(b.rows), ll(b.k));
  if (!is_fp8(a.family)) return LOWP_SUCCESS;
  if (a.view.dtype == LOWP_DTYPE_E5M2 && b.view.dtype == LOWP_DTYPE_E5M2)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "a and b are both E5M2; FP8 GEMMs take E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 (Hopper's tensor "
                "cores have no E5M2 x E5M2)");
  if (a.k % 16 != 0 || b.rows % 16 != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "FP8 GEMM with K = %lld and N = %lld; cuBLASLt's FP8 kernels need K %% 16 == 0 and N %% 16 == 0 "
                "(16-byte-aligned rows of the operands and of D)",
                ll(a.k), ll(b.rows));
  return LOWP_SUCCESS;
}

}  // namespace lowp::gemm_api
