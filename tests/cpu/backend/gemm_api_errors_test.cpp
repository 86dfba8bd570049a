// numerics §9 for lowp_gemm and lowp_gemm_workspace_size (lowp/gemm.h): each case starts from a
// call that succeeds, breaks one rule, and checks the status, that the message names the argument
// or the rule, and that no byte of any buffer (operands, D, bias, the size output: one poisoned
// arena) changed.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <vector>

#include "common/compare.h"
#include "common/error_table.h"
#include "common/gemm_operands.h"
#include "lowp/gemm.h"

using namespace lowp_test;

namespace {

constexpr int64_t M = 32, N = 16, K = 48;
constexpr size_t kScaleBytes = 128 * 4;  // every NVFP4 scale array here: [128][roundup(<=3, 4)]

// A copy argument stored as an int (the error cases hold out-of-range values).
lowp_orientation copy(int v) { return static_cast<lowp_orientation>(v); }

struct Env {
  alignas(16) uint8_t a_row[M * K], a_col[M * K], b_row[N * K], b_col[N * K];
  alignas(16) uint8_t a_rs[kScaleBytes], a_cs[kScaleBytes], b_rs[kScaleBytes], b_cs[kScaleBytes];
  alignas(16) float a_rv[M + 4], a_cv[K + 4], b_rv[N + 4], b_cv[K + 4];  // per-row scale_inv or amax
  alignas(16) float a_t[4], b_t[4];  // FP8 per-tensor scale, scale_inv, amax
  alignas(16) float d[M * N + 4];
  alignas(16) uint16_t bias16[N + 8];
  alignas(16) float bias32[N + 4];
  size_t bytes;
  // Arguments, set per case.
  lowp_quantized_tensor a = LOWP_QUANTIZED_TENSOR_INIT, b = LOWP_QUANTIZED_TENSOR_INIT;
  int ac = LOWP_ROWWISE, bc = LOWP_ROWWISE;  // ints: cases store out-of-range copies (an enum load of those is UB)
  lowp_tensor dt{};
  lowp_gemm_config cfg{};

  void tensor(lowp_quantized_tensor& q, lowp_dtype dtype, lowp_scaling s, uint8_t* row, uint8_t* col, uint8_t* rs,
              uint8_t* cs, float* rv, float* cv, float* t) {
    q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = dtype;
    q.scaling = s;
    q.scale_layout = LOWP_SCALE_LAYOUT_COMPACT;
    const bool nvfp4 = dtype == LOWP_DTYPE_E2M1, per_row = s == LOWP_SCALING_PER_TOKEN;
    q.rowwise = {row, nvfp4 ? static_cast<void*>(rs) : per_row ? static_cast<void*>(rv) : nullptr, nvfp4 ? rv : nullptr};
    q.columnwise = {col, nvfp4 ? static_cast<void*>(cs) : per_row ? static_cast<void*>(cv) : nullptr, nvfp4 ? cv : nullptr};
    if (!nvfp4 && !per_row) q.scale = t, q.scale_inv = t + 1, q.amax = t + 2;
  }
  // A valid GEMM of product p: a is M x K (fprop, dgrad: rowwise) or its transpose's tensor.
  void valid(lowp_dtype dtype, lowp_scaling s, Product p = Product::kFprop) {
    tensor(a, dtype, s, a_row, a_col, a_rs, a_cs, a_rv, a_cv, a_t);
    tensor(b, dtype, s, b_row, b_col, b_rs, b_cs, b_rv, b_cv, b_t);
    ac = a_copy_of(p);
    bc = b_copy_of(p);
    a.rows = ac == LOWP_ROWWISE ? M : K, a.cols = ac == LOWP_ROWWISE ? K : M;
    b.rows = bc == LOWP_ROWWISE ? N : K, b.cols = bc == LOWP_ROWWISE ? K : N;
    dt = {d, LOWP_DTYPE_FLOAT32, M, N};
    lowp_gemm_config_default(&cfg);
  }
  void fp8(Product p = Product::kFprop) { valid(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, p); }
  void fp8_token(Product p = Product::kFprop) { valid(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, p); }
  void nvfp4(Product p = Product::kFprop) { valid(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, p); }
  void nvfp4_token(Product p = Product::kFprop) { valid(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, p); }
  lowp_status gemm() { return lowp_gemm(&a, copy(ac), &b, copy(bc), &dt, &cfg, nullptr, 0, nullptr); }
  lowp_status size() { return lowp_gemm_workspace_size(&a, copy(ac), &b, copy(bc), &dt, &cfg, &bytes); }
};
constexpr size_t kDataBytes = offsetof(Env, a);

template <typename T>
T* off(T* p, int bytes) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + bytes);
}

using Case = ErrorCase<Env>;
const lowp_status kInv = LOWP_ERROR_INVALID_ARGUMENT;

const Baselines<Env> kBaselines = {
    {"fp8 fprop", [](Env& e) { e.fp8(); return e.gemm(); }},
    {"fp8 dgrad", [](Env& e) { e.fp8(Product::kDgrad); return e.gemm(); }},
    {"fp8 wgrad, E5M2 b, fast accumulation", [](Env& e) { e.fp8(Product::kWgrad); e.b.dtype = LOWP_DTYPE_E5M2; e.cfg.fast_accumulation = 1; return e.gemm(); }},
    {"fp8 delayed x current", [](Env& e) { e.fp8(); e.a.scaling = LOWP_SCALING_DELAYED; return e.gemm(); }},
    {"fp8 per-token wgrad, bf16 bias", [](Env& e) { e.fp8_token(Product::kWgrad); e.cfg.bias = e.bias16; return e.gemm(); }},
    {"nvfp4 fprop, f32 bias, accumulate", [](Env& e) { e.nvfp4(); e.cfg.bias = e.bias32; e.cfg.bias_dtype = LOWP_DTYPE_FLOAT32; e.cfg.accumulate = 1; return e.gemm(); }},
    {"nvfp4 wgrad, both RHT, swizzled", [](Env& e) { e.nvfp4(Product::kWgrad); e.cfg.a_columnwise_rht = e.cfg.b_columnwise_rht = 1; e.a.scale_layout = LOWP_SCALE_LAYOUT_SWIZZLED; return e.gemm(); }},
    {"nvfp4 dgrad, a's columnwise RHT unused", [](Env& e) { e.nvfp4(Product::kDgrad); e.cfg.a_columnwise_rht = 1; return e.gemm(); }},
    {"nvfp4 per-token dgrad, bf16 D", [](Env& e) { e.nvfp4_token(Product::kDgrad); e.dt.dtype = LOWP_DTYPE_BFLOAT16; return e.gemm(); }},
    // gemm.h: bias_dtype is not read without a bias.
    {"no bias, bias_dtype not read", [](Env& e) { e.fp8(); e.cfg.bias_dtype = static_cast<lowp_dtype>(42); return e.gemm(); }},
    {"NULL cfg", [](Env& e) { e.nvfp4_token(); return lowp_gemm(&e.a, copy(e.ac), &e.b, copy(e.bc), &e.dt, nullptr, nullptr, 0, nullptr); }},
    {"workspace size (host: 0)", [](Env& e) { e.fp8(); e.bytes = 7; const lowp_status s = e.size(); return s == LOWP_SUCCESS && e.bytes != 0 ? LOWP_ERROR_INTERNAL : s; }},
};

#define F8(body) [](Env& e) { e.fp8(); body; return e.gemm(); }
#define F8P(p, body) [](Env& e) { e.fp8(p); body; return e.gemm(); }
#define F8T(p, body) [](Env& e) { e.fp8_token(p); body; return e.gemm(); }
#define N4(p, body) [](Env& e) { e.nvfp4(p); body; return e.gemm(); }
#define N4T(p, body) [](Env& e) { e.nvfp4_token(p); body; return e.gemm(); }
#define SZ(body) [](Env& e) { e.nvfp4(); body; return e.size(); }

const Product kF = Product::kFprop, kD = Product::kDgrad, kW = Product::kWgrad;

const std::vector<Case> kCases = {
    // Pointers and enums
    {"a NULL", kInv, "a is NULL", [](Env& e) { e.fp8(); return lowp_gemm(nullptr, copy(e.ac), &e.b, copy(e.bc), &e.dt, &e.cfg, nullptr, 0, nullptr); }},
    {"b NULL", kInv, "b is NULL", [](Env& e) { e.fp8(); return lowp_gemm(&e.a, copy(e.ac), nullptr, copy(e.bc), &e.dt, &e.cfg, nullptr, 0, nullptr); }},
    {"d NULL", kInv, "d is NULL", [](Env& e) { e.fp8(); return lowp_gemm(&e.a, copy(e.ac), &e.b, copy(e.bc), nullptr, &e.cfg, nullptr, 0, nullptr); }},
    {"a_copy 7", kInv, "a_copy is 7 (not a lowp_orientation)", F8(e.ac = 7)},
    {"b_copy -1", kInv, "b_copy is -1 (not a lowp_orientation)", F8(e.bc = -1)},
    // Recipes
    {"a dtype FLOAT32", kInv, "a->dtype is LOWP_DTYPE_FLOAT32", F8(e.a.dtype = LOWP_DTYPE_FLOAT32)},
    {"a E2M1 with DELAYED", kInv, "a->scaling LOWP_SCALING_DELAYED does not fit dtype E2M1", F8(e.a.dtype = LOWP_DTYPE_E2M1; e.a.scaling = LOWP_SCALING_DELAYED)},
    {"b E4M3 with NVFP4_PER_TENSOR", kInv, "b->scaling", F8(e.b.scaling = LOWP_SCALING_NVFP4_PER_TENSOR)},
    {"per-tensor x per-token FP8", kInv, "one recipe family", F8(e.b.scaling = LOWP_SCALING_PER_TOKEN; e.b.rowwise.scale_inv = e.b_rv)},
    {"FP8 x NVFP4", kInv, "one recipe family", N4(kF, e.a.dtype = LOWP_DTYPE_E4M3; e.a.scaling = LOWP_SCALING_CURRENT; e.a.scale_inv = e.a_t)},
    {"NVFP4 per-tensor x per-token", kInv, "one recipe family", N4(kF, e.b.scaling = LOWP_SCALING_NVFP4_PER_TOKEN)},
    {"E5M2 x E5M2", kInv, "E5M2", F8(e.a.dtype = e.b.dtype = LOWP_DTYPE_E5M2)},
    // Shapes
    {"a rows 0", kInv, "a is 0 x 48; rows and cols must be >= 1", F8(e.a.rows = 0)},
    {"K mismatch", kInv, "different K", F8(e.b.cols = 32)},
    {"K mismatch, wgrad (a's rows)", kInv, "different K", N4(kW, e.a.rows = 32)},
    {"FP8 K 40", kInv, "K % 16", F8(e.a.cols = e.b.cols = 40)},
    {"FP8 N 8", kInv, "N % 16", F8(e.b.rows = 8; e.dt.cols = 8)},
    {"FP8 per-token dgrad N 24", kInv, "N % 16", F8T(kD, e.b.cols = 24; e.dt.cols = 24)},
    {"NVFP4 K 40", kInv, "K % 16", N4(kF, e.a.cols = e.b.cols = 40)},
    {"NVFP4 wgrad K 24 (tensor rows)", kInv, "K % 16", N4(kW, e.a.rows = e.b.rows = 24)},
    {"d rows", kInv, "d is", F8(e.dt.rows = M + 1)},
    {"d cols", kInv, "d is", N4(kD, e.dt.cols = N - 1)},
    // The chosen copies
    {"a rowwise data NULL", kInv, "a->rowwise.data", F8(e.a.rowwise.data = nullptr)},
    {"b columnwise data NULL (dgrad)", kInv, "b->columnwise.data", F8P(kD, e.b.columnwise.data = nullptr)},
    {"FP8 a->scale_inv NULL", kInv, "a->scale_inv", F8(e.a.scale_inv = nullptr)},
    {"FP8 b->scale_inv misaligned", kInv, "b->scale_inv", F8(e.b.scale_inv = off(e.b_t, 2))},
    {"FP8 per-token a rowwise scale_inv NULL", kInv, "a->rowwise.scale_inv", F8T(kF, e.a.rowwise.scale_inv = nullptr)},
    {"FP8 per-token b columnwise scale_inv misaligned", kInv, "b->columnwise.scale_inv", F8T(kW, e.b.columnwise.scale_inv = off(e.b_cv, 1))},
    {"NVFP4 b columnwise scales NULL", kInv, "b->columnwise.scale_inv", N4(kD, e.b.columnwise.scale_inv = nullptr)},
    {"NVFP4 a rowwise amax NULL", kInv, "a->rowwise.amax", N4(kF, e.a.rowwise.amax = nullptr)},
    {"NVFP4 per-token a columnwise amax misaligned", kInv, "a->columnwise.amax", N4T(kW, e.a.columnwise.amax = off(e.a_cv, 2))},
    {"NVFP4 scale_layout 5", kInv, "b->scale_layout is 5 (not a lowp_scale_layout)", N4(kF, e.b.scale_layout = static_cast<lowp_scale_layout>(5))},
    // D
    {"d dtype FLOAT16", kInv, "d->dtype is LOWP_DTYPE_FLOAT16", F8(e.dt.dtype = LOWP_DTYPE_FLOAT16)},
    {"d dtype E4M3", kInv, "d->dtype", N4(kF, e.dt.dtype = LOWP_DTYPE_E4M3)},
    {"d data NULL", kInv, "d->data", F8(e.dt.data = nullptr)},
    {"d data misaligned", kInv, "d->data", N4(kF, e.dt.data = off(e.d, 2))},
    // cfg
    {"cfg struct_size 0", kInv, "lowp_gemm_config_default", F8(e.cfg.struct_size = 0)},
    {"cfg struct_size 8", kInv, "struct_size", F8(e.cfg.struct_size = 8)},
    {"cfg struct_size too large", kInv, "struct_size", F8(e.cfg.struct_size = sizeof(lowp_gemm_config) + 8)},
    {"accumulate into bf16", kInv, "accumulate", N4(kF, e.dt.dtype = LOWP_DTYPE_BFLOAT16; e.cfg.accumulate = 1)},
    {"bias dtype FLOAT16", kInv, "cfg->bias_dtype is LOWP_DTYPE_FLOAT16", N4(kF, e.cfg.bias = e.bias16; e.cfg.bias_dtype = LOWP_DTYPE_FLOAT16)},
    {"FP8 bias FLOAT32", kInv, "BFLOAT16 bias", F8(e.cfg.bias = e.bias32; e.cfg.bias_dtype = LOWP_DTYPE_FLOAT32)},
    {"bias misaligned", kInv, "cfg->bias", N4(kF, e.cfg.bias = off(e.bias32, 2); e.cfg.bias_dtype = LOWP_DTYPE_FLOAT32)},
    {"fast accumulation with NVFP4", kInv, "fast_accumulation", N4(kF, e.cfg.fast_accumulation = 1)},
    {"RHT flag with FP8", kInv, "FP8 has no RHT", F8P(kW, e.cfg.a_columnwise_rht = e.cfg.b_columnwise_rht = 1)},
    {"dgrad: RHT copy x rowwise copy", kInv, "RHT domain", N4(kD, e.cfg.b_columnwise_rht = 1)},
    {"wgrad: only a's copy RHT", kInv, "RHT domain", N4T(kW, e.cfg.a_columnwise_rht = 1)},
    {"d dtype 31", kInv, "d->dtype is 31 (not a lowp_dtype)", F8(e.dt.dtype = static_cast<lowp_dtype>(31))},
    {"bias dtype -2", kInv, "cfg->bias_dtype is -2 (not a lowp_dtype)", N4(kF, e.cfg.bias = e.bias32; e.cfg.bias_dtype = static_cast<lowp_dtype>(-2))},
    {"a scaling 6", kInv, "a->scaling 6 (not a lowp_scaling)", F8(e.a.scaling = static_cast<lowp_scaling>(6))},
    // Aliasing (lowp/gemm.h): d overlaps no operand buffer and no bias
    {"d on a's codes", kInv, "d->data (2048 bytes) overlaps a's copy data (1536 bytes)", F8(e.dt.data = e.a_row)},
    {"d on b's block scales (and on, first in the check, a's amax)", kInv, "d->data (2048 bytes) overlaps a's scale_inv or amax (4 bytes)", N4(kF, e.dt.data = e.b_rs)},
    {"b's block scales inside d", kInv, "d->data (2048 bytes) overlaps b's copy scale_inv (512 bytes)", N4(kF, e.b.rowwise.scale_inv = e.d + 64)},
    {"d on a's per-row amax", kInv, "d->data (2048 bytes) overlaps a's scale_inv or amax (128 bytes)", N4T(kF, e.dt.data = e.a_rv)},
    {"d on b's tensor scale_inv", kInv, "overlaps b's scale_inv or amax (4 bytes)", F8(e.b.scale_inv = e.d + 100)},
    {"d on the bias", kInv, "d->data (2048 bytes) overlaps cfg->bias (64 bytes)", N4(kF, e.cfg.bias = e.d + 8; e.cfg.bias_dtype = LOWP_DTYPE_FLOAT32)},
    // lowp_gemm_workspace_size: the same checks, and nothing written on error
    {"size: bytes NULL", kInv, "bytes", [](Env& e) { e.nvfp4(); return lowp_gemm_workspace_size(&e.a, copy(e.ac), &e.b, copy(e.bc), &e.dt, &e.cfg, nullptr); }},
    {"size: K mismatch", kInv, "different K", SZ(e.b.cols = 32)},
    {"size: cfg struct_size 0", kInv, "lowp_gemm_config_default", SZ(e.cfg.struct_size = 0)},
};

TEST(GemmApiErrors, BaselinesSucceed) { expect_baselines_succeed(kBaselines); }

TEST(GemmApiErrors, RejectedWithoutWriting) {
  const int n = expect_rejected_without_writing(kCases, kDataBytes);
  std::printf("[gemm api errors] %d cases\n", n);
}

TEST(GemmApiErrors, ConfigDefaults) {
  lowp_gemm_config c;
  poison(&c, sizeof c);
  lowp_gemm_config_default(&c);
  EXPECT_EQ(c.struct_size, sizeof(lowp_gemm_config));
  EXPECT_EQ(c.bias, nullptr);
  EXPECT_EQ(c.bias_dtype, LOWP_DTYPE_BFLOAT16);
  EXPECT_EQ(c.accumulate, 0);
  EXPECT_EQ(c.fast_accumulation, 0);
  EXPECT_EQ(c.a_columnwise_rht, 0);
  EXPECT_EQ(c.b_columnwise_rht, 0);
  lowp_gemm_config_default(nullptr);  // no-op
}

}  // namespace
