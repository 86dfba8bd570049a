// CPU reference of lowp_gemm (numerics §8): both operands decoded to their exact values
// (src/numerics), every product formed exactly in fp64 (two 24-bit significands fit in 53) and
// summed in fp64, the sum rounded to fp32 once, then the epilogue of numerics/gemm.h in its order.
// Blocks of rows of D are split over threads; each block reuses one row of B for all its rows.
#include <algorithm>
#include <new>
#include <vector>

#include "core/error.h"
#include "core/gemm_args.h"
#include "cpu/elements.h"
#include "cpu/nvfp4/scales.h"
#include "cpu/parallel.h"
#include "numerics/gemm.h"

namespace lowp::cpu {
namespace {

constexpr int64_t kRowBlock = 16;

// rows x k exact values of an operand, row-major.
std::vector<float> decode(const GemmOperand& op, int64_t rows, int64_t k) {
  std::vector<float> v(static_cast<size_t>(rows * k));
  parallel_for(rows, 64, [&](int64_t r0, int64_t r1) {
    if (op.dtype == LOWP_DTYPE_E2M1) {
      const ScaleIndex scale_at(k / 16, op.scale_layout);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = 0; c < k; ++c)
          v[r * k + c] = num::nvfp4_gemm_value(num::e2m1_code_at(op.codes + r * (k / 2), c),
                                               op.block_scales[scale_at(r, c / 16)]);
    } else {
      const bool e4m3 = op.dtype == LOWP_DTYPE_E4M3;
      for (int64_t i = r0 * k; i < r1 * k; ++i) v[i] = e4m3 ? num::decode_e4m3(op.codes[i]) : num::decode_e5m2(op.codes[i]);
    }
  });
  return v;
}

// sum_k x[k] * y[k] in fp64, four partial sums (a fixed order, so the result is deterministic).
double dot(const float* x, const float* y, int64_t k) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    s0 += static_cast<double>(x[i]) * static_cast<double>(y[i]);
    s1 += static_cast<double>(x[i + 1]) * static_cast<double>(y[i + 1]);
    s2 += static_cast<double>(x[i + 2]) * static_cast<double>(y[i + 2]);
    s3 += static_cast<double>(x[i + 3]) * static_cast<double>(y[i + 3]);
  }
  for (; i < k; ++i) s0 += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  return (s0 + s1) + (s2 + s3);
}

// The outer scales of element (i, j) applied to its fp32 sum; alpha: the NVFP4 per-tensor scalar.
float outer(const GemmArgs& a, float alpha, int64_t i, int64_t j, float acc) {
  switch (a.outer) {
    case GemmOuter::kFp8PerTensor: return num::gemm_fp8_outer(a.a.outer[0], a.b.outer[0], acc);
    case GemmOuter::kFp8PerRow: return num::gemm_fp8_outer(a.a.outer[i], a.b.outer[j], acc);
    case GemmOuter::kNvfp4PerTensor: return num::mul_rn(alpha, acc);
    case GemmOuter::kNvfp4PerTokenFloored:
      return num::nvfp4_gemm_outer_per_row(num::nvfp4_per_token_amax(a.a.outer[i]),
                                           num::nvfp4_per_token_amax(a.b.outer[j]), a.inv_denominator, acc);
    case GemmOuter::kNvfp4PerRowRaw:
      return num::nvfp4_gemm_outer_per_row(a.a.outer[i], a.b.outer[j], a.inv_denominator, acc);
  }
  return acc;
}

}  // namespace

lowp_status gemm(const GemmArgs& a) {
  std::vector<float> av, bv;
  try {
    av = decode(a.a, a.m, a.k);
    bv = decode(a.b, a.n, a.k);
  } catch (const std::bad_alloc&) {  // before D is touched: nothing written
    return fail(LOWP_ERROR_OUT_OF_MEMORY,
                "lowp_gemm: out of host memory: the CPU reference cannot allocate %lld floats for the decoded "
                "operands; nothing written",
                static_cast<long long>((a.m + a.n) * a.k));
  }
  const float alpha = a.outer == GemmOuter::kNvfp4PerTensor
                          ? num::nvfp4_gemm_alpha(a.a.outer[0], a.b.outer[0], a.inv_denominator)
                          : 0.0f;
  const int64_t blocks = (a.m + kRowBlock - 1) / kRowBlock;
  parallel_for(blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t i0 = blk * kRowBlock, i1 = std::min(a.m, i0 + kRowBlock);
      for (int64_t j = 0; j < a.n; ++j) {
        const float* bj = bv.data() + j * a.k;
        for (int64_t i = i0; i < i1; ++i) {
          const float acc = static_cast<float>(dot(av.data() + i * a.k, bj, a.k));
          float r = outer(a, alpha, i, j, acc);
          if (a.bias != nullptr) r = num::gemm_add_bias(r, load_f32(a.bias, a.bias_dtype, j));
          const int64_t at = i * a.n + j;
          if (a.accumulate) r = num::gemm_accumulate(static_cast<const float*>(a.d)[at], r);
          store_f32(a.d, a.d_dtype, at, r);
        }
      }
    }
  });
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
