// What the NVFP4 recipes (per-tensor, per-token, row-scaled) share: q's outputs for x, the cfg knobs both
// read alike, the backend arguments of a part, the dequantize of one orientation and the buffer
// sizes. Messages name the argument and the rule (numerics §9).
#pragma once
#include <cstddef>
#include <cstdint>

#include "recipes/recipe.h"

namespace lowp {

// Bytes of one orientation's block-scale array: [roundup(rows,128)][roundup(blocks,4)].
size_t nvfp4_scale_array_bytes(int64_t rows, int64_t blocks);
// rows, blocks >= 1 and that array within 2^56 bytes (checked without overflow); `name` names the pair.
lowp_status check_scale_array(int64_t rows, int64_t blocks, const char* name);
// q's outputs for x: q's shape is x's, at least one part requested, K % 16 == 0, M % 16 == 0
// with the columnwise part, a known scale layout, each requested part's scale_inv and amax
// (not NULL, amax 4-byte aligned).
lowp_status check_nvfp4_outputs(const lowp_tensor& x, const lowp_quantized_tensor& q);
// The knobs both recipes read alike: FP8-only knobs off, a 16-bit rht_sign_mask with rht, an
// 8-byte-aligned rng_state with stochastic_rounding.
lowp_status check_nvfp4_config(const lowp_quant_config& c);
// 4over6 (numerics §5c): with cfg->four_over_six, no RHT, no SR, a known error measure and E 448
// or 256. `takes_it`: the recipe offers 4over6 (per-tensor, row-scaled); else it is refused,
// naming `recipe`.
lowp_status check_four_over_six(const lowp_quant_config& c, bool takes_it, const char* recipe);
// The backend's 4over6 arguments of cfg c (off unless c.four_over_six).
Nvfp4FourOverSix nvfp4_four_over_six(const lowp_quant_config& c);
// lowp_quantize of an NVFP4 recipe records 6E in the caller's q->nvfp4_outer_max when its
// struct_size covers the member; with E = 256 it must.
lowp_status check_outer_max_recordable(const lowp_quantized_tensor* caller_q, const lowp_quant_config& c);
void record_outer_max(lowp_quantized_tensor* caller_q, const lowp_quant_config& c);
// A part's backend arguments (all NULL when it is not requested: data NULL).
Nvfp4Part nvfp4_part(const lowp_quantized_part& p);
// Every buffer of a quantize call in one memory space (returned).
lowp_status nvfp4_quantize_space(const void* x, const Nvfp4Part& row, const Nvfp4Part& col, const uint64_t* rng_state,
                                 MemorySpace* space);
// q->nvfp4_outer_max read (0 -> 2688) and checked: 2688, or 1536 for the recipes that offer
// 4over6; `name` is the argument in messages ("q", "a", "b").
lowp_status nvfp4_outer_max_of(const lowp_quantized_tensor& q, const char* name, float* out);
// lowp_dequantize: K % 16 == 0, M % 16 == 0 for the columnwise copy, a known layout, the part's
// scale_inv and amax, q->nvfp4_outer_max.
lowp_status check_nvfp4_dequantize(const DequantizeCall& c);
// The dequantize arguments of any NVFP4 recipe (the outer amax kind from q->scaling).
lowp_status nvfp4_dequantize_args(const DequantizeCall& c, DequantizeArgs* a, MemorySpace* space);
lowp_status nvfp4_dequantize_cpu(const DequantizeArgs& a);
lowp_status nvfp4_dequantize_cuda(const DequantizeArgs& a, void* stream);
// Sizes of both copies (the columnwise one only when rows % 16 == 0: else its sizes are 0); the
// amaxes: one float per orientation row with amax_per_row (per-token), else one per copy.
lowp_status nvfp4_sizes(int64_t rows, int64_t cols, bool amax_per_row, lowp_quantized_sizes* out);

}  // namespace lowp
