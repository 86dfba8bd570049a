// numerics §9: every entry point validates before touching memory. Each table case starts from a
// call that succeeds, breaks one thing, and checks the status, that the message names the
// argument, and that no byte of any buffer (inputs and outputs, one poisoned arena) changed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/compare.h"
#include "common/error_table.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

constexpr int64_t R = 4, C = 8, N = R * C;

// All buffers of every call live in one poisoned, 16-byte aligned arena.
struct Env {
  alignas(16) float x[N];              // input (fp32, or bf16 in its first half)
  alignas(16) uint8_t row[N], col[N];  // codes
  alignas(16) float scale[4], scale_inv[4], amax[4];  // [1..3] are spares for misalignment
  alignas(16) float row_si[R + 1], row_amax[R + 1], col_si[C + 1], col_amax[C + 1];
  alignas(16) float out[N + 1];
  alignas(16) float hist[2 * 4], uscale[3], uscale_inv[3];
  lowp_quantized_sizes sizes;

  lowp_tensor x_t{};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  lowp_quant_config cfg{};
  lowp_tensor out_t{};

  // A valid quantize: E4M3 current scaling (per_token: per-token), both orientations.
  void valid_quantize(lowp_scaling s = LOWP_SCALING_CURRENT) {
    x_t = {x, LOWP_DTYPE_FLOAT32, R, C};
    q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E4M3;
    q.scaling = s;
    q.rows = R;
    q.cols = C;
    q.rowwise = {row, row_si, row_amax};
    q.columnwise = {col, col_si, col_amax};
    q.scale = scale;
    q.scale_inv = scale_inv;
    q.amax = amax;
    lowp_quant_config_default(&cfg);
  }
  // A valid dequantize of the rowwise copy into fp32.
  void valid_dequantize(lowp_scaling s = LOWP_SCALING_CURRENT) {
    valid_quantize(s);
    out_t = {out, LOWP_DTYPE_FLOAT32, R, C};
  }
  lowp_status quantize() { return lowp_quantize(&x_t, &q, &cfg, nullptr); }
  lowp_status dequantize(lowp_orientation w = LOWP_ROWWISE) { return lowp_dequantize(&q, w, &out_t, nullptr); }
  lowp_status update(int64_t n = 2, int64_t len = 4, lowp_dtype d = LOWP_DTYPE_E4M3, int margin = 0,
                     lowp_amax_algo algo = LOWP_AMAX_ALGO_MAX) {
    return lowp_fp8_delayed_scaling_update(n, len, hist, uscale, uscale_inv, d, margin, algo, nullptr);
  }
};

template <typename T>
T* off(T* p, int bytes) {  // misaligned by `bytes`
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + bytes);
}

using Case = ErrorCase<Env>;

const lowp_status kInv = LOWP_ERROR_INVALID_ARGUMENT, kUns = LOWP_ERROR_UNSUPPORTED;
const lowp_dtype kBadDtype = static_cast<lowp_dtype>(99);

// Baselines that must succeed unmodified (so each case below fails for the one thing it breaks).
const Baselines<Env> kBaselines = {
    {"quantize current", [](Env& e) { e.valid_quantize(); return e.quantize(); }},
    {"quantize per-token", [](Env& e) { e.valid_quantize(LOWP_SCALING_PER_TOKEN); return e.quantize(); }},
    {"quantize delayed", [](Env& e) { e.valid_quantize(LOWP_SCALING_DELAYED); return e.quantize(); }},
    {"dequantize", [](Env& e) { e.valid_dequantize(); return e.dequantize(); }},
    {"dequantize per-token col", [](Env& e) {
       e.valid_dequantize(LOWP_SCALING_PER_TOKEN);
       e.out_t.rows = C, e.out_t.cols = R;
       return e.dequantize(LOWP_COLUMNWISE); }},
    {"amax", [](Env& e) { e.valid_quantize(); return lowp_amax(&e.x_t, e.amax, nullptr); }},
    {"amax_per_token", [](Env& e) { e.valid_quantize(); return lowp_amax_per_token(&e.x_t, e.row_amax, e.col_amax, nullptr); }},
    {"update", [](Env& e) { return e.update(); }},
    {"sizes", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, R, C, &e.sizes); }},
};

#define Q(body) [](Env& e) { e.valid_quantize(); body; return e.quantize(); }
#define QT(body) [](Env& e) { e.valid_quantize(LOWP_SCALING_PER_TOKEN); body; return e.quantize(); }
#define D(body, ...) [](Env& e) { e.valid_dequantize(); body; return e.dequantize(__VA_ARGS__); }

const std::vector<Case> kCases = {
    // lowp_quantize: x
    {"quantize x NULL", kInv, "x", [](Env& e) { e.valid_quantize(); return lowp_quantize(nullptr, &e.q, &e.cfg, nullptr); }},
    {"quantize x->data NULL", kInv, "x->data is NULL", Q(e.x_t.data = nullptr)},
    {"quantize x dtype E4M3", kInv, "x->dtype is LOWP_DTYPE_E4M3", Q(e.x_t.dtype = LOWP_DTYPE_E4M3)},
    {"quantize x dtype 99", kInv, "x->dtype is 99 (not a lowp_dtype)", Q(e.x_t.dtype = kBadDtype)},
    {"quantize x rows 0", kInv, "x is 0 x 8", Q(e.x_t.rows = 0; e.q.rows = 0)},
    {"quantize x cols -1", kInv, "x", Q(e.x_t.cols = -1; e.q.cols = -1)},
    {"quantize x 2^40 x 2^20 elements", kInv, "x", Q(e.x_t.rows = e.q.rows = int64_t{1} << 40; e.x_t.cols = e.q.cols = 1 << 20)},
    {"quantize fp32 x misaligned", kInv, "x->data is not aligned", Q(e.x_t.data = off(e.x, 2))},
    {"quantize bf16 x misaligned", kInv, "x", Q(e.x_t.dtype = LOWP_DTYPE_BFLOAT16; e.x_t.data = off(e.x, 1))},
    // lowp_quantize: q
    {"quantize q NULL", kInv, "q", [](Env& e) { e.valid_quantize(); return lowp_quantize(&e.x_t, nullptr, &e.cfg, nullptr); }},
    {"quantize q dtype FLOAT32", kInv, "q->dtype is LOWP_DTYPE_FLOAT32; expected LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2 or LOWP_DTYPE_E2M1", Q(e.q.dtype = LOWP_DTYPE_FLOAT32)},
    {"quantize q dtype BFLOAT16", kInv, "q->dtype", Q(e.q.dtype = LOWP_DTYPE_BFLOAT16)},
    {"quantize E2M1 with FP8 scaling", kInv, "q->scaling LOWP_SCALING_CURRENT does not fit q->dtype LOWP_DTYPE_E2M1", Q(e.q.dtype = LOWP_DTYPE_E2M1)},
    {"quantize E4M3 with NVFP4_PER_TENSOR", kInv, "q->scaling", Q(e.q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR)},
    {"quantize E5M2 with NVFP4_PER_TOKEN", kInv, "q->scaling", Q(e.q.dtype = LOWP_DTYPE_E5M2; e.q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN)},
    {"quantize scaling 42", kInv, "q->scaling is 42 (not a lowp_scaling)", Q(e.q.scaling = static_cast<lowp_scaling>(42))},
    {"quantize NVFP4 per-tensor, K 8 (not % 16)", kInv, "NVFP4", Q(e.q.dtype = LOWP_DTYPE_E2M1; e.q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR)},
    {"quantize NVFP4 per-token, K 8", kInv, "K % 16", Q(e.q.dtype = LOWP_DTYPE_E2M1; e.q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN)},
    {"quantize q rows != x rows", kInv, "q", Q(e.q.rows = R - 1)},
    // growable structs (lowp.h): q and cfg read through their struct_size
    {"quantize q struct_size 0", kInv, "lowp_quantized_tensor_init", Q(e.q.struct_size = 0)},
    {"quantize q struct_size below its first release", kInv, "q->struct_size",
     Q(e.q.struct_size = offsetof(lowp_quantized_tensor, amax))},
    {"quantize q struct_size above this lowp's", kInv, "newer lowp.h", Q(e.q.struct_size = sizeof(lowp_quantized_tensor) + 8)},
    {"quantize cfg struct_size 0", kInv, "lowp_quant_config_default", Q(e.cfg.struct_size = 0)},
    {"quantize cfg struct_size below its first release", kInv, "cfg->struct_size",
     Q(e.cfg.struct_size = offsetof(lowp_quant_config, group_row_multiple))},
    {"quantize cfg struct_size above this lowp's", kInv, "newer lowp.h", Q(e.cfg.struct_size = sizeof(lowp_quant_config) + 8)},
    {"quantize_dact q struct_size 0", kInv, "lowp_quantized_tensor_init", [](Env& e) {
       e.valid_quantize(); e.q.struct_size = 0;
       return lowp_quantize_dact(&e.x_t, e.out, LOWP_ACTIVATION_SILU, &e.q, &e.cfg, nullptr); }},
    {"quantize_dact cfg struct_size too large", kInv, "newer lowp.h", [](Env& e) {
       e.valid_quantize(); e.cfg.struct_size = sizeof(lowp_quant_config) + 1;
       return lowp_quantize_dact(&e.x_t, e.out, LOWP_ACTIVATION_SILU, &e.q, &e.cfg, nullptr); }},
    {"dequantize q struct_size 0", kInv, "lowp_quantized_tensor_init", D(e.q.struct_size = 0)},
    {"dequantize q struct_size 8", kInv, "q->struct_size", D(e.q.struct_size = 8)},
    {"dequantize q struct_size above this lowp's", kInv, "newer lowp.h", D(e.q.struct_size = sizeof(lowp_quantized_tensor) + 8)},
    {"quantize q cols != x cols", kInv, "q", Q(e.q.cols = C + 1)},
    {"quantize q transposed shape", kInv, "q", Q(e.q.rows = C; e.q.cols = R)},
    {"quantize neither orientation", kInv, "data", Q(e.q.rowwise.data = nullptr; e.q.columnwise.data = nullptr)},
    {"quantize current scale NULL", kInv, "q->scale", Q(e.q.scale = nullptr)},
    {"quantize current scale_inv NULL", kInv, "q->scale_inv", Q(e.q.scale_inv = nullptr)},
    {"quantize current amax NULL", kInv, "q->amax", Q(e.q.amax = nullptr)},
    {"quantize delayed scale NULL", kInv, "q->scale", Q(e.q.scaling = LOWP_SCALING_DELAYED; e.q.scale = nullptr)},
    {"quantize delayed amax NULL", kInv, "q->amax", Q(e.q.scaling = LOWP_SCALING_DELAYED; e.q.amax = nullptr)},
    {"quantize scale misaligned", kInv, "q->scale", Q(e.q.scale = off(e.scale, 1))},
    {"quantize scale_inv misaligned", kInv, "q->scale_inv", Q(e.q.scale_inv = off(e.scale_inv, 2))},
    {"quantize amax misaligned", kInv, "q->amax", Q(e.q.amax = off(e.amax, 3))},
    {"quantize per-token rowwise.scale_inv NULL", kInv, "q->rowwise.scale_inv", QT(e.q.rowwise.scale_inv = nullptr)},
    {"quantize per-token columnwise.scale_inv NULL", kInv, "q->columnwise.scale_inv", QT(e.q.columnwise.scale_inv = nullptr)},
    {"quantize per-token rowwise.amax NULL", kInv, "q->rowwise.amax", QT(e.q.rowwise.amax = nullptr)},
    {"quantize per-token columnwise.amax NULL", kInv, "q->columnwise.amax", QT(e.q.columnwise.amax = nullptr)},
    {"quantize per-token rowwise.scale_inv misaligned", kInv, "q->rowwise.scale_inv", QT(e.q.rowwise.scale_inv = off(e.row_si, 2))},
    {"quantize per-token columnwise.amax misaligned", kInv, "q->columnwise.amax", QT(e.q.columnwise.amax = off(e.col_amax, 1))},
    {"quantize per-token col-only, columnwise.scale_inv NULL", kInv, "q->columnwise.scale_inv",
     QT(e.q.rowwise.data = nullptr; e.q.columnwise.scale_inv = nullptr)},
    // lowp_quantize: cfg
    {"quantize cfg rht for FP8", kInv, "cfg->rht is 1; it applies to NVFP4 recipes only", Q(e.cfg.rht = 1)},
    {"quantize cfg stochastic_rounding for FP8", kInv, "cfg->stochastic_rounding is 1", Q(e.cfg.stochastic_rounding = 1)},
    {"quantize cfg block_2d for FP8", kInv, "cfg->block_2d is 1", Q(e.cfg.block_2d = 1)},
    {"quantize cfg amax_estimation for FP8", kInv, "cfg->amax_estimation is 1", Q(e.cfg.amax_estimation = 1)},
    {"quantize cfg amax_given for FP8", kInv, "cfg->amax_given is 1", QT(e.cfg.amax_given = 1)},
    {"quantize cfg amax_epsilon -1", kInv, "amax_epsilon", Q(e.cfg.amax_epsilon = -1.0f)},
    {"quantize cfg amax_epsilon NaN", kInv, "amax_epsilon", Q(e.cfg.amax_epsilon = std::nanf(""))},
    {"quantize per-token cfg amax_epsilon -tiny", kInv, "amax_epsilon", QT(e.cfg.amax_epsilon = -1e-30f)},
    // lowp_dequantize
    {"dequantize q NULL", kInv, "q", [](Env& e) { e.valid_dequantize(); return lowp_dequantize(nullptr, LOWP_ROWWISE, &e.out_t, nullptr); }},
    {"dequantize out NULL", kInv, "out", [](Env& e) { e.valid_dequantize(); return lowp_dequantize(&e.q, LOWP_ROWWISE, nullptr, nullptr); }},
    {"dequantize out->data NULL", kInv, "out->data is NULL", D(e.out_t.data = nullptr)},
    {"dequantize out dtype E4M3", kInv, "out", D(e.out_t.dtype = LOWP_DTYPE_E4M3)},
    {"dequantize out dtype 99", kInv, "out->dtype is 99 (not a lowp_dtype)", D(e.out_t.dtype = kBadDtype)},
    {"dequantize out too few rows", kInv, "out", D(e.out_t.rows = R - 1)},
    {"dequantize out too few cols", kInv, "out", D(e.out_t.cols = C - 1)},
    {"dequantize columnwise into rowwise shape", kInv, "out", D((void)0, LOWP_COLUMNWISE)},
    {"dequantize out misaligned fp32", kInv, "out", D(e.out_t.data = off(e.out, 2))},
    {"dequantize out misaligned fp16", kInv, "out", D(e.out_t.dtype = LOWP_DTYPE_FLOAT16; e.out_t.data = off(e.out, 1))},
    {"dequantize which 2", kInv, "which is 2 (not a lowp_orientation)", D((void)0, static_cast<lowp_orientation>(2))},
    {"dequantize rowwise.data NULL", kInv, "q->rowwise.data", D(e.q.rowwise.data = nullptr)},
    {"dequantize columnwise.data NULL", kInv, "q->columnwise.data",
     D(e.q.columnwise.data = nullptr; e.out_t.rows = C; e.out_t.cols = R, LOWP_COLUMNWISE)},
    {"dequantize scale_inv NULL", kInv, "q->scale_inv", D(e.q.scale_inv = nullptr)},
    {"dequantize scale_inv misaligned", kInv, "q->scale_inv", D(e.q.scale_inv = off(e.scale_inv, 1))},
    {"dequantize per-token rowwise.scale_inv NULL", kInv, "q->rowwise.scale_inv",
     D(e.q.scaling = LOWP_SCALING_PER_TOKEN; e.q.rowwise.scale_inv = nullptr)},
    {"dequantize q dtype FLOAT16", kInv, "q->dtype", D(e.q.dtype = LOWP_DTYPE_FLOAT16)},
    {"dequantize E4M3 with NVFP4 scaling", kInv, "q->scaling LOWP_SCALING_NVFP4_PER_TOKEN does not fit q->dtype LOWP_DTYPE_E4M3", D(e.q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN)},
    {"dequantize NVFP4 per-tensor, K 8 (not % 16)", kInv, "NVFP4", D(e.q.dtype = LOWP_DTYPE_E2M1; e.q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR)},
    {"dequantize q rows 0", kInv, "q", D(e.q.rows = 0)},
    // lowp_amax / lowp_amax_per_token
    {"amax x NULL", kInv, "x", [](Env& e) { return lowp_amax(nullptr, e.amax, nullptr); }},
    {"amax out NULL", kInv, "amax", [](Env& e) { e.valid_quantize(); return lowp_amax(&e.x_t, nullptr, nullptr); }},
    {"amax out misaligned", kInv, "amax", [](Env& e) { e.valid_quantize(); return lowp_amax(&e.x_t, off(e.amax, 2), nullptr); }},
    {"amax x dtype E5M2", kInv, "x", [](Env& e) { e.valid_quantize(); e.x_t.dtype = LOWP_DTYPE_E5M2; return lowp_amax(&e.x_t, e.amax, nullptr); }},
    {"amax x cols 0", kInv, "x", [](Env& e) { e.valid_quantize(); e.x_t.cols = 0; return lowp_amax(&e.x_t, e.amax, nullptr); }},
    {"amax_per_token both NULL", kInv, "row_amax", [](Env& e) { e.valid_quantize(); return lowp_amax_per_token(&e.x_t, nullptr, nullptr, nullptr); }},
    {"amax_per_token row misaligned", kInv, "row_amax", [](Env& e) { e.valid_quantize(); return lowp_amax_per_token(&e.x_t, off(e.row_amax, 1), e.col_amax, nullptr); }},
    {"amax_per_token col misaligned", kInv, "col_amax", [](Env& e) { e.valid_quantize(); return lowp_amax_per_token(&e.x_t, e.row_amax, off(e.col_amax, 2), nullptr); }},
    {"amax_per_token x->data NULL", kInv, "x", [](Env& e) { e.valid_quantize(); e.x_t.data = nullptr; return lowp_amax_per_token(&e.x_t, e.row_amax, e.col_amax, nullptr); }},
    // lowp_fp8_delayed_scaling_update
    {"update num_tensors 0", kInv, "num_tensors", [](Env& e) { return e.update(0); }},
    {"update num_tensors -3", kInv, "num_tensors", [](Env& e) { return e.update(-3); }},
    {"update history_len 0", kInv, "history_len", [](Env& e) { return e.update(2, 0); }},
    {"update 2^40 x 2^30 history", kInv, "amax_history", [](Env& e) { return e.update(int64_t{1} << 40, int64_t{1} << 30); }},
    {"update amax_history NULL", kInv, "amax_history", [](Env& e) { return lowp_fp8_delayed_scaling_update(2, 4, nullptr, e.uscale, e.uscale_inv, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr); }},
    {"update scale NULL", kInv, "scale", [](Env& e) { return lowp_fp8_delayed_scaling_update(2, 4, e.hist, nullptr, e.uscale_inv, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr); }},
    {"update scale_inv NULL", kInv, "scale_inv", [](Env& e) { return lowp_fp8_delayed_scaling_update(2, 4, e.hist, e.uscale, nullptr, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr); }},
    {"update scale misaligned", kInv, "scale", [](Env& e) { return lowp_fp8_delayed_scaling_update(2, 4, e.hist, off(e.uscale, 1), e.uscale_inv, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr); }},
    {"update fp8_dtype FLOAT32", kInv, "fp8_dtype is LOWP_DTYPE_FLOAT32", [](Env& e) { return e.update(2, 4, LOWP_DTYPE_FLOAT32); }},
    {"update fp8_dtype E2M1", kInv, "fp8_dtype", [](Env& e) { return e.update(2, 4, LOWP_DTYPE_E2M1); }},
    {"update margin 100", kInv, "margin", [](Env& e) { return e.update(2, 4, LOWP_DTYPE_E4M3, 100); }},
    {"update margin -100", kInv, "margin", [](Env& e) { return e.update(2, 4, LOWP_DTYPE_E4M3, -100); }},
    {"update algo 2", kInv, "algo is 2 (not a lowp_amax_algo)", [](Env& e) { return e.update(2, 4, LOWP_DTYPE_E4M3, 0, static_cast<lowp_amax_algo>(2)); }},
    // lowp_quantized_sizes_query
    {"sizes NULL", kInv, "sizes", [](Env&) { return lowp_quantized_sizes_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, R, C, nullptr); }},
    {"sizes dtype FLOAT32", kInv, "dtype is LOWP_DTYPE_FLOAT32", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_FLOAT32, LOWP_SCALING_CURRENT, R, C, &e.sizes); }},
    {"sizes E4M3 with NVFP4 scaling", kInv, "scaling LOWP_SCALING_NVFP4_PER_TENSOR does not fit dtype LOWP_DTYPE_E4M3", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E4M3, LOWP_SCALING_NVFP4_PER_TENSOR, R, C, &e.sizes); }},
    {"sizes NVFP4 per-token, K 8", kInv, "K % 16", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, 16, 8, &e.sizes); }},
    {"sizes rows 0", kInv, "rows x cols is 0 x 8", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 0, C, &e.sizes); }},
    {"sizes cols -2", kInv, "-2", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E5M2, LOWP_SCALING_PER_TOKEN, R, -2, &e.sizes); }},
    {"sizes dtype 77", kInv, "dtype is 77 (not a lowp_dtype)", [](Env& e) { return lowp_quantized_sizes_query(static_cast<lowp_dtype>(77), LOWP_SCALING_CURRENT, R, C, &e.sizes); }},
    {"sizes scaling -1", kInv, "scaling is -1 (not a lowp_scaling)", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E4M3, static_cast<lowp_scaling>(-1), R, C, &e.sizes); }},
    // Aliasing (lowp.h): what a call writes overlaps nothing else of the call
    {"quantize rowwise codes inside x", kInv, "q->rowwise.data (32 bytes) overlaps x->data (128 bytes)",
     Q(e.q.rowwise.data = reinterpret_cast<uint8_t*>(e.x) + 16)},
    {"quantize columnwise codes on the rowwise codes", kInv, "q->rowwise.data (32 bytes) overlaps q->columnwise.data", Q(e.q.columnwise.data = e.row + 8)},
    {"quantize current amax on scale_inv", kInv, "q->scale_inv (4 bytes) overlaps q->amax", Q(e.q.amax = e.scale_inv)},
    {"quantize current scale on amax", kInv, "q->scale (4 bytes) overlaps q->amax", Q(e.q.scale = e.amax)},
    {"quantize delayed scale on scale_inv", kInv, "q->scale_inv (4 bytes) overlaps q->scale", Q(e.q.scaling = LOWP_SCALING_DELAYED; e.q.scale_inv = e.scale)},
    {"quantize per-token row amax on row scale_inv", kInv, "q->rowwise.scale_inv (16 bytes) overlaps q->rowwise.amax", QT(e.q.rowwise.amax = e.row_si + 1)},
    {"quantize per-token col scale_inv inside x", kInv, "q->columnwise.scale_inv (32 bytes) overlaps x->data", QT(e.q.columnwise.scale_inv = e.x + N - 2)},
    {"quantize_dact codes inside act_input", kInv, "q->rowwise.data (32 bytes) overlaps act_input", [](Env& e) {
       e.valid_quantize();
       return lowp_quantize_dact(&e.x_t, e.out, LOWP_ACTIVATION_SILU, (e.q.rowwise.data = e.out, &e.q), &e.cfg, nullptr); }},
    {"dequantize out on the codes", kInv, "out->data (128 bytes) overlaps q->rowwise.data", D(e.q.rowwise.data = reinterpret_cast<uint8_t*>(e.out) + 64)},
    {"dequantize out on scale_inv", kInv, "overlaps q->scale_inv", D(e.q.scale_inv = e.out + 3)},
    {"amax inside x", kInv, "amax (4 bytes) overlaps x->data", [](Env& e) { e.valid_quantize(); return lowp_amax(&e.x_t, e.x + 5, nullptr); }},
    {"amax_per_token row_amax inside col_amax", kInv, "row_amax (16 bytes) overlaps col_amax", [](Env& e) { e.valid_quantize(); return lowp_amax_per_token(&e.x_t, e.col_amax + 2, e.col_amax, nullptr); }},
    {"update scale is scale_inv", kInv, "scale (8 bytes) overlaps scale_inv", [](Env& e) {
       return lowp_fp8_delayed_scaling_update(2, 4, e.hist, e.uscale, e.uscale, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr); }},
    {"update scale inside the history", kInv, "amax_history (32 bytes) overlaps scale (8 bytes)", [](Env& e) {
       return lowp_fp8_delayed_scaling_update(2, 4, e.hist, e.hist + 6, e.uscale_inv, LOWP_DTYPE_E4M3, 0, LOWP_AMAX_ALGO_MAX, nullptr); }},
};

}  // namespace

TEST(ApiErrors, BaselinesSucceed) {
  // value-initialised: zeros are a valid input, amax 0, scale 0; the update's scales are 1
  expect_baselines_succeed(kBaselines, [](Env& e) { e.uscale[0] = e.uscale[1] = 1.0f; });
}

TEST(ApiErrors, EveryCaseRejectedWithoutWriting) {
  const int tried = expect_rejected_without_writing(kCases, offsetof(Env, x_t));
  std::cout << "[ api errors ] " << tried << " error cases tried\n";
  ::testing::Test::RecordProperty("error_cases", tried);
  EXPECT_GE(tried, 30);
}

TEST(ApiErrors, SuccessClearsMessage) {
  auto e = std::make_unique<Env>();
  EXPECT_EQ(lowp_amax(nullptr, e->amax, nullptr), kInv);
  EXPECT_STRNE(lowp_get_last_error(), "");
  e->valid_quantize();
  EXPECT_EQ(lowp_amax(&e->x_t, e->amax, nullptr), LOWP_SUCCESS);
  EXPECT_STREQ(lowp_get_last_error(), "");
  for (int k = 0; k < 5; ++k) {  // each entry point clears it, not just amax
    EXPECT_EQ(e->update(0), kInv);
    ASSERT_STRNE(lowp_get_last_error(), "");
    lowp_status s = LOWP_ERROR_INTERNAL;
    switch (k) {
      case 0: s = e->quantize(); break;
      case 1: e->valid_dequantize(); s = e->dequantize(); break;
      case 2: s = lowp_amax_per_token(&e->x_t, e->row_amax, nullptr, nullptr); break;
      case 3: e->uscale[0] = e->uscale[1] = 1; s = e->update(); break;
      case 4: s = lowp_quantized_sizes_query(LOWP_DTYPE_E5M2, LOWP_SCALING_PER_TOKEN, 3, 5, &e->sizes); break;
    }
    EXPECT_EQ(s, LOWP_SUCCESS) << k;
    EXPECT_STREQ(lowp_get_last_error(), "") << k;
  }
}

TEST(ApiErrors, MessageIsThreadLocal) {
  EXPECT_EQ(lowp_fp8_delayed_scaling_update(0, 1, nullptr, nullptr, nullptr, LOWP_DTYPE_E4M3, 0,
                                            LOWP_AMAX_ALGO_MAX, nullptr), kInv);
  const std::string main_msg = lowp_get_last_error();
  ASSERT_NE(main_msg.find("num_tensors"), std::string::npos) << main_msg;
  std::string other_before, other_after;
  std::thread t([&] {
    other_before = lowp_get_last_error();
    lowp_amax(nullptr, nullptr, nullptr);
    other_after = lowp_get_last_error();
  });
  t.join();
  EXPECT_EQ(other_before, "");  // the main thread's error does not show on another thread
  EXPECT_NE(other_after.find("x"), std::string::npos);
  EXPECT_EQ(lowp_get_last_error(), main_msg);  // nor does the other thread's error show here
}

TEST(ApiMisc, StatusNamesAndVersion) {
  EXPECT_STREQ(lowp_status_name(LOWP_SUCCESS), "LOWP_SUCCESS");
  EXPECT_STREQ(lowp_status_name(LOWP_ERROR_INVALID_ARGUMENT), "LOWP_ERROR_INVALID_ARGUMENT");
  EXPECT_STREQ(lowp_status_name(LOWP_ERROR_UNSUPPORTED), "LOWP_ERROR_UNSUPPORTED");
  EXPECT_STREQ(lowp_status_name(LOWP_ERROR_CUDA), "LOWP_ERROR_CUDA");
  EXPECT_STREQ(lowp_status_name(LOWP_ERROR_INTERNAL), "LOWP_ERROR_INTERNAL");
  EXPECT_STREQ(lowp_status_name(LOWP_ERROR_OUT_OF_MEMORY), "LOWP_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(lowp_status_name(static_cast<lowp_status>(77)), "LOWP_STATUS_UNKNOWN");
  // The library's version is the header's (both generated from CMake's project version).
  EXPECT_STREQ(lowp_version(), LOWP_VERSION_STRING);
  EXPECT_EQ(std::string(LOWP_VERSION_STRING), std::to_string(LOWP_VERSION_MAJOR) + "." + std::to_string(LOWP_VERSION_MINOR) +
                                                  "." + std::to_string(LOWP_VERSION_PATCH));
  EXPECT_EQ(lowp_cuda_available(), 0);  // CPU-only build, no GPU here
}

TEST(ApiMisc, SizesQuery) {
  lowp_quantized_sizes s;
  poison(&s, sizeof s);
  ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E4M3, LOWP_SCALING_DELAYED, 3, 5, &s), LOWP_SUCCESS);
  EXPECT_EQ(s.data_bytes[0], 15u);
  EXPECT_EQ(s.data_bytes[1], 15u);
  EXPECT_EQ(s.scale_inv_bytes[0] + s.scale_inv_bytes[1] + s.amax_bytes[0] + s.amax_bytes[1], 0u);
  EXPECT_EQ(s.tensor_scale_bytes, 4u);
  poison(&s, sizeof s);
  ASSERT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E5M2, LOWP_SCALING_PER_TOKEN, 3, 5, &s), LOWP_SUCCESS);
  EXPECT_EQ(s.data_bytes[0], 15u);
  EXPECT_EQ(s.data_bytes[1], 15u);
  EXPECT_EQ(s.scale_inv_bytes[0], 12u);  // one fp32 per row of x
  EXPECT_EQ(s.scale_inv_bytes[1], 20u);  // one fp32 per column of x
  EXPECT_EQ(s.amax_bytes[0], 12u);
  EXPECT_EQ(s.amax_bytes[1], 20u);
  EXPECT_EQ(s.tensor_scale_bytes, 0u);
}

TEST(ApiMisc, QuantConfigDefault) {
  lowp_quant_config c;
  poison(&c, sizeof c);  // every field must be set
  lowp_quant_config_default(&c);
  EXPECT_EQ(c.struct_size, sizeof c);
  EXPECT_EQ(c.amax_epsilon, 0.0f);
  EXPECT_EQ(c.power_of_two_scale, 0);
  EXPECT_EQ(c.rht, 0);
  EXPECT_EQ(c.rht_sign_mask, 0xD7E8u);
  EXPECT_EQ(c.stochastic_rounding, 0);
  EXPECT_EQ(c.rng_state, nullptr);
  EXPECT_EQ(c.block_2d, 0);
  EXPECT_EQ(c.amax_estimation, 0);
  EXPECT_EQ(c.amax_estimation_factor, 2.0f);
  lowp_quant_config_default(nullptr);  // no crash
}
