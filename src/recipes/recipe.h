// A recipe descriptor: everything lowp_quantize, lowp_dequantize and lowp_quantized_sizes_query
// need to know about one recipe, as a row of the recipe table (table.cpp). The API layer
// (api/dispatch.cpp) finds the row of q's dtype and scaling and runs each op through it the same
// way: validate, make_args (which also finds the memory space of every pointer), then the cpu or
// the cuda backend. A new recipe is a new row (one file here) plus its backends' files
// (docs/adding-a-recipe.md).
#pragma once
#include <cstdint>
#include <span>

#include "core/fp8_args.h"
#include "core/memory.h"
#include "core/nvfp4_args.h"
#include "lowp/lowp.h"

namespace lowp {

// lowp_quantize / lowp_quantize_dact as the recipe sees it: x checked (a dense tensor), q and cfg
// read through their struct_size (cfg: the defaults when NULL).
struct QuantizeCall {
  const lowp_tensor& x;
  const void* act_input;  // lowp_quantize_dact: the activation input (checked aligned); else NULL
  int act;                // its lowp_activation, or -1
  const lowp_quantized_tensor& q;
  const lowp_quant_config& cfg;
};

// lowp_dequantize of one orientation: q's shape checked, `out` checked (a dense tensor of the
// orientation's shape) and part.data (the orientation's codes) not NULL.
struct DequantizeCall {
  const lowp_quantized_tensor& q;
  lowp_orientation which;
  const lowp_tensor& out;
  const lowp_quantized_part& part;  // q.rowwise or q.columnwise
  int64_t rows, cols;               // of the orientation
};

// The backend arguments of every recipe, one member each (a recipe reads its own).
union QuantizeArgs {
  Fp8QuantizeArgs fp8;
  Nvfp4QuantizeArgs nvfp4;
  Nvfp4PerTokenArgs nvfp4_per_token;
};
union DequantizeArgs {
  Fp8DequantizeArgs fp8;
  Nvfp4DequantizeArgs nvfp4;
};

// One op of a recipe. validate checks every rule of the call (nothing written on failure);
// make_args, after it, fills the backend arguments and checks that all their pointers share one
// memory space (returned); cpu and cuda run them.
template <typename Call, typename Args>
struct RecipeOp {
  lowp_status (*validate)(const Call& call);
  lowp_status (*make_args)(const Call& call, Args* args, MemorySpace* space);
  lowp_status (*cpu)(const Args& args);
  lowp_status (*cuda)(const Args& args, void* stream);
};

struct Recipe {
  const char* name;  // in messages, e.g. "NVFP4 per-token"
  lowp_dtype dtypes[2];     // the quantized dtypes it makes (a second entry repeats the first when one)
  lowp_scaling scalings[2]; // the scalings that select it (likewise)
  const char* scaling_names;  // the scalings, as messages list them ("LOWP_SCALING_X, ...")
  bool fuses_dact;            // lowp_quantize_dact runs it
  bool dequantize_reads_amax; // lowp_dequantize reads the part's amax (else it may overlap out)
  RecipeOp<QuantizeCall, QuantizeArgs> quantize;
  RecipeOp<DequantizeCall, DequantizeArgs> dequantize;
  // lowp_quantized_sizes_query; rows, cols checked >= 1 and in range.
  lowp_status (*sizes)(int64_t rows, int64_t cols, lowp_quantized_sizes* out);

  bool makes(lowp_dtype d) const { return d == dtypes[0] || d == dtypes[1]; }
  bool takes(lowp_dtype d, lowp_scaling s) const { return makes(d) && (s == scalings[0] || s == scalings[1]); }
};

// Every recipe, in the order messages list them (table.cpp).
std::span<const Recipe* const> recipe_table();

}  // namespace lowp
