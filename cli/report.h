// Output of `lowp report`: aligned text tables or a JSON array, one record per tensor x recipe.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "lowp/lowp.h"
#include "recipes.h"

namespace lowp_cli {

struct Record {
  std::string tensor;
  std::string source;  // "synthetic" or the .safetensors path
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int64_t> shape;  // as stored (N-D); quantized as rows x cols
  std::string dtype;           // input dtype ("bf16", or as in the file when skipped)
  std::string recipe;          // "" for a tensor skipped as a whole (not a matrix of F32/F16/BF16)
  std::string backend;
  double peak_to_rms = 0;      // of the input (metrics.h); 0 for a tensor skipped as a whole
  RecipeRun run;
};

// A tensor is outlier-heavy when max|x| / rms(x) exceeds this: a Gaussian tensor stays near
// sqrt(2 ln n) (under 6 up to 16M elements), a few channels 100x the rest go far above it.
constexpr double kOutlierPeakToRms = 10.0;
inline bool outlier_heavy(const Record& r) { return r.peak_to_rms > kOutlierPeakToRms; }

// A per-token recipe against its per-tensor baseline (Recipe::baseline) on the same tensor,
// both run: SNR differences in dB (per-token minus per-tensor; > 0: per-token is better).
struct PerTokenDelta {
  const Record* per_token;
  const Record* per_tensor;
  double snr_db;      // rowwise copies
  double col_snr_db;  // columnwise copies, each in its domain (the same domain for both)
};
std::vector<PerTokenDelta> per_token_deltas(const std::vector<Record>& records);

// Unsupported messages go to numbered notes under the table, so each is printed once.
void print_table(std::ostream& out, const std::vector<Record>& records);

// The NVFP4 sections under the main table: amax estimation on the RHT columnwise copies, and
// per-token minus per-tensor SNR on the outlier-heavy tensors. Each prints only when it has rows.
void print_nvfp4_summaries(std::ostream& out, const std::vector<Record>& records);

// What every column and field means, for --help and the end of the text report.
extern const char* const kMetricsHelp;

// Non-finite numbers (SNR of an exact copy, NaN inputs) are the strings "inf", "-inf", "nan".
void print_json(std::ostream& out, const std::vector<Record>& records);

}  // namespace lowp_cli
