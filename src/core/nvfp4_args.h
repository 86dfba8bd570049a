// POD arguments of the NVFP4 operations (per-tensor, per-token and row-scaled recipes), shared by
// the CPU and CUDA backends. The recipes (src/recipes) and the API entries fill them after validation (shapes,
// combinations, pointers); backends trust them.
#pragma once
#include <cstdint>

#include "core/views.h"
#include "lowp/lowp.h"
#include "numerics/nvfp4_scaling.h"

namespace lowp {

// One orientation's outputs. codes == nullptr: orientation not requested (nothing touched).
struct Nvfp4Part {
  uint8_t* codes;   // rows x cols/2 bytes of this orientation
  uint8_t* scales;  // [scale_rows_padded(rows)][scale_cols_padded(cols/16)] UE4M3, all written
  float* amax;      // per-tensor: 1 float; per-token, row-scaled: one per row of this
                    // orientation. Written, or read when amax_given.
};

// 4over6 adaptive block scaling (numerics §5c): off, or its error measure and outer maximum 6E.
// Guaranteed by validation: only with the per-tensor or the row-scaled math, never with RHT or SR.
struct Nvfp4FourOverSix {
  bool on;
  bool mse;         // error: sum of squares, else of absolute differences
  float outer_max;  // 6E: num::kNvfp4OuterMax, or num::kNvfp4OuterMax256
};

// lowp_quantize with E2M1 + NVFP4_PER_TENSOR (numerics §3, §4, §6, §7; lowp.h documents the rules).
// Guaranteed by validation: x.cols % 16 == 0; x.rows % 16 == 0 if col.codes or block_2d;
// not (block_2d && (rht || stochastic_rounding)); rng_state != nullptr if stochastic_rounding;
// amax_estimation_factor finite and > 0 if amax_estimation.
struct Nvfp4QuantizeArgs {
  DenseView x;  // M x K
  lowp_scale_layout scale_layout;
  Nvfp4Part row;  // M x K
  Nvfp4Part col;  // K x M (x^T, RHT domain when rht)
  bool rht;
  uint32_t rht_sign_mask;  // 16 bits
  bool block_2d;
  bool stochastic_rounding;
  const uint64_t* rng_state;  // {seed, offset}
  bool amax_estimation;       // columnwise with rht only
  float amax_estimation_factor;
  bool amax_given;
  Nvfp4FourOverSix four_over_six;
};

// Which outer amax each orientation row of an NVFP4 copy dequantizes with.
enum class Nvfp4OuterAmax {
  kPerTensor,      // the copy's one amax
  kPerRowFloored,  // per-token: max(amax[r], 1e-12), as its encoder (numerics §5)
  kPerRowRaw,      // row-scaled: amax[r] (numerics §5b)
};

// lowp_dequantize of one NVFP4 orientation (rows x cols of that orientation), any recipe.
struct Nvfp4DequantizeArgs {
  const uint8_t* codes;
  const uint8_t* scales;
  const float* amax;  // kPerTensor: 1 float; per row: `rows` floats
  int64_t rows;
  int64_t cols;  // % 16 == 0
  lowp_scale_layout scale_layout;
  void* out;
  lowp_dtype out_dtype;
  Nvfp4OuterAmax outer_amax;
  float outer_max;  // 6E: 2688, or 1536 (4over6 with E = 256)
};

// The amax A that orientation row r of a dequantize decodes with.
LOWP_HD float nvfp4_dequantize_amax(const Nvfp4DequantizeArgs& a, int64_t r) {
  switch (a.outer_amax) {
    case Nvfp4OuterAmax::kPerTensor: return a.amax[0];
    case Nvfp4OuterAmax::kPerRowFloored: return num::nvfp4_per_token_amax(a.amax[r]);
    case Nvfp4OuterAmax::kPerRowRaw: break;
  }
  return a.amax[r];
}

// lowp_nvfp4_swizzle_scales: compact -> swizzled, padded sizes from rows and blocks.
struct Nvfp4SwizzleArgs {
  const uint8_t* compact;
  uint8_t* swizzled;
  int64_t rows;
  int64_t blocks;
};

// lowp_quantize with E2M1 + NVFP4_PER_TOKEN (numerics §3, §5, §6, §7), or with row_scaled
// NVFP4_ROW_SCALED (numerics §5b: the same outer amaxes, the per-tensor math per row): K2,
// preceded by K1 into the parts' amax arrays unless amax_given. Guaranteed by validation:
// x.cols % 16 == 0; x.rows % 16 == 0 if col.codes; rng_state != nullptr if stochastic_rounding;
// four_over_six only with row_scaled.
struct Nvfp4PerTokenArgs {
  DenseView x;  // M x K
  lowp_scale_layout scale_layout;
  Nvfp4Part row;  // M x K codes, M amaxes
  Nvfp4Part col;  // K x M codes (x^T, or its RHT domain when rht), K amaxes
  bool rht;       // columnwise only; per-token: fp32, row-scaled: rounded to bf16 (as per-tensor)
  uint32_t rht_sign_mask;  // 16 bits
  bool stochastic_rounding;
  const uint64_t* rng_state;  // {seed, offset}
  bool amax_given;
  bool row_scaled;
  Nvfp4FourOverSix four_over_six;
};

// K1 alone (lowp_nvfp4_amax_per_row): row_amax[M], col_amax[K]; either may be null. row_scaled:
// the column amaxes with RHT rounded to bf16 (num::nvfp4_row_scaled_rht_amax).
// Guaranteed: x.rows % 16 == 0 if col_amax && rht.
struct Nvfp4PerTokenAmaxArgs {
  DenseView x;
  float* row_amax;
  float* col_amax;
  bool rht;
  uint32_t rht_sign_mask;
  bool row_scaled;
};

// Grouped per-token (lowp_nvfp4_grouped_*): N members split along M of one R x K tensor; member
// t has member_rows[t] rows. rows_on_device: member_rows lives in device memory and was not read
// by the host; its rules (group_layout_rules.h, member_rows_ok) are checked on the device, a bad
// layout writes nothing and leaves its status in the workspace. Host arrays were checked before
// the call.
struct Nvfp4GroupRows {
  int64_t n;
  const int64_t* member_rows;
  bool rows_on_device;
  void* workspace;  // lowp_grouped_workspace_size(n) bytes (CUDA); may be null on the CPU
  int64_t row_multiple;  // every member's rows % row_multiple == 0 (nvfp4_group_row_multiple)
};

// The single-tensor arguments describe the whole buffer and the group's output arrays (layout in
// lowp.h, lowp_nvfp4_grouped_quantize).
struct Nvfp4GroupedArgs {
  Nvfp4PerTokenArgs t;
  Nvfp4GroupRows group;
};

struct Nvfp4GroupedAmaxArgs {
  Nvfp4PerTokenAmaxArgs t;  // col_amax: [n][K]
  Nvfp4GroupRows group;
};

}  // namespace lowp
