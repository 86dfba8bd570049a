// Built-in LLM-like test tensors, generated as bf16 from a fixed seed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host_tensor.h"

namespace lowp_cli {

struct SyntheticSpec {
  std::string kind;     // "gaussian", "student_t3", "outlier_cols", "zero_rows", "weight"
  std::string summary;  // one line for --help and JSON
  int64_t rows;
  int64_t cols;
};

// Every kind at each of a few realistic shapes; `quick` uses small shapes (seconds on a CPU).
std::vector<SyntheticSpec> synthetic_specs(bool quick);

// Deterministic for (spec, seed): mt19937_64 plus our own Box-Muller and Student-t, never
// <random>'s distributions, whose algorithms differ between standard libraries.
HostTensor make_synthetic(const SyntheticSpec& spec, uint64_t seed);

}  // namespace lowp_cli
