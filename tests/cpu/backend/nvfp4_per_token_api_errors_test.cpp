// numerics §9 for the NVFP4 per-token entry points (lowp_quantize / lowp_dequantize /
// lowp_quantized_sizes_query with LOWP_SCALING_NVFP4_PER_TOKEN, lowp_nvfp4_amax_per_token and
// lowp_nvfp4_grouped_*): each case starts from a call that succeeds, breaks one rule, and checks
// the status, that the message names the argument or rule, and that no byte of any buffer
// (inputs and outputs live in one poisoned arena) changed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
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

constexpr int64_t M = 32, K = 48, kN = 3;

struct Env {
  alignas(16) float x[M * K];
  alignas(16) uint8_t row[M * K / 2], col[M * K / 2];
  // Single tensor: [roundup(32,128)][roundup(3,4)] and [roundup(48,128)][roundup(2,4)]; a group of
  // two 16-row members needs two arrays of each (128 x 4 bytes apiece).
  alignas(16) uint8_t row_s[2 * 128 * 4], col_s[2 * 128 * 4];
  alignas(16) float row_amax[M + 1], col_amax[kN * K + 1];  // [+1]: spare for misalignment
  alignas(16) uint64_t rng[3];
  alignas(16) float out[M * K];
  alignas(16) uint64_t ws[64];
  lowp_quantized_sizes sizes;
  // Arguments, set per case.
  alignas(16) int64_t members[kN + 1];
  lowp_tensor x_t{};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  lowp_quant_config cfg{};
  lowp_tensor out_t{};

  // A valid per-token quantize of both orientations (compact scales, defaults).
  void valid_quantize() {
    x_t = {x, LOWP_DTYPE_FLOAT32, M, K};
    q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
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
  // A valid group: members 16, 0, 16 rows.
  void valid_group() {
    valid_quantize();
    members[0] = 16, members[1] = 0, members[2] = 16;
  }
  lowp_status quantize() { return lowp_quantize(&x_t, &q, &cfg, nullptr); }
  lowp_status dequantize(lowp_orientation w = LOWP_ROWWISE) { return lowp_dequantize(&q, w, &out_t, nullptr); }
  lowp_status amax(float* r, float* c) { return lowp_nvfp4_amax_per_token(&x_t, r, c, &cfg, nullptr); }
  lowp_status gquantize(int64_t n = kN) {
    return lowp_nvfp4_grouped_quantize(&x_t, n, members, &q, &cfg, nullptr, 0, nullptr);
  }
  lowp_status gamax(float* r, float* c, int64_t n = kN) {
    return lowp_nvfp4_grouped_amax(&x_t, n, members, r, c, &cfg, nullptr, 0, nullptr);
  }
};
constexpr size_t kDataBytes = offsetof(Env, members);

template <typename T>
T* off(T* p, int bytes) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + bytes);
}

using Case = ErrorCase<Env>;

const lowp_status kInv = LOWP_ERROR_INVALID_ARGUMENT, kUns = LOWP_ERROR_UNSUPPORTED;

const Baselines<Env> kBaselines = {
    {"quantize", [](Env& e) { e.valid_quantize(); return e.quantize(); }},
    {"quantize RHT + SR, swizzled", [](Env& e) { e.valid_sr(); e.q.scale_layout = LOWP_SCALE_LAYOUT_SWIZZLED; return e.quantize(); }},
    {"quantize rowwise only, M 24", [](Env& e) { e.valid_quantize(); e.x_t.rows = e.q.rows = 24; e.q.columnwise.data = nullptr; return e.quantize(); }},
    {"quantize amax given", [](Env& e) { e.valid_quantize(); e.cfg.amax_given = 1; return e.quantize(); }},
    {"quantize NULL cfg", [](Env& e) { e.valid_quantize(); return lowp_quantize(&e.x_t, &e.q, nullptr, nullptr); }},
    {"dequantize rowwise", [](Env& e) { e.valid_dequantize(); return e.dequantize(); }},
    {"dequantize columnwise bf16", [](Env& e) { e.valid_dequantize(LOWP_COLUMNWISE); e.out_t.dtype = LOWP_DTYPE_BFLOAT16; return e.dequantize(LOWP_COLUMNWISE); }},
    {"sizes", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, M, K, &e.sizes); }},
    {"K1 both", [](Env& e) { e.valid_quantize(); return e.amax(e.row_amax, e.col_amax); }},
    {"K1 rowwise, 24 x 40", [](Env& e) { e.valid_quantize(); e.x_t.rows = 24; e.x_t.cols = 40; return e.amax(e.row_amax, nullptr); }},
    {"K1 columns with RHT", [](Env& e) { e.valid_quantize(); e.cfg.rht = 1; return e.amax(nullptr, e.col_amax); }},
    {"K1 NULL cfg", [](Env& e) { e.valid_quantize(); return lowp_nvfp4_amax_per_token(&e.x_t, e.row_amax, e.col_amax, nullptr, nullptr); }},
    {"grouped quantize", [](Env& e) { e.valid_group(); return e.gquantize(); }},
    {"grouped quantize RHT + SR, swizzled", [](Env& e) { e.valid_group(); e.valid_sr(); e.q.scale_layout = LOWP_SCALE_LAYOUT_SWIZZLED; return e.gquantize(); }},
    {"grouped quantize rowwise only, 5 + 0 + 27", [](Env& e) { e.valid_group(); e.members[0] = 5; e.members[2] = 27; e.q.columnwise.data = nullptr; return e.gquantize(); }},
    {"grouped quantize, all members empty", [](Env& e) { e.valid_group(); e.members[0] = e.members[2] = 0; e.x_t.rows = e.q.rows = 0; return e.gquantize(); }},
    {"grouped quantize, host workspace", [](Env& e) { e.valid_group(); return lowp_nvfp4_grouped_quantize(&e.x_t, kN, e.members, &e.q, &e.cfg, e.ws, sizeof e.ws, nullptr); }},
    {"grouped K1", [](Env& e) { e.valid_group(); e.cfg.rht = 1; return e.gamax(e.row_amax, e.col_amax); }},
    {"grouped K1 rows, 5 + 0 + 27", [](Env& e) { e.valid_group(); e.members[0] = 5; e.members[2] = 27; return e.gamax(e.row_amax, e.col_amax); }},
    {"grouped quantize, group_row_multiple 16", [](Env& e) { e.valid_group(); e.cfg.group_row_multiple = 16; return e.gquantize(); }},
    {"grouped K1, group_row_multiple 32, 32 + 0 + 0", [](Env& e) { e.valid_group(); e.cfg.group_row_multiple = 32; e.members[0] = 32; e.members[2] = 0; return e.gamax(e.row_amax, e.col_amax); }},
    {"grouped sizes", [](Env& e) { return lowp_nvfp4_grouped_sizes(kN, M, K, &e.sizes); }},
};

#define Q(body) [](Env& e) { e.valid_quantize(); body; return e.quantize(); }
#define QSR(body) [](Env& e) { e.valid_sr(); body; return e.quantize(); }
#define D(w, body) [](Env& e) { e.valid_dequantize(w); body; return e.dequantize(w); }
#define A(body, r, c) [](Env& e) { e.valid_quantize(); body; return e.amax(r, c); }
#define G(body) [](Env& e) { e.valid_group(); body; return e.gquantize(); }
#define GA(body, r, c) [](Env& e) { e.valid_group(); body; return e.gamax(r, c); }

const std::vector<Case> kCases = {
    // lowp_quantize: shapes
    {"quantize K 40", kInv, "K % 16", Q(e.x_t.cols = e.q.cols = 40)},
    {"quantize K 8, rowwise only", kInv, "K % 16", Q(e.x_t.cols = e.q.cols = 8; e.q.columnwise.data = nullptr)},
    {"quantize M 24 with columnwise", kInv, "M % 16", Q(e.x_t.rows = e.q.rows = 24)},
    {"quantize M 24 columnwise only", kInv, "M % 16", Q(e.x_t.rows = e.q.rows = 24; e.q.rowwise.data = nullptr)},
    {"quantize q rows != x rows", kInv, "q is", Q(e.q.rows = 16)},
    // lowp_quantize: knobs
    {"quantize block_2d (per-tensor only)", kInv, "cfg->block_2d", Q(e.cfg.block_2d = 1)},
    {"quantize block_2d, rowwise only", kInv, "block_2d", Q(e.cfg.block_2d = 1; e.q.columnwise.data = nullptr)},
    {"quantize amax_estimation (per-tensor only)", kInv, "amax_estimation", Q(e.cfg.rht = 1; e.cfg.amax_estimation = 1)},
    {"quantize amax_epsilon (FP8 knob)", kInv, "amax_epsilon", Q(e.cfg.amax_epsilon = 1e-6f)},
    {"quantize power_of_two_scale (FP8 knob)", kInv, "power_of_two_scale", Q(e.cfg.power_of_two_scale = 1)},
    {"quantize SR without rng_state", kInv, "rng_state", QSR(e.cfg.rng_state = nullptr)},
    {"quantize SR rng_state misaligned", kInv, "rng_state", QSR(e.cfg.rng_state = off(e.rng, 4))},
    {"quantize rht_sign_mask 0x10000", kInv, "rht_sign_mask", Q(e.cfg.rht = 1; e.cfg.rht_sign_mask = 0x10000u)},
    {"quantize scale_layout 7", kInv, "scale_layout", Q(e.q.scale_layout = static_cast<lowp_scale_layout>(7))},
    // lowp_quantize: recipe, dtypes, pointers
    {"quantize E4M3 with NVFP4_PER_TOKEN", kInv, "q->scaling", Q(e.q.dtype = LOWP_DTYPE_E4M3)},
    {"quantize x dtype E2M1", kInv, "x", Q(e.x_t.dtype = LOWP_DTYPE_E2M1)},
    {"quantize x NULL", kInv, "x", [](Env& e) { e.valid_quantize(); return lowp_quantize(nullptr, &e.q, &e.cfg, nullptr); }},
    {"quantize_dact per-token", kUns, "NVFP4", [](Env& e) { e.valid_quantize(); return lowp_quantize_dact(&e.x_t, e.out, LOWP_ACTIVATION_SILU, &e.q, &e.cfg, nullptr); }},
    {"quantize neither orientation", kInv, "data", Q(e.q.rowwise.data = nullptr; e.q.columnwise.data = nullptr)},
    {"quantize rowwise.amax NULL", kInv, "q->rowwise.amax", Q(e.q.rowwise.amax = nullptr)},
    {"quantize rowwise.amax misaligned", kInv, "q->rowwise.amax", Q(e.q.rowwise.amax = off(e.row_amax, 2))},
    {"quantize columnwise.amax misaligned, amax given", kInv, "q->columnwise.amax", Q(e.cfg.amax_given = 1; e.q.columnwise.amax = off(e.col_amax, 1))},
    {"quantize columnwise.scale_inv NULL", kInv, "q->columnwise.scale_inv", Q(e.q.columnwise.scale_inv = nullptr)},
    {"quantize q struct_size 0", kInv, "lowp_quantized_tensor_init", Q(e.q.struct_size = 0)},
    {"quantize cfg struct_size above this lowp's", kInv, "newer lowp.h", Q(e.cfg.struct_size = sizeof(lowp_quant_config) + 8)},
    // lowp_dequantize
    {"dequantize K 40", kInv, "K % 16", D(LOWP_ROWWISE, e.q.cols = e.out_t.cols = 40)},
    {"dequantize columnwise M 24", kInv, "M % 16", D(LOWP_COLUMNWISE, e.q.rows = e.out_t.cols = 24)},
    {"dequantize rowwise.amax NULL", kInv, "q->rowwise.amax", D(LOWP_ROWWISE, e.q.rowwise.amax = nullptr)},
    {"dequantize columnwise.amax misaligned", kInv, "q->columnwise.amax", D(LOWP_COLUMNWISE, e.q.columnwise.amax = off(e.col_amax, 2))},
    {"dequantize columnwise.data NULL", kInv, "q->columnwise.data", D(LOWP_COLUMNWISE, e.q.columnwise.data = nullptr)},
    {"dequantize scale_layout 3", kInv, "scale_layout", D(LOWP_ROWWISE, e.q.scale_layout = static_cast<lowp_scale_layout>(3))},
    {"dequantize out dtype E2M1", kInv, "out", D(LOWP_ROWWISE, e.out_t.dtype = LOWP_DTYPE_E2M1)},
    {"dequantize out shape", kInv, "out", D(LOWP_COLUMNWISE, e.out_t.rows = M; e.out_t.cols = K)},
    // lowp_quantized_sizes_query
    {"sizes K 40", kInv, "K % 16", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, M, 40, &e.sizes); }},
    {"sizes rows 0", kInv, "rows x cols is 0 x 48", [](Env& e) { return lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, 0, K, &e.sizes); }},
    // lowp_nvfp4_amax_per_token
    {"K1 x NULL", kInv, "x", [](Env& e) { return lowp_nvfp4_amax_per_token(nullptr, e.row_amax, e.col_amax, nullptr, nullptr); }},
    {"K1 x dtype E4M3", kInv, "x->dtype is LOWP_DTYPE_E4M3", A(e.x_t.dtype = LOWP_DTYPE_E4M3, e.row_amax, e.col_amax)},
    {"K1 x cols 0", kInv, "x", A(e.x_t.cols = 0, e.row_amax, e.col_amax)},
    {"K1 both outputs NULL", kInv, "both NULL", A((void)0, nullptr, nullptr)},
    {"K1 row_amax misaligned", kInv, "row_amax", A((void)0, off(e.row_amax, 2), e.col_amax)},
    {"K1 col_amax misaligned", kInv, "col_amax", A((void)0, e.row_amax, off(e.col_amax, 1))},
    {"K1 columns with RHT, M 24", kInv, "M % 16", A(e.cfg.rht = 1; e.x_t.rows = 24, e.row_amax, e.col_amax)},
    {"K1 rht_sign_mask 0x1D7E8", kInv, "rht_sign_mask", A(e.cfg.rht = 1; e.cfg.rht_sign_mask = 0x1D7E8u, e.row_amax, nullptr)},
    {"K1 cfg struct_size 0", kInv, "lowp_quant_config_default", A(e.cfg.struct_size = 0, e.row_amax, e.col_amax)},
    {"K1 cfg struct_size below its first release", kInv, "cfg->struct_size",
     A(e.cfg.struct_size = offsetof(lowp_quant_config, group_row_multiple), e.row_amax, e.col_amax)},
    {"grouped quantize q struct_size 0", kInv, "lowp_quantized_tensor_init", G(e.q.struct_size = 0)},
    {"grouped quantize q struct_size above this lowp's", kInv, "newer lowp.h",
     G(e.q.struct_size = sizeof(lowp_quantized_tensor) + 8)},
    {"grouped quantize cfg struct_size 0", kInv, "lowp_quant_config_default", G(e.cfg.struct_size = 0)},
    {"grouped K1 cfg struct_size above this lowp's", kInv, "newer lowp.h",
     GA(e.cfg.struct_size = sizeof(lowp_quant_config) + 8, e.row_amax, e.col_amax)},
    // lowp_nvfp4_grouped_quantize: the group
    {"grouped N 0", kInv, "num_tensors", G(e.x_t.rows = e.q.rows = 0; return e.gquantize(0))},
    {"grouped N -1", kInv, "num_tensors", G(return e.gquantize(-1))},
    {"grouped N 2^41", kInv, "num_tensors", G(return e.gquantize(int64_t{1} << 41))},
    {"grouped x NULL", kInv, "x", [](Env& e) { e.valid_group(); return lowp_nvfp4_grouped_quantize(nullptr, kN, e.members, &e.q, &e.cfg, nullptr, 0, nullptr); }},
    {"grouped x rows -1", kInv, "x", G(e.x_t.rows = e.q.rows = -1)},
    {"grouped x dtype E2M1", kInv, "x->dtype is LOWP_DTYPE_E2M1", G(e.x_t.dtype = LOWP_DTYPE_E2M1)},
    {"grouped member_rows NULL", kInv, "member_rows", [](Env& e) { e.valid_group(); return lowp_nvfp4_grouped_quantize(&e.x_t, kN, nullptr, &e.q, &e.cfg, nullptr, 0, nullptr); }},
    {"grouped member_rows misaligned", kInv, "member_rows", [](Env& e) { e.valid_group(); return lowp_nvfp4_grouped_quantize(&e.x_t, kN, off(e.members, 4), &e.q, &e.cfg, nullptr, 0, nullptr); }},
    {"grouped member negative", kInv, "member_rows[1]", G(e.members[1] = -16; e.members[2] = 32)},
    {"grouped member 8 rows with columnwise", kInv, "member_rows[0]", G(e.members[0] = 8; e.members[1] = 8)},
    {"grouped members past x->rows", kInv, "member_rows[2]", G(e.members[2] = 32)},
    {"grouped members short of x->rows", kInv, "sum to", G(e.members[2] = 0)},
    {"grouped bad last member writes no earlier member", kInv, "member_rows[2]", G(e.members[2] = -1)},
    {"grouped x->rows 24 with columnwise", kInv, "M % 16", G(e.x_t.rows = e.q.rows = 24; e.members[2] = 8)},
    // lowp_nvfp4_grouped_quantize: the outputs and knobs
    {"grouped q NULL", kInv, "q", [](Env& e) { e.valid_group(); return lowp_nvfp4_grouped_quantize(&e.x_t, kN, e.members, nullptr, &e.cfg, nullptr, 0, nullptr); }},
    {"grouped q->dtype E4M3", kInv, "q->dtype is LOWP_DTYPE_E4M3 and q->scaling LOWP_SCALING_NVFP4_PER_TOKEN", G(e.q.dtype = LOWP_DTYPE_E4M3)},
    {"grouped q->scaling NVFP4_PER_TENSOR", kInv, "q->scaling LOWP_SCALING_NVFP4_PER_TENSOR", G(e.q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR)},
    {"grouped q rows != x rows", kInv, "q is", G(e.q.rows = 16)},
    {"grouped K 40", kInv, "K % 16", G(e.x_t.cols = e.q.cols = 40; e.q.columnwise.data = nullptr)},
    {"grouped neither orientation", kInv, "data", G(e.q.rowwise.data = nullptr; e.q.columnwise.data = nullptr)},
    {"grouped columnwise.amax NULL", kInv, "q->columnwise.amax", G(e.q.columnwise.amax = nullptr)},
    {"grouped block_2d", kInv, "block_2d", G(e.cfg.block_2d = 1)},
    {"grouped SR without rng_state", kInv, "rng_state", G(e.cfg.stochastic_rounding = 1)},
    {"grouped amax_estimation", kInv, "amax_estimation", G(e.cfg.amax_estimation = 1)},
    {"grouped group_row_multiple 8", kInv, "group_row_multiple is 8", G(e.cfg.group_row_multiple = 8)},
    {"grouped group_row_multiple 256", kInv, "group_row_multiple is 256", G(e.cfg.group_row_multiple = 256)},
    {"grouped group_row_multiple -16", kInv, "group_row_multiple is -16", G(e.cfg.group_row_multiple = -16)},
    {"grouped member 16 rows, group_row_multiple 32", kInv, "member_rows[0] is 16; cfg->group_row_multiple needs every member's rows % 32", G(e.cfg.group_row_multiple = 32)},
    // lowp_nvfp4_grouped_amax
    {"grouped K1 both outputs NULL", kInv, "both NULL", GA((void)0, nullptr, nullptr)},
    {"grouped K1 col_amax misaligned", kInv, "col_amax", GA((void)0, e.row_amax, off(e.col_amax, 2))},
    {"grouped K1 N 0", kInv, "num_tensors", GA(return e.gamax(e.row_amax, e.col_amax, 0), e.row_amax, e.col_amax)},
    {"grouped K1 member 8 rows, columns with RHT", kInv, "member_rows[0]", GA(e.cfg.rht = 1; e.members[0] = 8; e.members[1] = 8, e.row_amax, e.col_amax)},
    {"grouped K1 x->rows 24, columns with RHT", kInv, "M % 16", GA(e.cfg.rht = 1; e.x_t.rows = 24; e.members[2] = 8, nullptr, e.col_amax)},
    {"grouped K1 member negative", kInv, "member_rows[0]", GA(e.members[0] = -1; e.members[2] = 17, e.row_amax, nullptr)},
    {"grouped K1 members short of x->rows", kInv, "sum to", GA(e.members[0] = 0, e.row_amax, e.col_amax)},
    {"grouped K1 rht_sign_mask", kInv, "rht_sign_mask", GA(e.cfg.rht = 1; e.cfg.rht_sign_mask = 0xFFFFFu, e.row_amax, e.col_amax)},
    {"grouped K1 group_row_multiple 48", kInv, "group_row_multiple is 48", GA(e.cfg.group_row_multiple = 48, e.row_amax, e.col_amax)},
    {"grouped K1 rows, member 5 rows, group_row_multiple 16", kInv, "member_rows[0] is 5; cfg->group_row_multiple", GA(e.cfg.group_row_multiple = 16; e.members[0] = 5; e.members[2] = 27, e.row_amax, nullptr)},
    {"grouped q->scaling 9", kInv, "q->scaling 9 (not a lowp_scaling)", G(e.q.scaling = static_cast<lowp_scaling>(9))},
    {"grouped x->data NULL", kInv, "x->data is NULL", G(e.x_t.data = nullptr)},
    // Aliasing (lowp.h): what a call writes overlaps nothing else of the call
    {"quantize per-token row amax on the column amax", kInv, "q->rowwise.amax (128 bytes) overlaps q->columnwise.amax",
     Q(e.q.rowwise.amax = e.col_amax + 10)},
    {"K1 row_amax inside x", kInv, "row_amax (128 bytes) overlaps x->data", A((void)0, e.x + 100, e.col_amax)},
    {"K1 row_amax inside col_amax", kInv, "row_amax (128 bytes) overlaps col_amax", A((void)0, e.col_amax + 10, e.col_amax)},
    {"grouped row amax inside the [N][K] column amax", kInv, "q->rowwise.amax (128 bytes) overlaps q->columnwise.amax (576 bytes)",
     G(e.q.rowwise.amax = e.col_amax + 100)},
    {"grouped scale arrays overlap (exact sizes from host member_rows)", kInv,
     "q->rowwise.scale_inv (1024 bytes) overlaps q->columnwise.scale_inv", G(e.q.columnwise.scale_inv = e.row_s + 256)},
    {"grouped amax on member_rows", kInv, "overlaps member_rows", G(e.q.rowwise.amax = reinterpret_cast<float*>(e.members))},
    {"grouped K1 col_amax on row_amax", kInv, "row_amax (128 bytes) overlaps col_amax", GA((void)0, e.row_amax, e.row_amax + 16)},
    // lowp_nvfp4_grouped_sizes
    {"grouped sizes NULL", kInv, "sizes", [](Env&) { return lowp_nvfp4_grouped_sizes(kN, M, K, nullptr); }},
    {"grouped sizes N 0", kInv, "num_tensors", [](Env& e) { return lowp_nvfp4_grouped_sizes(0, M, K, &e.sizes); }},
    {"grouped sizes R -1", kInv, "total_rows", [](Env& e) { return lowp_nvfp4_grouped_sizes(kN, -1, K, &e.sizes); }},
    {"grouped sizes cols 0", kInv, "cols", [](Env& e) { return lowp_nvfp4_grouped_sizes(kN, M, 0, &e.sizes); }},
    {"grouped sizes K 40", kInv, "K % 16", [](Env& e) { return lowp_nvfp4_grouped_sizes(kN, M, 40, &e.sizes); }},
    {"grouped sizes R x K over 2^56", kInv, "total_rows x cols", [](Env& e) { return lowp_nvfp4_grouped_sizes(kN, int64_t{1} << 50, int64_t{1} << 10, &e.sizes); }},
    {"grouped sizes N x K over 2^56", kInv, "num_tensors x cols", [](Env& e) { return lowp_nvfp4_grouped_sizes(int64_t{1} << 40, 16, int64_t{1} << 20, &e.sizes); }},
};

}  // namespace

TEST(Nvfp4PerTokenApiErrors, BaselinesSucceed) {
  expect_baselines_succeed(kBaselines);  // value-initialised: zeros are a valid input
}

TEST(Nvfp4PerTokenApiErrors, EveryCaseRejectedWithoutWriting) {
  const int tried = expect_rejected_without_writing(kCases, kDataBytes);
  std::cout << "[ nvfp4 per-token api errors ] " << tried << " error cases tried\n";
  ::testing::Test::RecordProperty("error_cases", tried);
  EXPECT_EQ(tried, static_cast<int>(kCases.size()));
}
