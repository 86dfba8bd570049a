// Recipe: FP8 E4M3/E5M2 with one scale per tensor, DELAYED (the given scale; max|x| folded into
// the amax history) or CURRENT (an amax pass, the scale from it). Both copies share q->scale,
// q->scale_inv and q->amax; lowp_quantize_dact runs it fused with an activation gradient.
#include "core/error.h"
#include "core/validate.h"
#include "recipes/fp8_rules.h"

namespace lowp {
namespace {

lowp_status validate(const QuantizeCall& c) {
  LOWP_TRY(check_fp8_call(c));
  LOWP_TRY(check_floats(c.q.scale, "q->scale", true));
  LOWP_TRY(check_floats(c.q.scale_inv, "q->scale_inv", true));
  return check_floats(c.q.amax, "q->amax", true);
}

lowp_status make_args(const QuantizeCall& c, QuantizeArgs* a, MemorySpace* space) {
  a->fp8 = fp8_args(c);
  a->fp8.scale = c.q.scale;
  a->fp8.scale_inv = c.q.scale_inv;
  a->fp8.amax = c.q.amax;
  return fp8_space(a->fp8, space);
}

lowp_status validate_dequantize(const DequantizeCall& c) { return check_floats(c.q.scale_inv, "q->scale_inv", true); }

lowp_status make_dequantize_args(const DequantizeCall& c, DequantizeArgs* a, MemorySpace* space) {
  return fp8_dequantize_args(c, c.q.scale_inv, false, a, space);
}

lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out) { return fp8_sizes(rows, cols, false, out); }

}  // namespace

extern const Recipe kFp8PerTensor = {
    "FP8 DELAYED/CURRENT scaling",
    {LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2},
    {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT},
    "LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT",
    /*fuses_dact=*/true,
    /*dequantize_reads_amax=*/false,
    {validate, make_args, fp8_quantize_cpu, fp8_quantize_cuda},
    {validate_dequantize, make_dequantize_args, fp8_dequantize_cpu, fp8_dequantize_cuda},
    sizes,
};

}  // namespace lowp
