// The two backends' entry points. Each takes validated POD arguments; the CUDA ones enqueue on
// `stream` and return LOWP_ERROR_CUDA (with the message set) if a launch fails.
#pragma once
#include "core/fp8_args.h"
#include "core/grouped_args.h"
#include "core/nvfp4_args.h"

namespace lowp::cpu {
lowp_status fp8_quantize(const Fp8QuantizeArgs& a);
lowp_status fp8_dequantize(const Fp8DequantizeArgs& a);
lowp_status amax(const DenseView& x, float* amax);
lowp_status amax_per_token(const DenseView& x, float* row_amax, float* col_amax);
lowp_status fp8_delayed_update(const DelayedUpdateArgs& a);
lowp_status grouped_fp8_quantize(const GroupedFp8Args& a);
lowp_status grouped_amax(const GroupedFp8Args& a);  // uses x, layout, amax, amax_stride
lowp_status grouped_fp8_dequantize(const GroupedDequantizeArgs& a);
lowp_status nvfp4_quantize(const Nvfp4QuantizeArgs& a);
lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs& a);  // any recipe: a.outer_amax
lowp_status nvfp4_swizzle_scales(const Nvfp4SwizzleArgs& a);
lowp_status nvfp4_per_token_quantize(const Nvfp4PerTokenArgs& a);  // and row-scaled: a.row_scaled
lowp_status nvfp4_per_token_amax(const Nvfp4PerTokenAmaxArgs& a);
lowp_status nvfp4_grouped_quantize(const Nvfp4GroupedArgs& a);          // host member_rows
lowp_status nvfp4_grouped_amax(const Nvfp4GroupedAmaxArgs& a);          // host member_rows
lowp_status rng_advance(uint64_t* rng_state, uint64_t increment);
}  // namespace lowp::cpu

namespace lowp::cuda {
bool available();
lowp_status fp8_quantize(const Fp8QuantizeArgs& a, void* stream);
lowp_status fp8_dequantize(const Fp8DequantizeArgs& a, void* stream);
lowp_status amax(const DenseView& x, float* amax, void* stream);
lowp_status amax_per_token(const DenseView& x, float* row_amax, float* col_amax, void* stream);
lowp_status fp8_delayed_update(const DelayedUpdateArgs& a, void* stream);
lowp_status grouped_fp8_quantize(const GroupedFp8Args& a, void* stream);
lowp_status grouped_amax(const GroupedFp8Args& a, void* stream);
lowp_status grouped_fp8_dequantize(const GroupedDequantizeArgs& a, void* stream);
lowp_status grouped_layout_error(const void* workspace, int64_t* bad_plus_one, void* stream);
lowp_status nvfp4_quantize(const Nvfp4QuantizeArgs& a, void* stream);
lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs& a, void* stream);
lowp_status nvfp4_swizzle_scales(const Nvfp4SwizzleArgs& a, void* stream);
lowp_status nvfp4_per_token_quantize(const Nvfp4PerTokenArgs& a, void* stream);
lowp_status nvfp4_per_token_amax(const Nvfp4PerTokenAmaxArgs& a, void* stream);
lowp_status nvfp4_grouped_quantize(const Nvfp4GroupedArgs& a, void* stream);
lowp_status nvfp4_grouped_amax(const Nvfp4GroupedAmaxArgs& a, void* stream);
lowp_status rng_advance(uint64_t* rng_state, uint64_t increment, void* stream);
}  // namespace lowp::cuda
