// POD arguments of the NVFP4 operations (per-tensor and per-token recipes), shared by the CPU and
// CUDA backends. The recipes (src/recipes) and the API entries fill them after validation (shapes,
// combinations, pointers); backends trust them.
#pragma once
#include <cstdint>

#include "core/views.h"
#include "lowp/lowp.h"

namespace lowp {

// One orientation's outputs. codes == nullptr: orientation not requested (nothing touched).
struct Nvfp4Part {
  uint8_t* codes;   // rows x cols/2 bytes of this orientation
  uint8_t* scales;  // [scale_rows_padded(rows)][scale_cols_padded(cols/16)] UE4M3, all written
  float* amax;      // per-tensor: 1 float; per-token: one per row of this orientation.
                    // Written, or read when amax_given.
};

// lowp_quantize with E2M1 + NVFP4_PER_TENSOR (SPEC §3, §4, §6, §7; lowp.h documents the rules).
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
};

// lowp_dequantize of one NVFP4 orientation (rows x cols of that orientation), either recipe.
struct Nvfp4DequantizeArgs {
  const uint8_t* codes;
  const uint8_t* scales;
  const float* amax;  // per-tensor: 1 float; per-token: `rows` floats
  int64_t rows;
  int64_t cols;  // % 16 == 0
  lowp_scale_layout scale_layout;
  void* out;
  lowp_dtype out_dtype;
};

// lowp_nvfp4_swizzle_scales: compact -> swizzled, padded sizes from rows and blocks.
struct Nvfp4SwizzleArgs {
  const uint8_t* compact;
  uint8_t* swizzled;
  int64_t rows;
  int64_t blocks;
};

// lowp_quantize with E2M1 + NVFP4_PER_TOKEN (SPEC §3, §5, §6, §7): K2, preceded by K1 into the
// parts' amax arrays unless amax_given. Guaranteed by validation: x.cols % 16 == 0;
// x.rows % 16 == 0 if col.codes; rng_state != nullptr if stochastic_rounding.
struct Nvfp4PerTokenArgs {
  DenseView x;  // M x K
  lowp_scale_layout scale_layout;
  Nvfp4Part row;  // M x K codes, M amaxes
  Nvfp4Part col;  // K x M codes (x^T, unnormalised-RHT domain when rht), K amaxes
  bool rht;       // columnwise only, fp32 (no bf16 round trip)
  uint32_t rht_sign_mask;  // 16 bits
  bool stochastic_rounding;
  const uint64_t* rng_state;  // {seed, offset}
  bool amax_given;
};

// K1 alone (lowp_nvfp4_amax_per_token): row_amax[M], col_amax[K]; either may be null.
// Guaranteed: x.rows % 16 == 0 if col_amax && rht.
struct Nvfp4PerTokenAmaxArgs {
  DenseView x;
  float* row_amax;
  float* col_amax;
  bool rht;
  uint32_t rht_sign_mask;
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
