// `lowp report`'s GEMM view: for a tensor triple of a linear layer y = x W^T (x: tokens x in,
// W: out x in, dy: tokens x out), the SNR of each recipe's three products (fprop y = x W^T,
// dgrad dx = dy W, wgrad dW = dy^T x, each one lowp_gemm on the copies lowp_quantize made)
// against the fp64 product of the unquantized tensors, and per-token minus per-tensor.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "device_buffers.h"
#include "host_tensor.h"
#include "lowp/lowp.h"
#include "recipes.h"

namespace lowp_cli {

struct GemmTriple {
  std::string name;    // a built-in triple's name, or the --gemm-triple value
  std::string source;  // "synthetic" or the .safetensors path
  HostTensor x, w, dy;
};

// How each tensor of a triple is quantized (both copies): the shipped defaults of one family.
struct GemmRecipe {
  struct Operand {
    lowp_dtype dtype;
    lowp_scaling scaling;
    void (*tune)(lowp_quant_config& cfg);  // may be null
  };
  const char* name;
  const char* summary;
  Operand x, w, dy;
  const char* baseline;  // a per-token recipe: the per-tensor recipe it is compared with; else null
};
std::span<const GemmRecipe> gemm_recipe_table();

constexpr int kGemmProducts = 3;
extern const char* const kGemmProductNames[kGemmProducts];  // fprop, dgrad, wgrad

struct GemmRecord {
  std::string triple, source, backend, recipe;
  int64_t tokens = 0, in = 0, out = 0;
  RunStatus status = RunStatus::kOk;
  std::string message;                 // not ok: why
  double snr_db[kGemmProducts] = {};  // ok: fprop, dgrad, wgrad
};

// The built-in triples: Gaussian activations, and 4 outlier channels x100 with Student-t
// gradients; W weight-like in both. quick: small shapes.
std::vector<GemmTriple> synthetic_triples(bool quick, uint64_t seed);

// "x=NAME,w=NAME,dy=NAME" (any order, each once): the tensor names of a triple. Throws
// std::invalid_argument naming what is wrong.
struct GemmTripleNames {
  std::string x, w, dy;
};
GemmTripleNames parse_gemm_triple(const std::string& spec);

// Throws std::invalid_argument unless x is tokens x in, W out x in and dy tokens x out.
void check_gemm_triple_shapes(const GemmTriple& t);

// Every recipe of the table on t. Library errors come back in the records (status error stops
// the report, as for the tensor records); dims not multiples of 16 give skipped records.
std::vector<GemmRecord> run_gemm_view(const GemmTriple& t, Backend b);

void print_gemm_view(std::ostream& out, const std::vector<GemmRecord>& records);

// One JSON record per triple x recipe ("kind": "gemm"), appended to `all`.
void append_gemm_json(nlohmann::ordered_json& all, const std::vector<GemmRecord>& records);

}  // namespace lowp_cli
