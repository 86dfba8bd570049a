// POD arguments of the FP8 operations, shared by the CPU and CUDA backends. The recipes (src/recipes)
// and the API entries fill them after validation; backends trust them.
#pragma once
#include <cstdint>

#include "core/views.h"
#include "lowp/lowp.h"

namespace lowp {

// One FP8 quantize call (any scaling). Null code pointers = orientation not requested.
struct Fp8QuantizeArgs {
  DenseView x;
  lowp_dtype out_dtype;  // E4M3 or E5M2
  lowp_scaling scaling;  // DELAYED, CURRENT or PER_TOKEN
  // Backward cast: the value quantized is dact(act_input) * x, with x the gradient. act < 0: none.
  const void* act_input;
  int act;
  float amax_epsilon;
  bool power_of_two_scale;
  uint8_t* row_codes;  // rows x cols
  uint8_t* col_codes;  // cols x rows
  // Per-tensor state (DELAYED, CURRENT).
  float* scale;
  float* scale_inv;
  float* amax;
  // Per-token state: one float per orientation row.
  float* row_scale_inv;
  float* row_amax;
  float* col_scale_inv;
  float* col_amax;
};

// Dequantize one orientation: out[r][c] = decode(codes[r][c]) * scale_inv (per-tensor: [0];
// per-row: [r]).
struct Fp8DequantizeArgs {
  const uint8_t* codes;
  lowp_dtype code_dtype;
  int64_t rows;
  int64_t cols;
  const float* scale_inv;
  bool scale_per_row;
  void* out;
  lowp_dtype out_dtype;
};

struct DelayedUpdateArgs {
  int64_t num_tensors;
  int64_t history_len;
  float* amax_history;
  float* scale;
  float* scale_inv;
  float fp8_max;
  int margin;
  bool most_recent;
};

inline float fp8_max_of(lowp_dtype t) { return t == LOWP_DTYPE_E4M3 ? 448.0f : 57344.0f; }

}  // namespace lowp
