// Recipe: FP8 E4M3/E5M2 per-token: one scale per row of x for the rowwise copy and one per column
// of x for the columnwise copy, each from its own amax (an amax pass, then the cast). Each copy
// keeps its scale_inv and raw amaxes in its part of q.
#include "core/error.h"
#include "core/validate.h"
#include "recipes/fp8_rules.h"

namespace lowp {
namespace {

lowp_status check_part(const lowp_quantized_part& p, const char* scale_inv_name, const char* amax_name) {
  if (p.data == nullptr) return LOWP_SUCCESS;
  LOWP_TRY(check_floats(static_cast<const float*>(p.scale_inv), scale_inv_name, true));
  return check_floats(p.amax, amax_name, true);
}

lowp_status validate(const QuantizeCall& c) {
  LOWP_TRY(check_fp8_call(c));
  LOWP_TRY(check_part(c.q.rowwise, "q->rowwise.scale_inv", "q->rowwise.amax"));
  return check_part(c.q.columnwise, "q->columnwise.scale_inv", "q->columnwise.amax");
}

lowp_status make_args(const QuantizeCall& c, QuantizeArgs* a, MemorySpace* space) {
  a->fp8 = fp8_args(c);
  if (c.q.rowwise.data != nullptr) {
    a->fp8.row_scale_inv = static_cast<float*>(c.q.rowwise.scale_inv);
    a->fp8.row_amax = c.q.rowwise.amax;
  }
  if (c.q.columnwise.data != nullptr) {
    a->fp8.col_scale_inv = static_cast<float*>(c.q.columnwise.scale_inv);
    a->fp8.col_amax = c.q.columnwise.amax;
  }
  return fp8_space(a->fp8, space);
}

lowp_status validate_dequantize(const DequantizeCall& c) {
  return check_floats(static_cast<const float*>(c.part.scale_inv),
                      c.which == LOWP_ROWWISE ? "q->rowwise.scale_inv" : "q->columnwise.scale_inv", true);
}

lowp_status make_dequantize_args(const DequantizeCall& c, DequantizeArgs* a, MemorySpace* space) {
  return fp8_dequantize_args(c, static_cast<const float*>(c.part.scale_inv), true, a, space);
}

lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out) { return fp8_sizes(rows, cols, true, out); }

}  // namespace

extern const Recipe kFp8PerToken = {
    "FP8 PER_TOKEN scaling",
    {LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2},
    {LOWP_SCALING_PER_TOKEN, LOWP_SCALING_PER_TOKEN},
    "LOWP_SCALING_PER_TOKEN",
    /*fuses_dact=*/false,
    /*dequantize_reads_amax=*/false,
    {validate, make_args, fp8_quantize_cpu, fp8_quantize_cuda},
    {validate_dequantize, make_dequantize_args, fp8_dequantize_cpu, fp8_dequantize_cuda},
    sizes,
};

}  // namespace lowp
