// GEMM scalar rules (numerics §8): the decoded NVFP4 operand value and the epilogue steps, in
// the order the CPU reference and every CUDA GEMM kernel apply them to the fp32 sum acc.
#pragma once
#include "host_device.h"
#include "minifloat.h"
#include "nvfp4_scaling.h"

namespace lowp::num {

// Code k of a row of packed E2M1 codes (element 2j in bits 3:0, 2j+1 in bits 7:4).
LOWP_HD uint8_t e2m1_code_at(const uint8_t* packed_row, int64_t k) {
  const uint8_t byte = packed_row[k / 2];
  return static_cast<uint8_t>((k & 1) ? byte >> 4 : byte & 0xF);
}

// An NVFP4 operand element e2m1(q) * float(s): at most 6 significant bits and within
// 2^-10..2688, so exact in fp32 and in bf16, and the product of two such values is exact in fp32.
LOWP_HD float nvfp4_gemm_value(uint8_t code, uint8_t scale) { return mul_rn(decode_e2m1(code), decode_e4m3(scale)); }

// 1 / 2688^2 in fp32: the denominator of both NVFP4 outer-scale forms.
constexpr float kNvfp4GemmInvDenominator = 1.0f / (kNvfp4OuterMax * kNvfp4OuterMax);

// The denominator of operands encoded against outer maxima 6E_a and 6E_b (4over6, numerics §5c):
// 1 / (6E_a * 6E_b) in fp32 (the product is exact); kNvfp4GemmInvDenominator for 2688 and 2688.
LOWP_HD float nvfp4_gemm_inv_denominator(float outer_max_a, float outer_max_b) {
  return div_rn(1.0f, mul_rn(outer_max_a, outer_max_b));
}

// FP8, per-tensor and per-token alike: (sa * sb) * acc.
LOWP_HD float gemm_fp8_outer(float sa, float sb, float acc) { return mul_rn(mul_rn(sa, sb), acc); }

// NVFP4 per-tensor: alpha = (A_a * A_b) * inv_denominator, once per GEMM; then alpha * acc.
LOWP_HD float nvfp4_gemm_alpha(float amax_a, float amax_b, float inv_denominator) {
  return mul_rn(mul_rn(amax_a, amax_b), inv_denominator);
}
// NVFP4 per-row outer amaxes (per-token: already floored by nvfp4_per_token_amax; row-scaled:
// raw): inv_denominator * (A_b[j] * (A_a[i] * acc)).
LOWP_HD float nvfp4_gemm_outer_per_row(float amax_a_i, float amax_b_j, float inv_denominator, float acc) {
  return mul_rn(inv_denominator, mul_rn(amax_b_j, mul_rn(amax_a_i, acc)));
}

// After the outer scales: r + bias, then D_old + r (the accumulate step), each rounded to fp32.
LOWP_HD float gemm_add_bias(float r, float bias) { return add_rn(r, bias); }
LOWP_HD float gemm_accumulate(float d_old, float r) { return add_rn(d_old, r); }

}  // namespace lowp::num
