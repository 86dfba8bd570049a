// The recipe table: each quantization recipe the report runs is one entry of kRecipes, driven
// only through the C API. Adding a recipe = adding an entry.
#pragma once
#include <optional>
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
  // the time includes it, and it is measured against the exact transform it approximates.
  bool columnwise;
  void (*tune)(lowp_quant_config& cfg);                   // recipe knobs over the defaults; may be null
  const char* (*shape_rule)(int64_t rows, int64_t cols);  // why a shape is skipped; may be null
  // A per-row recipe (per-token, row-scaled): the per-tensor recipe of the same role it is
  // compared with; else null.
  const char* baseline;
  // A 4over6 recipe: the recipe it varies, whose rowwise copy is the same encode with the standard
  // block scale (the 4over6 section compares the two); else null.
  const char* four_over_six_base = nullptr;
};

std::span<const Recipe> recipe_table();

// The NVFP4 knobs of the shipped defaults (numerics §8 roles; per-token with the same RHT and SR
// choices, the amax estimation knobs being per-tensor only), as Recipe::tune functions.
void tune_nvfp4_input(lowp_quant_config& c);
void tune_nvfp4_weight(lowp_quant_config& c);
void tune_nvfp4_gradient(lowp_quant_config& c);
void tune_nvfp4_token_input(lowp_quant_config& c);
void tune_nvfp4_token_gradient(lowp_quant_config& c);
const Recipe* find_recipe(const std::string& name);  // null when no entry has that name

// One tensor, resident where the backend computes, plus its exact fp32 values for the metrics.
struct PreparedInput {
  PreparedInput(const HostTensor& t, Backend b);
  const HostTensor& host;
  std::vector<float> values;
  NonFiniteCounts nonfinite;
  Buffer x;
  lowp_tensor view() const { return {x.data(), host.dtype, host.rows, host.cols}; }
};

// ok: ran. skipped: not run, by this tool's own rule (the recipe's shape rule; a tensor that is
// not an F32/F16/BF16 matrix). unsupported: the library returned LOWP_ERROR_UNSUPPORTED (valid,
// but not built into this backend). error: the library or CUDA failed (the report stops there).
enum class RunStatus { kOk, kUnsupported, kSkipped, kError };
const char* status_name(RunStatus s);

// NVFP4 per-tensor with RHT: the same call again with cfg.amax_estimation = 1, so the columnwise
// amax is rowwise amax * factor instead of the exact post-RHT amax (one pass over x fewer).
struct AmaxEstimate {
  double factor = 0;            // cfg.amax_estimation_factor
  double amax_ratio = 0;        // estimated / exact columnwise amax; below 1 some blocks clip
  ErrorStats col_stats;         // the columnwise copy made with the estimate, same reference
  double clipped_fraction = 0;  // of columnwise blocks, see clipped_block_fraction()
};

struct RecipeRun {
  RunStatus status = RunStatus::kOk;
  std::string message;  // unsupported / skipped / error: why
  std::string note;     // ok, but something to know (e.g. the columnwise copy was not made)
  ErrorStats stats;     // rowwise copy vs the input
  double clipped_pct = 0;  // of the rowwise copy's elements, see clipped_percent()
  double time_ms = 0;  // lowp_quantize wall clock incl. its amax pass (CUDA: median of 5 after a warm-up)
  // Recipes with a columnwise copy: it vs columnwise_reference() in col_domain.
  std::optional<ErrorStats> col_stats;
  const char* col_domain = nullptr;  // "transpose" (x^T) or "rht16" (RHT16 * 0.25 of x^T's 16-blocks)
  std::optional<AmaxEstimate> estimate;
  // 4over6 recipes: the fraction of the rowwise copy's blocks that kept map-4 (their largest
  // value on 4): its block scale is the map-4 candidate and the two candidates differ.
  std::optional<double> map4_fraction;
};

// Never throws for library or CUDA errors: they come back as kUnsupported / kError.
RecipeRun run_recipe(const Recipe& r, const PreparedInput& in, Backend b);

}  // namespace lowp_cli
