// The GEMM view's recipes, triples and runs (gemm_view.h); its output is gemm_view_output.cpp.
#include "gemm_view.h"

#include <stdexcept>

#include "exact_product.h"
#include "lowp/gemm.h"
#include "metrics.h"
#include "quantized_buffers.h"
#include "synthetic.h"

namespace lowp_cli {
namespace {

using Op = GemmRecipe::Operand;
constexpr Op kFp8E4m3{LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, nullptr};
constexpr Op kFp8Token{LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, nullptr};

const GemmRecipe kGemmRecipes[] = {
    {"fp8_current", "FP8 current scaling: x, W E4M3, dy E5M2 (dgrad and wgrad E5M2 x E4M3)", kFp8E4m3, kFp8E4m3,
     {LOWP_DTYPE_E5M2, LOWP_SCALING_CURRENT, nullptr}, nullptr},
    {"fp8_per_token", "FP8 E4M3 per-token (per-row scales; per-column on the columnwise copies)", kFp8Token, kFp8Token,
     kFp8Token, "fp8_current"},
    {"nvfp4_per_tensor", "NVFP4 per-tensor, role defaults: x input (RHT on the columnwise copy), W weight (16x16 "
                         "blocks), dy gradient (RHT + stochastic rounding)",
     {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, tune_nvfp4_input},
     {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, tune_nvfp4_weight},
     {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, tune_nvfp4_gradient}, nullptr},
    {"nvfp4_per_token", "NVFP4 per-token: x RHT on the columnwise copy, W plain, dy RHT + stochastic rounding",
     {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, tune_nvfp4_token_input},
     {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, nullptr},
     {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, tune_nvfp4_token_gradient}, "nvfp4_per_tensor"},
};

// One tensor quantized into both copies on the backend.
struct Operand {
  QuantizedBuffers qb;
  Buffer rng;
  bool columnwise_rht = false;
};

void quantize(Operand& o, const Op& r, const PreparedInput& in, Backend b) {
  allocate(o.qb, r.dtype, r.scaling, true, in.host, b);
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  if (r.tune != nullptr) r.tune(cfg);
  o.rng = stochastic_rounding_state(cfg, b);
  o.columnwise_rht = cfg.rht != 0;
  const lowp_tensor x = in.view();
  check(lowp_quantize(&x, &o.qb.q, &cfg, nullptr), "lowp_quantize");
}

// lowp_gemm with an fp32 D (m x n), downloaded.
std::vector<float> gemm(const Operand& a, lowp_orientation a_copy, const Operand& bo, lowp_orientation b_copy,
                        int64_t m, int64_t n, Backend b) {
  Buffer d(b, static_cast<size_t>(m * n) * sizeof(float));
  lowp_tensor dt{d.data(), LOWP_DTYPE_FLOAT32, m, n};
  lowp_gemm_config cfg;
  lowp_gemm_config_default(&cfg);
  cfg.a_columnwise_rht = a.columnwise_rht;
  cfg.b_columnwise_rht = bo.columnwise_rht;
  size_t ws = 0;
  check(lowp_gemm_workspace_size(&a.qb.q, a_copy, &bo.qb.q, b_copy, &dt, &cfg, &ws), "lowp_gemm_workspace_size");
  Buffer workspace(b, ws);
  check(lowp_gemm(&a.qb.q, a_copy, &bo.qb.q, b_copy, &dt, &cfg, workspace.data(), ws, nullptr), "lowp_gemm");
  synchronize(b);
  return d.download_all<float>();
}

HostTensor synthetic(const char* kind, int64_t rows, int64_t cols, uint64_t seed) {
  return make_synthetic({kind, "", rows, cols}, seed);
}

}  // namespace

const char* const kGemmProductNames[kGemmProducts] = {"fprop", "dgrad", "wgrad"};

std::span<const GemmRecipe> gemm_recipe_table() { return kGemmRecipes; }

std::vector<GemmTriple> synthetic_triples(bool quick, uint64_t seed) {
  const int64_t tokens = quick ? 128 : 1024, in = quick ? 256 : 1024, out = quick ? 128 : 512;
  const uint64_t dy_seed = seed ^ 0x6A09E667F3BCC908ull;  // gradients apart from activations of the same kind
  std::vector<GemmTriple> triples;
  triples.push_back({"gaussian", "synthetic", synthetic("gaussian", tokens, in, seed), synthetic("weight", out, in, seed),
                     synthetic("gaussian", tokens, out, dy_seed)});
  triples.push_back({"outliers", "synthetic", synthetic("outlier_cols", tokens, in, seed),
                     synthetic("weight", out, in, seed), synthetic("student_t3", tokens, out, dy_seed)});
  return triples;
}

GemmTripleNames parse_gemm_triple(const std::string& spec) {
  GemmTripleNames names;
  size_t at = 0;
  while (at <= spec.size()) {
    const size_t end = std::min(spec.find(',', at), spec.size());
    const std::string item = spec.substr(at, end - at);
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::string* slot = key == "x" ? &names.x : key == "w" ? &names.w : key == "dy" ? &names.dy : nullptr;
    if (slot == nullptr || value.empty())
      throw std::invalid_argument("--gemm-triple '" + spec + "': expected x=NAME,w=NAME,dy=NAME; '" + item +
                                  "' is not one of them");
    if (!slot->empty()) throw std::invalid_argument("--gemm-triple '" + spec + "': " + key + " given twice");
    *slot = value;
    at = end + 1;
  }
  if (names.x.empty() || names.w.empty() || names.dy.empty())
    throw std::invalid_argument("--gemm-triple '" + spec + "': names x, w and dy are all needed");
  return names;
}

void check_gemm_triple_shapes(const GemmTriple& t) {
  const auto dims = [](const HostTensor& h) { return std::to_string(h.rows) + "x" + std::to_string(h.cols); };
  if (t.w.cols != t.x.cols || t.dy.rows != t.x.rows || t.dy.cols != t.w.rows)
    throw std::invalid_argument("--gemm-triple '" + t.name + "': needs x tokens x in, w out x in, dy tokens x out; got x " +
                                dims(t.x) + ", w " + dims(t.w) + ", dy " + dims(t.dy));
}

std::vector<GemmRecord> run_gemm_view(const GemmTriple& t, Backend b) {
  const int64_t tokens = t.x.rows, in = t.x.cols, out = t.w.rows;
  GemmRecord base;
  base.triple = t.name;
  base.source = t.source;
  base.backend = backend_name(b);
  base.tokens = tokens;
  base.in = in;
  base.out = out;
  std::vector<GemmRecord> records;
  if (tokens % 16 != 0 || in % 16 != 0 || out % 16 != 0) {
    for (const GemmRecipe& r : kGemmRecipes) {
      GemmRecord rec = base;
      rec.recipe = r.name;
      rec.status = RunStatus::kSkipped;
      rec.message = "the GEMM view needs tokens, in and out multiples of 16 (NVFP4 columnwise copies, FP8 GEMM rows)";
      records.push_back(rec);
    }
    return records;
  }
  const PreparedInput x(t.x, b), w(t.w, b), dy(t.dy, b);
  const std::vector<double> exact[kGemmProducts] = {
      product_abt(to_double(x.values, tokens, in, false), to_double(w.values, out, in, false), tokens, out, in),
      product_abt(to_double(dy.values, tokens, out, false), to_double(w.values, out, in, true), tokens, in, out),
      product_abt(to_double(dy.values, tokens, out, true), to_double(x.values, tokens, in, true), out, in, tokens)};
  for (const GemmRecipe& r : kGemmRecipes) {
    GemmRecord rec = base;
    rec.recipe = r.name;
    try {
      Operand qx, qw, qdy;
      quantize(qx, r.x, x, b);
      quantize(qw, r.w, w, b);
      quantize(qdy, r.dy, dy, b);
      const std::vector<float> d[kGemmProducts] = {
          gemm(qx, LOWP_ROWWISE, qw, LOWP_ROWWISE, tokens, out, b),
          gemm(qdy, LOWP_ROWWISE, qw, LOWP_COLUMNWISE, tokens, in, b),
          gemm(qdy, LOWP_COLUMNWISE, qx, LOWP_COLUMNWISE, out, in, b)};
      for (int p = 0; p < kGemmProducts; ++p) rec.snr_db[p] = error_stats(exact[p], d[p]).snr_db;
    } catch (const LowpError& e) {
      rec.status = e.status == LOWP_ERROR_UNSUPPORTED ? RunStatus::kUnsupported : RunStatus::kError;
      rec.message = e.what();
    } catch (const std::exception& e) {  // CUDA runtime errors
      rec.status = RunStatus::kError;
      rec.message = e.what();
    }
    records.push_back(rec);
    if (rec.status == RunStatus::kError) break;
  }
  return records;
}

}  // namespace lowp_cli
