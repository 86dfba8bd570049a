// numerics §9 for the NVFP4 per-tensor entry points: each case starts from a call that succeeds,
// breaks one rule, and checks the status, that the message names the argument or rule, and that
// no byte of any buffer (inputs and outputs live in one poisoned arena) changed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/error_table.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

constexpr int64_t M = 32, K = 48;

struct Env {
  alignas(16) float x[M * K];
  alignas(16) uint8_t row[M * K / 2], col[M * K / 2];
  alignas(16) uint8_t row_s[128 * 4], col_s[128 * 4];  // [roundup(32,128)][roundup(3,4)], [roundup(48,128)][roundup(2,4)]
  alignas(16) float row_amax[2], col_amax[2];          // [1]: spare for misalignment
  alignas(16) uint64_t rng[3];
  alignas(16) float out[M * K];
  alignas(16) uint8_t swz[128 * 4];
  lowp_quantized_sizes sizes;

  lowp_tensor x_t{};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  lowp_quant_config cfg{};
  lowp_tensor out_t{};

  // A valid NVFP4 per-tensor quantize of both orientations (compact scales, defaults).
  void valid_quantize() {
    x_t = {x, LOWP_DTYPE_FLOAT32, M, K};
    q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR;
    q.scale_layout = LOWP_SCALE_LAYOUT_COMPACT;
    q.rows = M;
    q.cols = K;
    q.rowwise = {row, row_s, row_amax};
    q.columnwise = {col, col_s, col_amax};
    lowp_quant_config_default(&cfg);
  }
  void valid_sr() {
    valid_quantize();
    cfg.rht = 1;
    cfg.stochastic_rounding = 1;
    cfg.rng_state = rng;
  }
  void valid_dequantize(lowp_orientation w = LOWP_ROWWISE) {
    valid_quantize();
    out_t = {out, LOWP_DTYPE_FLOAT32, w == LOWP_ROWWISE ? M : K, w == LOWP_ROWWISE ? K : M};
  }
  lowp_status quantize() { return lowp_quantize(&x_t, &q, &cfg, nullptr); }
  lowp_status dequantize(lowp_orientation w = LOWP_ROWWISE) { return lowp_dequantize(&q, w, &out_t, nullptr); }
  lowp_status swizzle(const void* c, void* s, int64_t rows = K, int64_t blocks = M / 16) {
    return lowp_nvfp4_swizzle_scales(c, s, rows, blocks, nullptr);
  }
};

template <typename T>
T* off(T* p, int bytes) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + bytes);
}

using Case = ErrorCase<Env>;

const lowp_status kInv = LOWP_ERROR_INVALID_ARGUMENT, kUns = LOWP_ERROR_UNSUPPORTED;

const Baselines<Env> kBaselines = {
    {"quantize 1D", [](Env& e) { e.valid_quantize(); return e.quantize(); }},
    {"quantize RHT + SR + estimation", [](Env& e) { e.valid_sr(); e.cfg.amax_estimation = 1; return e.quantize(); }},
    {"quantize 2D swizzled", [](Env& e) { e.valid_quantize(); e.cfg.block_2d = 1; e.q.scale_layout = LOWP_SCALE_LAYOUT_SWIZZLED; return e.quantize(); }},
    {"quantize rowwise only, M 24", [](Env& e) { e.valid_quantize(); e.x_t.rows = e.q.rows = 24; e.q.columnwise.data = nullptr; return e.quantize(); }},
    {"quantize amax given", [](Env& e) { e.valid_quantize(); e.cfg.amax_given = 1; return e.quantize(); }},
    // With amax_given the estimation is ignored (lowp.h), its factor too; both copies may read one amax.
    {"quantize amax given, estimation factor NaN", [](Env& e) {
       e.valid_sr(); e.cfg.amax_given = 1; e.cfg.amax_estimation = 1; e.cfg.amax_estimation_factor = std::nanf("");
       return e.quantize(); }},
    {"quantize amax given, one amax for both copies", [](Env& e) {
       e.valid_quantize(); e.cfg.amax_given = 1; e.q.columnwise.amax = e.q.rowwise.amax; return e.quantize(); }},
    {"dequantize rowwise", [](Env& e) { e.valid_dequantize(); return e.dequantize(); }},
    {"dequantize columnwise bf16", [](Env& e) { e.valid_dequantize(LOWP_COLUMNWISE); e.out_t.dtype = LOWP_DTYPE_BFLOAT16; return e.dequantize(LOWP_COLUMNWISE); }},
    {"swizzle", [](Env& e) { return e.swizzle(e.col_s, e.swz); }},
    {"rng advance", [](Env& e) { return lowp_rng_advance(e.rng, 3, nullptr); }},
    {"sizes", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, M, K, &e.sizes); }},
};

#define Q(body) [](Env& e) { e.valid_quantize(); body; return e.quantize(); }
#define QSR(body) [](Env& e) { e.valid_sr(); body; return e.quantize(); }
#define D(w, body) [](Env& e) { e.valid_dequantize(w); body; return e.dequantize(w); }

const std::vector<Case> kCases = {
    // quantize: shapes
    {"quantize K 40", kInv, "K % 16", Q(e.x_t.cols = e.q.cols = 40)},
    {"quantize K 8, rowwise only", kInv, "K % 16", Q(e.x_t.cols = e.q.cols = 8; e.q.columnwise.data = nullptr)},
    {"quantize M 24 with columnwise", kInv, "M % 16", Q(e.x_t.rows = e.q.rows = 24)},
    {"quantize M 24 columnwise only", kInv, "M % 16", Q(e.x_t.rows = e.q.rows = 24; e.q.rowwise.data = nullptr)},
    {"quantize 2D M 24 rowwise only", kInv, "block_2d", Q(e.x_t.rows = e.q.rows = 24; e.q.columnwise.data = nullptr; e.cfg.block_2d = 1)},
    {"quantize q rows != x rows", kInv, "q is", Q(e.q.rows = 16)},
    // quantize: recipe knobs
    {"quantize estimation factor 0", kInv, "amax_estimation_factor", QSR(e.cfg.amax_estimation = 1; e.cfg.amax_estimation_factor = 0.0f)},
    {"quantize estimation factor -1", kInv, "amax_estimation_factor", Q(e.cfg.rht = 1; e.cfg.amax_estimation = 1; e.cfg.amax_estimation_factor = -1.0f)},
    {"quantize estimation factor NaN", kInv, "amax_estimation_factor", Q(e.cfg.amax_estimation = 1; e.cfg.amax_estimation_factor = std::nanf(""))},
    {"quantize estimation factor inf", kInv, "amax_estimation_factor", Q(e.cfg.amax_estimation = 1; e.cfg.amax_estimation_factor = INFINITY)},
    {"quantize 2D with RHT", kInv, "rht", Q(e.cfg.block_2d = 1; e.cfg.rht = 1)},
    {"quantize 2D with RHT, rowwise only", kInv, "rht", Q(e.cfg.block_2d = 1; e.cfg.rht = 1; e.q.columnwise.data = nullptr)},
    {"quantize 2D with SR", kInv, "stochastic_rounding", QSR(e.cfg.rht = 0; e.cfg.block_2d = 1)},
    {"quantize SR without rng_state", kInv, "rng_state", QSR(e.cfg.rng_state = nullptr)},
    {"quantize SR rng_state misaligned", kInv, "rng_state", QSR(e.cfg.rng_state = off(e.rng, 4))},
    {"quantize rht_sign_mask 0x1D7E8", kInv, "rht_sign_mask", Q(e.cfg.rht = 1; e.cfg.rht_sign_mask = 0x1D7E8u)},
    {"quantize amax_epsilon 0.5 (FP8 knob)", kInv, "amax_epsilon", Q(e.cfg.amax_epsilon = 0.5f)},
    {"quantize power_of_two_scale (FP8 knob)", kInv, "power_of_two_scale", Q(e.cfg.power_of_two_scale = 1)},
    {"quantize scale_layout 7", kInv, "q->scale_layout is 7 (not a lowp_scale_layout)", Q(e.q.scale_layout = static_cast<lowp_scale_layout>(7))},
    // quantize: dtypes and recipe
    {"quantize x dtype E4M3", kInv, "x->dtype is LOWP_DTYPE_E4M3", Q(e.x_t.dtype = LOWP_DTYPE_E4M3)},
    {"quantize x dtype E2M1", kInv, "x", Q(e.x_t.dtype = LOWP_DTYPE_E2M1)},
    {"quantize x dtype 99", kInv, "x->dtype is 99 (not a lowp_dtype)", Q(e.x_t.dtype = static_cast<lowp_dtype>(99))},
    {"quantize E2M1 with CURRENT", kInv, "q->scaling LOWP_SCALING_CURRENT does not fit q->dtype LOWP_DTYPE_E2M1; expected one of LOWP_SCALING_NVFP4_PER_TENSOR, LOWP_SCALING_NVFP4_PER_TOKEN", Q(e.q.scaling = LOWP_SCALING_CURRENT)},
    {"quantize E2M1 with DELAYED", kInv, "scaling", Q(e.q.scaling = LOWP_SCALING_DELAYED)},
    {"quantize E2M1 with FP8 PER_TOKEN", kInv, "scaling", Q(e.q.scaling = LOWP_SCALING_PER_TOKEN)},
    {"quantize E4M3 with NVFP4_PER_TENSOR", kInv, "q->scaling", Q(e.q.dtype = LOWP_DTYPE_E4M3)},
    {"quantize E5M2 with NVFP4_PER_TENSOR", kInv, "q->scaling", Q(e.q.dtype = LOWP_DTYPE_E5M2)},
    {"quantize NVFP4_PER_TOKEN with block_2d", kInv, "block_2d", Q(e.q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN; e.cfg.block_2d = 1)},
    {"quantize_dact E2M1", kUns, "NVFP4", [](Env& e) { e.valid_quantize(); return lowp_quantize_dact(&e.x_t, e.out, LOWP_ACTIVATION_GELU_TANH, &e.q, &e.cfg, nullptr); }},
    // quantize: pointers
    {"quantize x NULL", kInv, "x", [](Env& e) { e.valid_quantize(); return lowp_quantize(nullptr, &e.q, &e.cfg, nullptr); }},
    {"quantize x->data NULL", kInv, "x->data is NULL", Q(e.x_t.data = nullptr)},
    {"quantize q NULL", kInv, "q", [](Env& e) { e.valid_quantize(); return lowp_quantize(&e.x_t, nullptr, &e.cfg, nullptr); }},
    {"quantize neither orientation", kInv, "data", Q(e.q.rowwise.data = nullptr; e.q.columnwise.data = nullptr)},
    {"quantize rowwise.scale_inv NULL", kInv, "q->rowwise.scale_inv", Q(e.q.rowwise.scale_inv = nullptr)},
    {"quantize rowwise.amax NULL", kInv, "q->rowwise.amax", Q(e.q.rowwise.amax = nullptr)},
    {"quantize rowwise.amax NULL, amax given", kInv, "q->rowwise.amax", Q(e.cfg.amax_given = 1; e.q.rowwise.amax = nullptr)},
    {"quantize columnwise.scale_inv NULL", kInv, "q->columnwise.scale_inv", Q(e.q.columnwise.scale_inv = nullptr)},
    {"quantize columnwise.amax NULL", kInv, "q->columnwise.amax", Q(e.q.columnwise.amax = nullptr)},
    {"quantize columnwise.amax misaligned", kInv, "q->columnwise.amax", Q(e.q.columnwise.amax = off(e.col_amax, 2))},
    // dequantize
    {"dequantize K 40", kInv, "K % 16", D(LOWP_ROWWISE, e.q.cols = e.out_t.cols = 40)},
    {"dequantize columnwise M 24", kInv, "M % 16", D(LOWP_COLUMNWISE, e.q.rows = e.out_t.cols = 24)},
    {"dequantize rowwise.scale_inv NULL", kInv, "q->rowwise.scale_inv", D(LOWP_ROWWISE, e.q.rowwise.scale_inv = nullptr)},
    {"dequantize rowwise.amax NULL", kInv, "q->rowwise.amax", D(LOWP_ROWWISE, e.q.rowwise.amax = nullptr)},
    {"dequantize columnwise.amax misaligned", kInv, "q->columnwise.amax", D(LOWP_COLUMNWISE, e.q.columnwise.amax = off(e.col_amax, 1))},
    {"dequantize columnwise.data NULL", kInv, "q->columnwise.data", D(LOWP_COLUMNWISE, e.q.columnwise.data = nullptr)},
    {"dequantize scale_layout 3", kInv, "q->scale_layout is 3 (not a lowp_scale_layout)", D(LOWP_ROWWISE, e.q.scale_layout = static_cast<lowp_scale_layout>(3))},
    {"dequantize NVFP4_PER_TOKEN K 40", kInv, "K % 16", D(LOWP_ROWWISE, e.q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN; e.q.cols = e.out_t.cols = 40)},
    {"dequantize E2M1 with CURRENT", kInv, "scaling", D(LOWP_ROWWISE, e.q.scaling = LOWP_SCALING_CURRENT)},
    {"dequantize out dtype E2M1", kInv, "out->dtype is LOWP_DTYPE_E2M1", D(LOWP_ROWWISE, e.out_t.dtype = LOWP_DTYPE_E2M1)},
    {"dequantize columnwise into rowwise shape", kInv, "out", D(LOWP_COLUMNWISE, e.out_t.rows = M; e.out_t.cols = K)},
    // standalone swizzle
    {"swizzle compact NULL", kInv, "compact", [](Env& e) { return e.swizzle(nullptr, e.swz); }},
    {"swizzle swizzled NULL", kInv, "swizzled", [](Env& e) { return e.swizzle(e.col_s, nullptr); }},
    {"swizzle rows 0", kInv, "rows x blocks is 0 x 2", [](Env& e) { return e.swizzle(e.col_s, e.swz, 0, 2); }},
    {"swizzle blocks -1", kInv, "blocks", [](Env& e) { return e.swizzle(e.col_s, e.swz, K, -1); }},
    {"swizzle overlapping buffers", kInv, "swizzled (512 bytes) overlaps compact (512 bytes)", [](Env& e) { return e.swizzle(e.swz, e.swz + 1); }},
    {"swizzle in place", kInv, "swizzled (512 bytes) overlaps compact", [](Env& e) { return e.swizzle(e.swz, e.swz); }},
    {"swizzle 1 x 2^54 blocks (2^61 bytes)", kInv, "at most 2^56", [](Env& e) { return e.swizzle(e.col_s, e.swz, 1, int64_t{1} << 54); }},
    // Aliasing (lowp.h): what a call writes overlaps nothing else of the call
    {"quantize rowwise codes inside x", kInv, "q->rowwise.data (768 bytes) overlaps x->data (6144 bytes)",
     Q(e.q.rowwise.data = reinterpret_cast<uint8_t*>(e.x) + 64)},
    {"quantize one scale array for both copies", kInv, "q->rowwise.scale_inv (512 bytes) overlaps q->columnwise.scale_inv",
     Q(e.q.columnwise.scale_inv = e.row_s)},
    {"quantize one amax for both copies", kInv, "q->rowwise.amax (4 bytes) overlaps q->columnwise.amax", Q(e.q.columnwise.amax = e.row_amax)},
    {"quantize given amax inside the codes", kInv, "q->rowwise.data (768 bytes) overlaps q->rowwise.amax",
     Q(e.cfg.amax_given = 1; e.q.rowwise.amax = reinterpret_cast<float*>(e.row + 16))},
    {"quantize rng_state inside the codes", kInv, "q->columnwise.data (768 bytes) overlaps cfg->rng_state",
     QSR(e.cfg.rng_state = reinterpret_cast<const uint64_t*>(e.col + 8))},
    {"dequantize out on the block scales", kInv, "out->data (6144 bytes) overlaps q->rowwise.scale_inv",
     D(LOWP_ROWWISE, e.out_t.data = e.row_s)},
    {"dequantize out on the amax", kInv, "out->data (6144 bytes) overlaps q->columnwise.amax",
     D(LOWP_COLUMNWISE, e.q.columnwise.amax = e.out + 7)},
    // rng advance
    {"rng_advance NULL", kInv, "rng_state", [](Env&) { return lowp_rng_advance(nullptr, 1, nullptr); }},
    {"rng_advance misaligned", kInv, "rng_state", [](Env& e) { return lowp_rng_advance(off(e.rng, 4), 1, nullptr); }},
    // sizes
    {"sizes K 40", kInv, "K % 16", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, M, 40, &e.sizes); }},
    {"sizes NVFP4_PER_TOKEN K 40", kInv, "K % 16", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, M, 40, &e.sizes); }},
    {"sizes E2M1 with CURRENT", kInv, "scaling", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_CURRENT, M, K, &e.sizes); }},
};

}  // namespace

TEST(Nvfp4ApiErrors, BaselinesSucceed) {
  expect_baselines_succeed(kBaselines);  // value-initialised: zeros are a valid input
}

TEST(Nvfp4ApiErrors, EveryCaseRejectedWithoutWriting) {
  const int tried = expect_rejected_without_writing(kCases, offsetof(Env, x_t));
  std::cout << "[ nvfp4 api errors ] " << tried << " error cases tried\n";
  ::testing::Test::RecordProperty("error_cases", tried);
  EXPECT_GE(tried, 55);
}
