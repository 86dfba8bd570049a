// NVFP4 validation and dispatch, called from the shared entry points in fp8_api.cpp
// (lowp_quantize, lowp_dequantize, lowp_quantized_sizes_query) once the checks common to every
// recipe passed (x or out checked, q not NULL, dtype + scaling = E2M1 + an NVFP4 scaling).
// nvfp4_api: the per-tensor recipe, and the checks both NVFP4 recipes share.
// nvfp4_per_token_api (nvfp4_per_token_api.cpp): the per-token recipe.
#pragma once
#include "core/nvfp4_args.h"
#include "lowp/lowp.h"
#include "core/memory.h"

namespace lowp::nvfp4_api {

lowp_status quantize(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config* cfg,
                     void* stream);
// part.data of the orientation was checked non-NULL; out's shape matches the orientation.
lowp_status dequantize(const lowp_quantized_tensor& q, lowp_orientation which, const lowp_tensor& out,
                       void* stream);
// rows, cols checked >= 1 and in range.
lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out);

// Shared by both recipes.
// Bytes of one orientation's block-scale array: [roundup(rows,128)][roundup(blocks,4)].
size_t scale_array_bytes(int64_t rows, int64_t blocks);
// q's outputs for x: q's shape is x's, at least one part requested, K % 16 == 0, M % 16 == 0
// with the columnwise part, a known scale layout, each requested part's scale_inv and amax
// (not NULL, amax 4-byte aligned). Reports which parts are requested.
lowp_status check_outputs(const lowp_tensor& x, const lowp_quantized_tensor& q, bool* want_row, bool* want_col);
lowp_status check_m_for_columnwise(int64_t rows, const char* name);
// The knobs both recipes read alike: FP8-only knobs off, a 16-bit rht_sign_mask with rht, an
// 8-byte-aligned rng_state with stochastic_rounding.
lowp_status check_common_config(const lowp_quant_config& c);
// *cfg, or the defaults when cfg is NULL.
lowp_quant_config resolve_config(const lowp_quant_config* cfg);
Nvfp4Part part_args(const lowp_quantized_part& p, bool wanted);
// Every buffer of a quantize call in one memory space (returned).
lowp_status quantize_space(const void* x, const Nvfp4Part& row, const Nvfp4Part& col, const uint64_t* rng_state,
                           MemorySpace* space);
// lowp_dequantize: checks (K, M with columnwise, layout, the part's scale_inv and amax), then the
// backend arguments and their memory space.
lowp_status dequantize_args(const lowp_quantized_tensor& q, lowp_orientation which, const lowp_tensor& out,
                            Nvfp4DequantizeArgs* a, MemorySpace* space);

}  // namespace lowp::nvfp4_api

namespace lowp::nvfp4_per_token_api {

lowp_status quantize(const lowp_tensor& x, const lowp_quantized_tensor& q, const lowp_quant_config* cfg,
                     void* stream);
lowp_status dequantize(const lowp_quantized_tensor& q, lowp_orientation which, const lowp_tensor& out,
                       void* stream);
lowp_status sizes(int64_t rows, int64_t cols, lowp_quantized_sizes* out);
// The per-token recipe's cfg rules: no block_2d, no amax_estimation, then the common ones.
lowp_status check_config(const lowp_quant_config& c);

}  // namespace lowp::nvfp4_per_token_api
