// Output of `lowp report`: aligned text tables or a JSON array, one record per tensor x recipe.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "gemm_view.h"
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
  NonFiniteCounts input_nonfinite;  // NaN / inf elements of the input (their errors are NaN)
  RecipeRun run;
};

// The same tensor of the same source, as quantized (records of one tensor are consecutive).
inline bool same_tensor(const Record& a, const Record& b) {
  return a.tensor == b.tensor && a.source == b.source && a.rows == b.rows && a.cols == b.cols;
}

// rows x cols as quantized; a tensor skipped as a whole shows its stored shape instead.
std::string shape_of(const Record& r);

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

// A 4over6 recipe against the recipe it varies (Recipe::four_over_six_base) on the same tensor,
// both run: rowwise SNR difference in dB (> 0: 4over6 is better).
struct FourOverSixDelta {
  const Record* four_over_six;
  const Record* base;
  double snr_db;
};
std::vector<FourOverSixDelta> four_over_six_deltas(const std::vector<Record>& records);

// Reasons (not run, rowwise copy only) go to numbered notes under the table, each printed once.
void print_table(std::ostream& out, const std::vector<Record>& records);

// The closing summary: per recipe, over the tensors, how many ran, the median and worst (lowest)
// SNR of each copy and which tensor had the worst, how many were not run and why; then the
// tensors not quantized at all, and a warning naming the tensors that hold NaN or Inf.
void print_summary(std::ostream& out, const std::vector<Record>& records);

// The tensors whose input holds NaN or Inf, one "name shape: N NaN, M Inf" each (empty: none).
std::vector<std::string> nonfinite_tensors(const std::vector<Record>& records);

// The NVFP4 sections under the main table: amax estimation on the RHT columnwise copies,
// per-token minus per-tensor SNR on the outlier-heavy tensors, and 4over6 (the blocks that kept
// map-4, SNR against the base recipe). Each prints only when it has rows.
void print_nvfp4_summaries(std::ostream& out, const std::vector<Record>& records);

// What every column and field means, for --help and the end of the text report.
extern const char* const kMetricsHelp;

// One JSON array: the tensor records ("kind": "tensor"), then the GEMM view's ("kind": "gemm").
// Every number is a JSON number; a non-finite one (the SNR of an exact copy, NaN inputs) is null,
// and the record's "nonfinite" object maps its field name to "inf", "-inf" or "nan".
void print_json(std::ostream& out, const std::vector<Record>& records, const std::vector<GemmRecord>& gemm);

}  // namespace lowp_cli
