// Output of `lowp report`: an aligned text table or a JSON array, one record per tensor x recipe.
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
  RecipeRun run;
};

// Unsupported messages go to numbered notes under the table, so each is printed once.
void print_table(std::ostream& out, const std::vector<Record>& records);

// Non-finite numbers (SNR of an exact copy, NaN inputs) are the strings "inf", "-inf", "nan".
void print_json(std::ostream& out, const std::vector<Record>& records);

}  // namespace lowp_cli
