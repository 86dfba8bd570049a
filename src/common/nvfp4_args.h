// POD arguments of the NVFP4 per-tensor operations, shared by the CPU and CUDA backends. The API
// layer fills them after validation (shapes, combinations, pointers); backends trust them.
#pragma once
#include <cstdint>

#include "fp8_args.h"  // DenseView
#include "lowp/lowp.h"

namespace lowp {

// One orientation's outputs. codes == nullptr: orientation not requested (nothing touched).
struct Nvfp4Part {
  uint8_t* codes;   // rows x cols/2 bytes of this orientation
  uint8_t* scales;  // [scale_rows_padded(rows)][scale_cols_padded(cols/16)] UE4M3, all written
  float* amax;      // 1 float: written, or read when amax_given
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

// lowp_dequantize of one NVFP4 per-tensor orientation (rows x cols of that orientation).
struct Nvfp4DequantizeArgs {
  const uint8_t* codes;
  const uint8_t* scales;
  const float* amax;
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

}  // namespace lowp
