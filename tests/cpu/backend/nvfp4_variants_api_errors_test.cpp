// numerics §9 for the NVFP4 variants: row-scaled NVFP4 (LOWP_SCALING_NVFP4_ROW_SCALED through
// lowp_quantize, lowp_dequantize, the sizes, lowp_nvfp4_amax_per_row and the grouped calls) and
// 4over6 (cfg->four_over_six and its knobs, q->nvfp4_outer_max). Each case starts from a call that
// succeeds, breaks one rule, and checks the status, that the message names the argument or rule,
// and that no byte of any buffer (inputs and outputs live in one poisoned arena) changed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <iostream>
#include <vector>

#include "common/compare.h"
#include "common/error_table.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

constexpr int64_t M = 32, K = 48, kN = 3;

struct Env {
  alignas(16) float x[M * K];
  alignas(16) uint8_t row[M * K / 2], col[M * K / 2];
  alignas(16) uint8_t row_s[2 * 128 * 4], col_s[2 * 128 * 4];  // a group of two 16-row members: two arrays each
  alignas(16) float row_amax[M + 1], col_amax[kN * K + 1];
  alignas(16) uint64_t rng[2];
  alignas(16) float out[M * K];
  lowp_quantized_sizes sizes;
  // Arguments, set per case.
  alignas(16) int64_t members[kN];
  lowp_tensor x_t{};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  lowp_quant_config cfg{};
  lowp_tensor out_t{};

  // A valid quantize of both copies with `scaling` (compact scales, defaults).
  void valid(lowp_scaling scaling = LOWP_SCALING_NVFP4_ROW_SCALED) {
    x_t = {x, LOWP_DTYPE_FLOAT32, M, K};
    q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = scaling;
    q.rows = M;
    q.cols = K;
    const bool per_row = scaling != LOWP_SCALING_NVFP4_PER_TENSOR;
    q.rowwise = {row, row_s, row_amax};
    q.columnwise = {col, col_s, per_row ? col_amax : col_amax + 4};
    lowp_quant_config_default(&cfg);
  }
  void valid_4over6(lowp_scaling scaling = LOWP_SCALING_NVFP4_PER_TENSOR) {
    valid(scaling);
    cfg.four_over_six = 1;
    cfg.four_over_six_error = LOWP_FOUR_OVER_SIX_MSE;
    cfg.four_over_six_scale_max = 256.0f;
  }
  void valid_dequantize(lowp_scaling scaling = LOWP_SCALING_NVFP4_ROW_SCALED) {
    valid(scaling);
    out_t = {out, LOWP_DTYPE_FLOAT32, M, K};
  }
  void valid_group() {
    valid();
    members[0] = 16, members[1] = 0, members[2] = 16;
  }
  lowp_status quantize() { return lowp_quantize(&x_t, &q, &cfg, nullptr); }
  lowp_status dequantize() { return lowp_dequantize(&q, LOWP_ROWWISE, &out_t, nullptr); }
  lowp_status amax(lowp_scaling s) { return lowp_nvfp4_amax_per_row(&x_t, s, row_amax, col_amax, &cfg, nullptr); }
  lowp_status gquantize() { return lowp_nvfp4_grouped_quantize(&x_t, kN, members, &q, &cfg, nullptr, 0, nullptr); }
  lowp_status gamax(lowp_scaling s) {
    return lowp_nvfp4_grouped_amax_per_row(&x_t, s, kN, members, row_amax, col_amax, &cfg, nullptr, 0, nullptr);
  }
};
constexpr size_t kDataBytes = offsetof(Env, members);
constexpr size_t kFirstReleaseQ = offsetof(lowp_quantized_tensor, nvfp4_outer_max);

using Case = ErrorCase<Env>;

const lowp_status kInv = LOWP_ERROR_INVALID_ARGUMENT;
constexpr lowp_scaling kRowScaled = LOWP_SCALING_NVFP4_ROW_SCALED, kPerToken = LOWP_SCALING_NVFP4_PER_TOKEN,
                       kPerTensor = LOWP_SCALING_NVFP4_PER_TENSOR;

const Baselines<Env> kBaselines = {
    {"row-scaled quantize", [](Env& e) { e.valid(); return e.quantize(); }},
    {"row-scaled RHT + SR, swizzled",
     [](Env& e) { e.valid(); e.cfg.rht = e.cfg.stochastic_rounding = 1; e.cfg.rng_state = e.rng; e.q.scale_layout = LOWP_SCALE_LAYOUT_SWIZZLED; return e.quantize(); }},
    {"row-scaled amax given", [](Env& e) { e.valid(); e.cfg.amax_given = 1; return e.quantize(); }},
    {"row-scaled 4over6", [](Env& e) { e.valid_4over6(kRowScaled); return e.quantize(); }},
    {"per-tensor 4over6 MSE, E 256", [](Env& e) { e.valid_4over6(); return e.quantize(); }},
    {"per-tensor 4over6 2D", [](Env& e) { e.valid_4over6(); e.cfg.block_2d = 1; return e.quantize(); }},
    {"4over6 E 448 with a first-release q", [](Env& e) { e.valid_4over6(); e.cfg.four_over_six_scale_max = 448.0f; e.q.struct_size = kFirstReleaseQ; return e.quantize(); }},
    {"row-scaled dequantize", [](Env& e) { e.valid_dequantize(); return e.dequantize(); }},
    {"dequantize outer max 1536", [](Env& e) { e.valid_dequantize(kPerTensor); e.q.nvfp4_outer_max = 1536.0f; return e.dequantize(); }},
    {"dequantize outer max 2688", [](Env& e) { e.valid_dequantize(kPerToken); e.q.nvfp4_outer_max = 2688.0f; return e.dequantize(); }},
    {"row-scaled sizes", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, kRowScaled, M, K, &e.sizes); }},
    {"K1 row-scaled with RHT", [](Env& e) { e.valid(); e.cfg.rht = 1; return e.amax(kRowScaled); }},
    {"K1 per-token", [](Env& e) { e.valid(); return e.amax(kPerToken); }},
    {"grouped row-scaled quantize", [](Env& e) { e.valid_group(); return e.gquantize(); }},
    {"grouped row-scaled 4over6", [](Env& e) { e.valid_group(); e.cfg.four_over_six = 1; return e.gquantize(); }},
    {"grouped K1 row-scaled", [](Env& e) { e.valid_group(); e.cfg.rht = 1; return e.gamax(kRowScaled); }},
};

#define Q(setup, body) [](Env& e) { setup; body; return e.quantize(); }
#define D(scaling, body) [](Env& e) { e.valid_dequantize(scaling); body; return e.dequantize(); }
#define G(body) [](Env& e) { e.valid_group(); body; return e.gquantize(); }

const std::vector<Case> kCases = {
    // row-scaled: the per-tensor-only knobs
    {"row-scaled block_2d", kInv, "NVFP4 row-scaled", Q(e.valid(), e.cfg.block_2d = 1)},
    {"row-scaled amax_estimation", kInv, "amax_estimation", Q(e.valid(), e.cfg.rht = 1; e.cfg.amax_estimation = 1)},
    {"row-scaled amax_epsilon (FP8 knob)", kInv, "amax_epsilon", Q(e.valid(), e.cfg.amax_epsilon = 1.0f)},
    {"row-scaled M 24 with columnwise", kInv, "M % 16", Q(e.valid(), e.x_t.rows = e.q.rows = 24)},
    {"row-scaled rowwise.amax NULL", kInv, "q->rowwise.amax", Q(e.valid(), e.q.rowwise.amax = nullptr)},
    {"row-scaled E4M3", kInv, "q->scaling", Q(e.valid(), e.q.dtype = LOWP_DTYPE_E4M3)},
    // 4over6
    {"4over6 with RHT", kInv, "four_over_six", Q(e.valid_4over6(), e.cfg.rht = 1)},
    {"4over6 with SR", kInv, "four_over_six", Q(e.valid_4over6(), e.cfg.stochastic_rounding = 1; e.cfg.rng_state = e.rng)},
    {"4over6 row-scaled with RHT", kInv, "cfg->rht", Q(e.valid_4over6(kRowScaled), e.cfg.rht = 1)},
    {"4over6 error 2", kInv, "four_over_six_error", Q(e.valid_4over6(), e.cfg.four_over_six_error = static_cast<lowp_four_over_six_error>(2))},
    {"4over6 scale max 300", kInv, "four_over_six_scale_max", Q(e.valid_4over6(), e.cfg.four_over_six_scale_max = 300.0f)},
    {"4over6 scale max NaN", kInv, "four_over_six_scale_max", Q(e.valid_4over6(), e.cfg.four_over_six_scale_max = NAN)},
    {"4over6 per-token", kInv, "four_over_six", Q(e.valid_4over6(kPerToken), (void)0)},
    {"4over6 FP8", kInv, "four_over_six", Q(e.valid_4over6(), e.q.dtype = LOWP_DTYPE_E4M3; e.q.scaling = LOWP_SCALING_CURRENT)},
    {"4over6 E 256 with a first-release q", kInv, "nvfp4_outer_max", Q(e.valid_4over6(), e.q.struct_size = kFirstReleaseQ)},
    // dequantize: the recorded outer maximum
    {"dequantize outer max 1000", kInv, "nvfp4_outer_max", D(kPerTensor, e.q.nvfp4_outer_max = 1000.0f)},
    {"dequantize outer max -2688", kInv, "nvfp4_outer_max", D(kRowScaled, e.q.nvfp4_outer_max = -2688.0f)},
    {"dequantize per-token outer max 1536", kInv, "nvfp4_outer_max", D(kPerToken, e.q.nvfp4_outer_max = 1536.0f)},
    {"dequantize row-scaled rowwise.amax NULL", kInv, "q->rowwise.amax", D(kRowScaled, e.q.rowwise.amax = nullptr)},
    // K1 alone
    {"K1 scaling per-tensor", kInv, "scaling", [](Env& e) { e.valid(); return e.amax(kPerTensor); }},
    {"K1 scaling 99", kInv, "scaling", [](Env& e) { e.valid(); return e.amax(static_cast<lowp_scaling>(99)); }},
    {"K1 row-scaled RHT, M 24", kInv, "M % 16", [](Env& e) { e.valid(); e.cfg.rht = 1; e.x_t.rows = 24; return e.amax(kRowScaled); }},
    {"grouped K1 scaling CURRENT", kInv, "scaling", [](Env& e) { e.valid_group(); return e.gamax(LOWP_SCALING_CURRENT); }},
    // grouped quantize
    {"grouped row-scaled block_2d", kInv, "block_2d", G(e.cfg.block_2d = 1)},
    {"grouped per-tensor", kInv, "q->scaling", G(e.q.scaling = kPerTensor)},
    {"grouped 4over6 with SR", kInv, "four_over_six", G(e.cfg.four_over_six = 1; e.cfg.stochastic_rounding = 1; e.cfg.rng_state = e.rng)},
    {"grouped 4over6 E 256 with a first-release q", kInv, "nvfp4_outer_max",
     G(e.cfg.four_over_six = 1; e.cfg.four_over_six_scale_max = 256.0f; e.q.struct_size = kFirstReleaseQ)},
};

}  // namespace

TEST(Nvfp4VariantsApiErrors, BaselinesSucceed) {
  expect_baselines_succeed(kBaselines);  // value-initialised: zeros are a valid input
}

TEST(Nvfp4VariantsApiErrors, EveryCaseRejectedWithoutWriting) {
  const int tried = expect_rejected_without_writing(kCases, kDataBytes);
  std::cout << "[ nvfp4 variants api errors ] " << tried << " error cases tried\n";
  EXPECT_EQ(tried, static_cast<int>(kCases.size()));
}
