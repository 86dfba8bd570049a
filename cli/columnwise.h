// What a columnwise copy approximates, computed exactly (double precision) from the input, and
// the NVFP4 amax-estimation clip count measured on it.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace lowp_cli {

// The values lowp_dequantize(LOWP_COLUMNWISE) approximates, cols x rows (x^T), row-major:
// - rht false: x^T itself;
// - rht true (rows % 16 == 0): each 16-row strip g of a column of x as RHT16(g, sign_mask) * 0.25
//   (numerics §7) in double. The NVFP4 per-tensor recipe encodes bf16 of that (numerics §4), the per-token
//   one the fp32 transform with the 0.25 folded into its multiplier (numerics §5); both dequantize to
//   this domain. The transform is orthogonal (H16 * 0.25 with signs), so errors measured here
//   are the errors of the copy a GEMM consumes, on the input's own energy.
std::vector<double> columnwise_reference(std::span<const float> x, int64_t rows, int64_t cols, bool rht,
                                         uint32_t sign_mask);

// Fraction of the 16-element blocks of `ref` (rows of `ref_cols` values, ref_cols % 16 == 0,
// blocks along each row) whose amax b exceeds `outer_amax`. Such a block's ideal decode scale
// b * S_enc / 6 = 448 * b / outer_amax is above E4M3's 448: its scale saturates at 448 and its
// largest values clip. With the exact outer amax no block clips; with an estimate some may.
// 0 for an empty `ref`.
double clipped_block_fraction(std::span<const double> ref, int64_t ref_cols, double outer_amax);

}  // namespace lowp_cli
