// The recipe table: each quantization recipe the report runs is one entry of kRecipes, driven
// only through the C API. Adding a recipe = adding an entry.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "device_buffers.h"
#include "host_tensor.h"
#include "lowp/lowp.h"
#include "metrics.h"

namespace lowp_cli {

struct Recipe {
  const char* name;     // id in tables and JSON
  const char* summary;  // one line for --help
  lowp_dtype dtype;
  lowp_scaling scaling;
  // Also produce the columnwise copy in the same call, as training does (dgrad/wgrad need it);
  // the time includes it, the metrics are the rowwise copy's.
  bool columnwise;
  void (*tune)(lowp_quant_config& cfg);                   // recipe knobs over the defaults; may be null
  const char* (*shape_rule)(int64_t rows, int64_t cols);  // why a shape is skipped; may be null
};

std::span<const Recipe> recipe_table();

// One tensor, resident where the backend computes, plus its exact fp32 values for the metrics.
struct PreparedInput {
  PreparedInput(const HostTensor& t, Backend b);
  const HostTensor& host;
  std::vector<float> values;
  Buffer x;
  lowp_tensor view() const { return {x.data(), host.dtype, host.rows, host.cols}; }
};

enum class RunStatus { kOk, kUnsupported, kSkipped, kError };
const char* status_name(RunStatus s);

struct RecipeRun {
  RunStatus status = RunStatus::kOk;
  std::string message;  // unsupported / skipped / error: why
  ErrorStats stats;     // rowwise copy vs the input
  double saturated_pct = 0;
  double time_ms = 0;  // lowp_quantize wall clock incl. its amax pass (CUDA: median of 5 after a warm-up)
};

// Never throws for library or CUDA errors: they come back as kUnsupported / kError.
RecipeRun run_recipe(const Recipe& r, const PreparedInput& in, Backend b);

}  // namespace lowp_cli
