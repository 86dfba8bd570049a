// numerics §9 for the grouped FP8 entry points: each case starts from a call that succeeds, breaks
// one thing, and checks the status, that the message names the argument, and that no output
// byte (codes, scale, scale_inv, amax, dequantized data, workspace, out-params) changed.
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
#include "common/grouped_outputs.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

constexpr int64_t kN = 3, kTotal = 20;  // members 2x4 at 0, 0x5 at 8, 3x3 at 10

struct Env {
  // Poisoned data region: must be byte-identical after every rejected call.
  alignas(16) float x[32], act[32], out[32];
  alignas(16) uint8_t row[32], col[32];
  alignas(16) float scale[kN + 1], scale_inv[kN + 1], amax[4 * kN];
  alignas(16) uint64_t ws[64];
  size_t ws_bytes;
  int64_t bad;
  // Arguments, set per case.
  alignas(16) int64_t first[kN], last[kN], off[kN + 1];
  lowp_grouped_tensor g{}, og{};
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  lowp_quant_config cfg{};

  void valid(lowp_scaling s = LOWP_SCALING_CURRENT) {
    const int64_t f[kN] = {2, 0, 3}, l[kN] = {4, 5, 3}, o[kN] = {0, 8, 10};
    std::memcpy(first, f, sizeof f);
    std::memcpy(last, l, sizeof l);
    std::memcpy(off, o, sizeof o);
    g = {x, LOWP_DTYPE_FLOAT32, kN, kTotal, first, last, off};
    og = {out, LOWP_DTYPE_FLOAT32, kN, kTotal, first, last, off};
    q = grouped_outputs(LOWP_DTYPE_E4M3, s, kN, row, col, scale, scale_inv, amax, 1);
    lowp_quant_config_default(&cfg);
  }
  lowp_status quantize() { return lowp_grouped_quantize(&g, &q, &cfg, ws, sizeof ws, nullptr); }
  lowp_status dact(lowp_activation a = LOWP_ACTIVATION_GELU_TANH) {
    return lowp_grouped_quantize_dact(&g, act, a, &q, &cfg, ws, sizeof ws, nullptr);
  }
  lowp_status amax_(int64_t stride = 1) { return lowp_grouped_amax(&g, amax, stride, ws, sizeof ws, nullptr); }
  lowp_status dequant(lowp_orientation w = LOWP_ROWWISE) {
    return lowp_grouped_dequantize(&q, w, &og, ws, sizeof ws, nullptr);
  }
};
constexpr size_t kDataBytes = offsetof(Env, first);

template <typename T>
T* off_by(T* p, int bytes) {  // misaligned by `bytes`
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + bytes);
}

using Case = ErrorCase<Env>;

const lowp_status kInv = LOWP_ERROR_INVALID_ARGUMENT, kUns = LOWP_ERROR_UNSUPPORTED;

const Baselines<Env> kBaselines = {
    {"quantize current", [](Env& e) { e.valid(); return e.quantize(); }},
    {"quantize delayed", [](Env& e) { e.valid(LOWP_SCALING_DELAYED); return e.quantize(); }},
    {"quantize bf16 rowwise only", [](Env& e) { e.valid(); e.g.dtype = LOWP_DTYPE_BFLOAT16; e.q.columnwise_data = nullptr; return e.quantize(); }},
    {"dact", [](Env& e) { e.valid(); return e.dact(); }},
    {"amax", [](Env& e) { e.valid(); return e.amax_(); }},
    {"amax stride 4", [](Env& e) { e.valid(); return e.amax_(4); }},
    {"dequantize row", [](Env& e) { e.valid(); return e.dequant(); }},
    {"dequantize col", [](Env& e) { e.valid(); return e.dequant(LOWP_COLUMNWISE); }},
    {"no workspace on host", [](Env& e) { e.valid(); return lowp_grouped_quantize(&e.g, &e.q, nullptr, nullptr, 0, nullptr); }},
    // lowp.h: the CPU backend ignores the workspace (not checked: any pointer and size).
    {"host workspace ignored", [](Env& e) {
       e.valid();
       return lowp_grouped_quantize(&e.g, &e.q, nullptr, reinterpret_cast<void*>(uintptr_t{3}), 1, nullptr); }},
    {"workspace size", [](Env& e) { return lowp_grouped_workspace_size(kN, &e.ws_bytes); }},
};

#define Q(body) [](Env& e) { e.valid(); body; return e.quantize(); }
#define QD(body) [](Env& e) { e.valid(LOWP_SCALING_DELAYED); body; return e.quantize(); }
#define DA(body, ...) [](Env& e) { e.valid(); body; return e.dact(__VA_ARGS__); }
#define AM(body, ...) [](Env& e) { e.valid(); body; return e.amax_(__VA_ARGS__); }
#define DQ(body, ...) [](Env& e) { e.valid(); body; return e.dequant(__VA_ARGS__); }

const std::vector<Case> kCases = {
    // lowp_grouped_quantize: the group
    {"quantize N = 0", kInv, "num_tensors", Q(e.g.num_tensors = 0; e.q.num_tensors = 0)},
    {"quantize N = -1", kInv, "num_tensors", Q(e.g.num_tensors = -1; e.q.num_tensors = -1)},
    {"quantize x NULL", kInv, "x", [](Env& e) { e.valid(); return lowp_grouped_quantize(nullptr, &e.q, &e.cfg, nullptr, 0, nullptr); }},
    {"quantize x->data NULL", kInv, "x->data is NULL", Q(e.g.data = nullptr)},
    {"quantize x->data misaligned", kInv, "x->data is not aligned", Q(e.g.data = off_by(e.x, 2))},
    {"quantize first_dims NULL", kInv, "x->first_dims is NULL", Q(e.g.first_dims = nullptr)},
    {"quantize last_dims NULL", kInv, "last_dims", Q(e.g.last_dims = nullptr)},
    {"quantize offsets NULL", kInv, "offsets", Q(e.g.offsets = nullptr)},
    {"quantize offsets misaligned", kInv, "x->offsets is not aligned", Q(e.g.offsets = off_by(e.off, 4))},
    {"quantize negative first dim", kInv, "x member 1", Q(e.first[1] = -1)},
    {"quantize negative last dim", kInv, "x member 2", Q(e.last[2] = -3)},
    {"quantize negative offset", kInv, "x member 0 starts at element -1; offsets must be >= 0", Q(e.off[0] = -1)},
    {"quantize negative offset of a later member", kInv, "x member 2 starts at element -10", Q(e.off[2] = -10)},
    {"quantize overlap (offset inside previous member)", kInv, "x member 2", Q(e.off[2] = 7)},
    {"quantize empty member inside previous member", kInv, "x member 1", Q(e.off[1] = 7)},
    {"quantize members out of order", kInv, "x member 2", Q(e.off[0] = 10; e.off[1] = 18; e.off[2] = 0)},
    {"quantize member past total_elements", kInv, "total_elements", Q(e.g.total_elements = 18)},
    {"quantize empty member offset beyond total", kInv, "total_elements", Q(e.off[1] = 25)},
    {"quantize dims overflow int64", kInv, "total_elements", Q(e.first[2] = int64_t{1} << 40; e.last[2] = int64_t{1} << 40)},
    {"quantize total_elements -1", kInv, "total_elements", Q(e.g.total_elements = -1)},
    {"quantize total_elements 2^57", kInv, "total_elements", Q(e.g.total_elements = int64_t{1} << 57)},
    {"quantize x dtype E4M3", kInv, "x->dtype is LOWP_DTYPE_E4M3", Q(e.g.dtype = LOWP_DTYPE_E4M3)},
    {"quantize x dtype 99", kInv, "x->dtype is 99 (not a lowp_dtype)", Q(e.g.dtype = static_cast<lowp_dtype>(99))},
    {"quantize N = 2^41", kInv, "x->num_tensors is 2199023255552; must be in [1, 2^40]", Q(e.g.num_tensors = e.q.num_tensors = int64_t{1} << 41)},
    // the outputs
    {"quantize q NULL", kInv, "q", [](Env& e) { e.valid(); return lowp_grouped_quantize(&e.g, nullptr, &e.cfg, nullptr, 0, nullptr); }},
    {"quantize q->num_tensors 2 vs 3", kInv, "q->num_tensors", Q(e.q.num_tensors = 2)},
    {"quantize q->num_tensors 4 vs 3", kInv, "q->num_tensors", Q(e.q.num_tensors = 4)},
    {"quantize q->dtype FLOAT32", kInv, "q->dtype is LOWP_DTYPE_FLOAT32", Q(e.q.dtype = LOWP_DTYPE_FLOAT32)},
    {"quantize q->dtype -4", kInv, "q->dtype is -4 (not a lowp_dtype)", Q(e.q.dtype = static_cast<lowp_dtype>(-4))},
    {"quantize q->dtype E2M1", kInv, "q->dtype", Q(e.q.dtype = LOWP_DTYPE_E2M1)},
    {"quantize PER_TOKEN", kUns, "PER_TOKEN", Q(e.q.scaling = LOWP_SCALING_PER_TOKEN)},
    {"quantize NVFP4 scaling", kInv, "q->scaling is LOWP_SCALING_NVFP4_PER_TENSOR", Q(e.q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR)},
    {"quantize scaling 12", kInv, "q->scaling is 12 (not a lowp_scaling)", Q(e.q.scaling = static_cast<lowp_scaling>(12))},
    {"quantize neither orientation", kInv, "rowwise_data", Q(e.q.rowwise_data = nullptr; e.q.columnwise_data = nullptr)},
    {"quantize amax_stride -1", kInv, "q->amax_stride is -1", Q(e.q.amax_stride = -1)},
    {"quantize amax_stride 2^61", kInv, "q->amax_stride is 2305843009213693952; with 3 entries", Q(e.q.amax_stride = int64_t{1} << 61)},
    {"quantize amax_stride INT64_MAX", kInv, "q->amax_stride", Q(e.q.amax_stride = INT64_MAX)},
    {"quantize scale NULL", kInv, "q->scale", Q(e.q.scale = nullptr)},
    {"quantize delayed scale NULL", kInv, "q->scale", QD(e.q.scale = nullptr)},
    {"quantize scale_inv NULL", kInv, "q->scale_inv", Q(e.q.scale_inv = nullptr)},
    {"quantize amax NULL", kInv, "q->amax", QD(e.q.amax = nullptr)},
    {"quantize amax misaligned", kInv, "q->amax", Q(e.q.amax = off_by(e.amax, 2))},
    // growable structs (lowp.h): q and cfg read through their struct_size
    {"quantize q struct_size 0", kInv, "lowp_grouped_quantized_tensor_init", Q(e.q.struct_size = 0)},
    {"quantize q struct_size below its first release", kInv, "q->struct_size",
     Q(e.q.struct_size = offsetof(lowp_grouped_quantized_tensor, amax_stride))},
    {"quantize q struct_size above this lowp's", kInv, "newer lowp.h",
     Q(e.q.struct_size = sizeof(lowp_grouped_quantized_tensor) + 8)},
    {"quantize cfg struct_size 0", kInv, "lowp_quant_config_default", Q(e.cfg.struct_size = 0)},
    {"quantize cfg struct_size 8", kInv, "cfg->struct_size", Q(e.cfg.struct_size = 8)},
    {"dact q struct_size 0", kInv, "lowp_grouped_quantized_tensor_init", DA(e.q.struct_size = 0)},
    {"dact cfg struct_size above this lowp's", kInv, "newer lowp.h", DA(e.cfg.struct_size = sizeof(lowp_quant_config) + 4)},
    {"dequantize q struct_size 0", kInv, "lowp_grouped_quantized_tensor_init", DQ(e.q.struct_size = 0)},
    {"dequantize q struct_size above this lowp's", kInv, "newer lowp.h",
     DQ(e.q.struct_size = sizeof(lowp_grouped_quantized_tensor) + 8)},
    // cfg
    {"quantize cfg rht", kInv, "cfg->rht is 1; it applies to NVFP4 recipes only", Q(e.cfg.rht = 1)},
    {"quantize cfg stochastic_rounding", kInv, "stochastic_rounding", Q(e.cfg.stochastic_rounding = 1)},
    {"quantize cfg block_2d", kInv, "block_2d", Q(e.cfg.block_2d = 1)},
    {"quantize cfg amax_estimation", kInv, "cfg->amax_estimation is 1", Q(e.cfg.amax_estimation = 1)},
    {"quantize cfg amax_given", kInv, "cfg->amax_given is 1", Q(e.cfg.amax_given = 1)},
    {"quantize cfg amax_epsilon -1", kInv, "amax_epsilon", Q(e.cfg.amax_epsilon = -1.0f)},
    {"quantize cfg amax_epsilon NaN", kInv, "amax_epsilon", Q(e.cfg.amax_epsilon = std::nanf(""))},
    // lowp_grouped_quantize_dact
    {"dact act_input NULL", kInv, "act_input", [](Env& e) {
       e.valid();
       return lowp_grouped_quantize_dact(&e.g, nullptr, LOWP_ACTIVATION_SILU, &e.q, &e.cfg, nullptr, 0, nullptr); }},
    {"dact act 7", kInv, "act is 7 (not a lowp_activation)", DA((void)0, static_cast<lowp_activation>(7))},
    {"dact act -1", kInv, "act", DA((void)0, static_cast<lowp_activation>(-1))},
    {"dact act_input misaligned", kInv, "act_input", [](Env& e) {
       e.valid();
       return lowp_grouped_quantize_dact(&e.g, off_by(e.act, 2), LOWP_ACTIVATION_RELU, &e.q, &e.cfg, nullptr, 0, nullptr); }},
    {"dact grad N = 0", kInv, "num_tensors", DA(e.g.num_tensors = 0; e.q.num_tensors = 0)},
    {"dact grad overlap", kInv, "grad member 2", DA(e.off[2] = 3)},
    {"dact grad->data NULL", kInv, "grad->data is NULL", DA(e.g.data = nullptr)},
    {"dact PER_TOKEN", kUns, "PER_TOKEN", DA(e.q.scaling = LOWP_SCALING_PER_TOKEN)},
    {"dact q->num_tensors mismatch", kInv, "q->num_tensors", DA(e.q.num_tensors = 1)},
    {"dact cfg rht", kInv, "rht", DA(e.cfg.rht = 1)},
    // lowp_grouped_amax
    {"amax x NULL", kInv, "x", [](Env& e) { e.valid(); return lowp_grouped_amax(nullptr, e.amax, 1, nullptr, 0, nullptr); }},
    {"amax out NULL", kInv, "amax", [](Env& e) { e.valid(); return lowp_grouped_amax(&e.g, nullptr, 1, nullptr, 0, nullptr); }},
    {"amax out misaligned", kInv, "amax", [](Env& e) { e.valid(); return lowp_grouped_amax(&e.g, off_by(e.amax, 1), 1, nullptr, 0, nullptr); }},
    {"amax stride -2", kInv, "amax_stride is -2", AM((void)0, -2)},
    {"amax stride INT64_MAX", kInv, "amax_stride is 9223372036854775807; with 3 entries", AM((void)0, INT64_MAX)},
    {"amax stride 2^55 (span 2^56 + 1)", kInv, "amax_stride", AM((void)0, int64_t{1} << 55)},
    {"amax N = 0", kInv, "num_tensors", AM(e.g.num_tensors = 0)},
    {"amax overlap", kInv, "x member 2", AM(e.off[2] = 5)},
    {"amax x dtype E5M2", kInv, "x", AM(e.g.dtype = LOWP_DTYPE_E5M2)},
    // lowp_grouped_dequantize
    {"dequantize q NULL", kInv, "q", [](Env& e) { e.valid(); return lowp_grouped_dequantize(nullptr, LOWP_ROWWISE, &e.og, nullptr, 0, nullptr); }},
    {"dequantize out NULL", kInv, "out", [](Env& e) { e.valid(); return lowp_grouped_dequantize(&e.q, LOWP_ROWWISE, nullptr, nullptr, 0, nullptr); }},
    {"dequantize num_tensors mismatch", kInv, "q->num_tensors", DQ(e.q.num_tensors = 2)},
    {"dequantize rowwise_data NULL", kInv, "q->rowwise_data", DQ(e.q.rowwise_data = nullptr)},
    {"dequantize columnwise_data NULL", kInv, "q->columnwise_data", DQ(e.q.columnwise_data = nullptr, LOWP_COLUMNWISE)},
    {"dequantize which 2", kInv, "which is 2 (not a lowp_orientation)", DQ((void)0, static_cast<lowp_orientation>(2))},
    {"dequantize q->dtype BFLOAT16", kInv, "q->dtype is LOWP_DTYPE_BFLOAT16", DQ(e.q.dtype = LOWP_DTYPE_BFLOAT16)},
    {"dequantize scale_inv NULL", kInv, "q->scale_inv", DQ(e.q.scale_inv = nullptr)},
    {"dequantize out dtype E4M3", kInv, "out->dtype is LOWP_DTYPE_E4M3", DQ(e.og.dtype = LOWP_DTYPE_E4M3)},
    {"dequantize out overlap", kInv, "out member 2", DQ(e.off[2] = 6)},
    {"dequantize out N = 0", kInv, "num_tensors", DQ(e.og.num_tensors = 0; e.q.num_tensors = 0)},
    {"dequantize out->data NULL", kInv, "out->data is NULL", DQ(e.og.data = nullptr)},
    {"dequantize out negative offset", kInv, "out member 1 starts at element -8", DQ(e.off[1] = -8)},
    // Aliasing (lowp.h): what a call writes overlaps nothing else of the call
    {"quantize rowwise codes inside x", kInv, "q->rowwise_data (20 bytes) overlaps x->data (80 bytes)",
     Q(e.q.rowwise_data = reinterpret_cast<uint8_t*>(e.x) + 4)},
    {"quantize columnwise codes on the rowwise codes", kInv, "q->rowwise_data (20 bytes) overlaps q->columnwise_data",
     Q(e.q.columnwise_data = e.row + 19)},
    {"quantize scale inside the strided amax", kInv, "q->scale (12 bytes) overlaps q->amax (36 bytes)",
     Q(e.q.amax_stride = 4; e.q.scale = e.amax + 8)},
    {"quantize delayed: scale_inv on scale", kInv, "q->scale_inv (12 bytes) overlaps q->scale", QD(e.q.scale_inv = e.scale + 1)},
    {"quantize scale_inv on the offsets", kInv, "q->scale_inv (12 bytes) overlaps x->offsets", Q(e.q.scale_inv = reinterpret_cast<float*>(e.off))},
    {"dact codes inside act_input", kInv, "q->rowwise_data (20 bytes) overlaps act_input", DA(e.q.rowwise_data = reinterpret_cast<uint8_t*>(e.act))},
    {"amax inside x", kInv, "amax (12 bytes) overlaps x->data", [](Env& e) { e.valid(); return lowp_grouped_amax(&e.g, e.x + 2, 1, nullptr, 0, nullptr); }},
    {"dequantize out on the codes", kInv, "out->data (80 bytes) overlaps q->rowwise_data", DQ(e.og.data = e.row)},
    {"dequantize out on scale_inv", kInv, "out->data (80 bytes) overlaps q->scale_inv", DQ(e.og.data = e.scale_inv)},
    // lowp_grouped_workspace_size, lowp_grouped_layout_error
    {"workspace_size 0", kInv, "num_tensors", [](Env& e) { return lowp_grouped_workspace_size(0, &e.ws_bytes); }},
    {"workspace_size -5", kInv, "num_tensors", [](Env& e) { return lowp_grouped_workspace_size(-5, &e.ws_bytes); }},
    {"workspace_size NULL out", kInv, "bytes", [](Env&) { return lowp_grouped_workspace_size(kN, nullptr); }},
    {"layout_error workspace NULL", kInv, "workspace", [](Env& e) { return lowp_grouped_layout_error(nullptr, &e.bad, nullptr); }},
    {"layout_error out NULL", kInv, "bad_member_plus_one", [](Env& e) { return lowp_grouped_layout_error(e.ws, nullptr, nullptr); }},
    {"layout_error out misaligned", kInv, "bad_member_plus_one is not aligned to 8 bytes",
     [](Env& e) { return lowp_grouped_layout_error(e.ws, off_by(&e.bad, 4), nullptr); }},
};

}  // namespace

TEST(GroupedApiErrors, BaselinesSucceed) {
  expect_baselines_succeed(kBaselines, [](Env& e) { poison(&e, sizeof e); });  // poisoned inputs are valid values
}

TEST(GroupedApiErrors, EveryCaseRejectedWithoutWriting) {
  const int tried = expect_rejected_without_writing(kCases, kDataBytes);
  std::cout << "[ grouped api errors ] " << tried << " error cases tried\n";
  EXPECT_GE(tried, 20);
  EXPECT_EQ(tried, static_cast<int>(kCases.size()));
}

// An error in one member's layout leaves earlier (valid) members unwritten too.
TEST(GroupedApiErrors, BadLastMemberWritesNoEarlierMember) {
  auto env = std::make_unique<Env>();
  poison(env.get(), sizeof(Env));
  env->valid(LOWP_SCALING_DELAYED);
  env->last[2] = -1;  // members 0 and 1 are fine
  EXPECT_EQ(env->quantize(), kInv);
  EXPECT_TRUE(untouched(env.get(), kDataBytes, "data region"));
}

TEST(GroupedApiErrors, LayoutErrorOnHostWorkspaceIsZero) {
  auto env = std::make_unique<Env>();
  poison(env.get(), sizeof(Env));
  env->valid();
  ASSERT_EQ(env->quantize(), LOWP_SUCCESS) << lowp_get_last_error();
  env->bad = -1;
  ASSERT_EQ(lowp_grouped_layout_error(env->ws, &env->bad, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(env->bad, 0);
}

TEST(GroupedApiErrors, WorkspaceSizeGrowsWithN) {
  size_t a = 0, b = 0, c = 0;
  ASSERT_EQ(lowp_grouped_workspace_size(1, &a), LOWP_SUCCESS);
  ASSERT_EQ(lowp_grouped_workspace_size(64, &b), LOWP_SUCCESS);
  ASSERT_EQ(lowp_grouped_workspace_size(65, &c), LOWP_SUCCESS);
  EXPECT_GT(a, 0u);
  EXPECT_GT(c, b);  // no fixed 64-member cap
}
