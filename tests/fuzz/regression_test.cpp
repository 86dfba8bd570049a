// The regression corpus: the API-contract reproducers, later fuzz findings and header rules
// around them, as fixed cases run through the fuzzer's checks (harness/call.h: nothing written on
// a rejection, guards intact, deterministic results, messages naming the argument). Every bug here
// is fixed.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>

#include "entry_points/grouped.h"
#include "entry_points/quantize.h"
#include "harness/registry.h"
#include "lowp/gemm.h"

namespace lowp_fuzz {
namespace {

Judgement run(Call& c) {
  c.finish();
  return run_checked(c);
}

// Passed, and a rejection's message names the argument's field (not only its root).
void expect_pass(const Judgement& j, lowp_status want) {
  EXPECT_EQ(j.kind, Judgement::kPass) << j.detail;
  EXPECT_EQ(j.status, want) << lowp_status_name(j.status) << ": " << j.message;
  EXPECT_TRUE(j.imprecise.empty()) << "the message \"" << j.message << "\" does not name " << j.imprecise;
}

ConfigDraw no_config() {
  ConfigDraw k;
  k.null = true;
  return k;
}

ConfigDraw config(void (*edit)(lowp_quant_config&)) {
  ConfigDraw k;
  k.v = header_default_config();
  edit(k.v);
  return k;
}

GroupDraw group(std::vector<int64_t> first, std::vector<int64_t> last, std::vector<int64_t> offsets, int64_t total) {
  GroupDraw g;
  g.num_tensors = static_cast<int64_t>(first.size());
  g.first = std::move(first), g.last = std::move(last), g.offsets = std::move(offsets);
  g.total_elements = total;
  return g;
}

GroupedQDraw grouped_q(int64_t n, int64_t stride = 0) {
  GroupedQDraw q;
  q.num_tensors = n;
  q.amax_stride = stride;
  return q;
}

TensorDraw tensor(int64_t rows, int64_t cols, int dtype = LOWP_DTYPE_FLOAT32) {
  TensorDraw t;
  t.dtype = dtype, t.rows = rows, t.cols = cols;
  return t;
}

QDraw quantized(Recipe r, int64_t rows, int64_t cols) {
  Draw d(7);
  d.faults = 0;
  return draw_quantized(d, r, rows, cols, 1);
}

// --- Empty members with a huge other dim (allowed by lowp.h) ---------------------------------

void grouped_quantize_empty(int64_t f, int64_t l) {
  Call c(host_memory());
  Draw d(1);
  grouped_quantize_call(c, d, group({f}, {l}, {0}, 0), grouped_q(1), no_config(), {});
  expect_pass(run(c), LOWP_SUCCESS);
}
TEST(Regression39_1, GroupedQuantizeEmptyMember2e40x0) { grouped_quantize_empty(int64_t{1} << 40, 0); }
TEST(Regression39_1, GroupedQuantizeEmptyMember2e62x0) { grouped_quantize_empty(int64_t{1} << 62, 0); }

TEST(Regression39_1, GroupedAmaxEmptyMember2e40x0) {
  Call c(host_memory());
  Draw d(1);
  grouped_amax_call(c, d, group({int64_t{1} << 40}, {0}, {0}, 0), {}, 0, {});
  expect_pass(run(c), LOWP_SUCCESS);
}

void grouped_dequantize_empty(int which, int64_t f, int64_t l) {
  Call c(host_memory());
  Draw d(1);
  grouped_dequantize_call(c, d, grouped_q(1), which, group({f}, {l}, {0}, 0), {});
  expect_pass(run(c), LOWP_SUCCESS);
}
TEST(Regression39_1, GroupedDequantizeRowwise2e40x0) { grouped_dequantize_empty(LOWP_ROWWISE, int64_t{1} << 40, 0); }
TEST(Regression39_1, GroupedDequantizeColumnwise0x2e40) {
  grouped_dequantize_empty(LOWP_COLUMNWISE, 0, int64_t{1} << 40);
}

// The same layouts with small dims.
TEST(Regression39, GroupedQuantizeEmptyMembersSmallDims) {
  Call c(host_memory());
  Draw d(1);
  grouped_quantize_call(c, d, group({0, 3, 5}, {7, 4, 0}, {0, 0, 12}, 12), grouped_q(3), no_config(), {});
  expect_pass(run(c), LOWP_SUCCESS);
}

// --- amax_stride without an upper bound -----------------------------------------------------

TEST(Regression39_2, GroupedAmaxStrideInt64Max) {
  Call c(host_memory());
  Draw d(1);
  grouped_amax_call(c, d, group({1, 1}, {4, 4}, {0, 4}, 8), {}, INT64_MAX, {});
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}

TEST(Regression39_2, GroupedQuantizeStride2e61) {
  Call c(host_memory());
  Draw d(1);
  grouped_quantize_call(c, d, group({1, 1}, {4, 4}, {0, 4}, 8), grouped_q(2, int64_t{1} << 61), no_config(), {});
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}

TEST(Regression39, GroupedAmaxHistoryStride) {  // amax = a [N][L] history: folds into h[0]
  Call c(host_memory());
  Draw d(1);
  grouped_amax_call(c, d, group({1, 2}, {4, 4}, {0, 4}, 12), {}, 16, {});
  expect_pass(run(c), LOWP_SUCCESS);
}

// --- Signed overflow in the swizzle's size check ---------------------------------------------

TEST(Regression39_3, SwizzleBlocks2e56) {
  Call c(host_memory());
  void* a = c.buffer("compact", 512, Role::kIn, {});
  void* b = c.buffer("swizzled", 512, Role::kIn, {});
  c.expect.require(false, {"blocks"});
  c.invoke = [=] { return lowp_nvfp4_swizzle_scales(a, b, 1, int64_t{1} << 56, nullptr); };
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}

TEST(Regression39, SwizzleOverlapRejected) {
  Call c(host_memory());
  auto* a = static_cast<uint8_t*>(c.buffer("compact", 1024, Role::kIn, {}));
  c.expect.require(false, {"compact", "swizzled"});
  c.invoke = [=] { return lowp_nvfp4_swizzle_scales(a, a + 100, 1, 1, nullptr); };  // 512 bytes each
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}

// --- Out-of-range enum values (undefined behaviour until read as integers) --------------------
// Read as integers and rejected with a clear message, in a struct member or passed by value.

// A valid quantize of recipe r (n x n) with one field of q set out of range.
void quantize_with(Recipe r, int64_t n, void (*edit)(QDraw&)) {
  Call c(host_memory());
  Draw d(1);
  QDraw q = quantized(r, n, n);
  edit(q);
  quantize_call(c, d, tensor(n, n), q, no_config());
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}
TEST(Regression39_4, QuantizeDtype99) {
  quantize_with(Recipe::kFp8PerTensor, 4, [](QDraw& q) { q.dtype = 99; });
}
TEST(Regression39_4, QuantizeScaling42) {
  quantize_with(Recipe::kFp8PerTensor, 4, [](QDraw& q) { q.scaling = 42; });
}
TEST(Regression39_4, QuantizeScaleLayoutMinus1) {
  quantize_with(Recipe::kNvfp4PerTensor, 16, [](QDraw& q) { q.scale_layout = -1; });
}

TEST(Regression39_4, QuantizeDactAct7) {
  Call c(host_memory());
  Draw d(1);
  quantize_call(c, d, tensor(4, 4), quantized(Recipe::kFp8PerTensor, 4, 4), no_config(), true, {}, 7);
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}

TEST(Regression39_4, DelayedScalingUpdateAlgo3) {
  Call c(host_memory());
  auto* h = static_cast<float*>(c.buffer("amax_history", 16, Role::kIn, {}));
  auto* s = static_cast<float*>(c.buffer("scale", 4, Role::kIn, {}));
  auto* si = static_cast<float*>(c.buffer("scale_inv", 4, Role::kIn, {}));
  c.expect.require(false, {"algo"});
  c.invoke = [=] {
    return lowp_fp8_delayed_scaling_update(1, 4, h, s, si, LOWP_DTYPE_E4M3, 0, static_cast<lowp_amax_algo>(3), nullptr);
  };
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}

TEST(Regression39_4, GemmCopy2) {
  lowp_gemm_config cfg;
  lowp_gemm_config_default(&cfg);
  lowp_tensor d{nullptr, LOWP_DTYPE_FLOAT32, 16, 16};
  lowp_quantized_tensor a = LOWP_QUANTIZED_TENSOR_INIT;
  size_t bytes = 7;
  const lowp_status st =
      lowp_gemm_workspace_size(&a, static_cast<lowp_orientation>(2), &a, LOWP_ROWWISE, &d, &cfg, &bytes);
  EXPECT_EQ(st, LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("a_copy"), std::string::npos) << lowp_get_last_error();
  EXPECT_EQ(bytes, 7u);
}

TEST(Regression39_4, StatusName99) {
  const char* name = lowp_status_name(static_cast<lowp_status>(99));
  ASSERT_NE(name, nullptr);
  EXPECT_STRNE(name, "");
}

TEST(Regression39_4, QuantConfigNvfp4Role99) {  // lowp.h: an unknown role leaves the plain defaults
  lowp_quant_config got, want;
  lowp_quant_config_nvfp4(static_cast<lowp_tensor_role>(99), &got);
  lowp_quant_config_default(&want);
  EXPECT_EQ(got.rht, want.rht);
  EXPECT_EQ(got.block_2d, want.block_2d);
  EXPECT_EQ(got.stochastic_rounding, want.stochastic_rounding);
  EXPECT_EQ(got.amax_estimation_factor, want.amax_estimation_factor);
}

// --- Messages that did not name the argument's field -----------------------------------------

TEST(Regression39_Messages, NullDataNamesXData) {
  Call c(host_memory());
  Draw d(1);
  TensorDraw x = tensor(4, 4);
  x.data = d.null();
  quantize_call(c, d, x, quantized(Recipe::kFp8PerTensor, 4, 4), no_config());
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);  // the rule names x->data
}

TEST(Regression39_Messages, MemberAtOffsetMinus1NamesTheOffset) {
  Call c(host_memory());
  Draw d(1);
  grouped_amax_call(c, d, group({1}, {4}, {-1}, 8), {}, 0, {});
  const Judgement j = run(c);
  EXPECT_EQ(j.kind, Judgement::kPass) << j.detail;
  EXPECT_NE(j.message.find("offset"), std::string::npos) << j.message;
  EXPECT_EQ(j.message.find("runs past"), std::string::npos) << j.message;
}

TEST(Regression39_Messages, SizesQueryNamesRowsAndDtype) {
  lowp_quantized_sizes s;
  EXPECT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 0, 16, &s), LOWP_ERROR_INVALID_ARGUMENT);
  const std::string shape = lowp_get_last_error();
  EXPECT_TRUE(names_token(shape, "rows")) << shape;
  EXPECT_EQ(lowp_quantized_sizes_query(static_cast<lowp_dtype>(6), LOWP_SCALING_CURRENT, 16, 16, &s),
            LOWP_ERROR_INVALID_ARGUMENT);
  const std::string dtype = lowp_get_last_error();
  EXPECT_TRUE(names_token(dtype, "dtype")) << dtype;
  EXPECT_EQ(dtype.find("query->"), std::string::npos) << dtype;  // no argument is called query
}

TEST(Regression39_Messages, Fp8NamesTheNvfp4KnobSet) {
  Call c(host_memory());
  Draw d(1);
  quantize_call(c, d, tensor(4, 4), quantized(Recipe::kFp8PerTensor, 4, 4),
                config([](lowp_quant_config& k) { k.stochastic_rounding = 1; }));
  const Judgement j = run(c);
  EXPECT_EQ(j.kind, Judgement::kPass) << j.detail;
  EXPECT_NE(j.message.find("stochastic_rounding"), std::string::npos) << j.message;
  EXPECT_EQ(j.message.find("block_2d"), std::string::npos) << "names knobs that were not set: " << j.message;
}

TEST(Regression39_Messages, AmaxGivenIgnoresTheEstimationFactor) {  // "amax_estimation is then ignored"
  Call c(host_memory());
  Draw d(1);
  quantize_call(c, d, tensor(16, 16), quantized(Recipe::kNvfp4PerTensor, 16, 16), config([](lowp_quant_config& k) {
                  k.amax_given = 1;
                  k.amax_estimation = 1;
                  k.amax_estimation_factor = std::numeric_limits<float>::quiet_NaN();
                }));
  expect_pass(run(c), LOWP_SUCCESS);
}

// --- Header rules around them ----------------------------------------------------------------

TEST(Regression39, StructSizeZeroNamesTheInitialiser) {
  Call c(host_memory());
  Draw d(1);
  QDraw q = quantized(Recipe::kFp8PerTensor, 4, 4);
  q.struct_size = 0;
  quantize_call(c, d, tensor(4, 4), q, no_config());
  const Judgement j = run(c);
  expect_pass(j, LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(j.message.find("lowp_quantized_tensor_init"), std::string::npos) << j.message;
}

TEST(Regression39, ConfigStructSizeAboveSizeofRejected) {
  Call c(host_memory());
  Draw d(1);
  ConfigDraw k = config([](lowp_quant_config&) {});
  k.v.struct_size = sizeof(lowp_quant_config) + 8;
  quantize_call(c, d, tensor(4, 4), quantized(Recipe::kFp8PerTensor, 4, 4), k);
  expect_pass(run(c), LOWP_ERROR_INVALID_ARGUMENT);
}

TEST(Regression39, NvfpQuantizeOfEveryKnobAccepted) {
  Call c(host_memory());
  Draw d(1);
  QDraw q = quantized(Recipe::kNvfp4PerTensor, 32, 48);
  q.part[1].data = {};  // both copies
  q.scale_layout = LOWP_SCALE_LAYOUT_SWIZZLED;
  quantize_call(c, d, tensor(32, 48, LOWP_DTYPE_BFLOAT16), q, config([](lowp_quant_config& k) {
                  k.rht = 1;
                  k.amax_estimation = 1;
                  k.stochastic_rounding = 1;
                }));
  expect_pass(run(c), LOWP_SUCCESS);
}

// --- After the merge of row-scaled NVFP4, 4over6 and the layout calls --------------------------

// 4over6 with E = 256 records 6E = 1536 in the caller's q (the harness allows that one member to
// change and checks its value).
TEST(RegressionMerge, RowScaledFourOverSixRecords1536) {
  Call c(host_memory());
  Draw d(1);
  quantize_call(c, d, tensor(32, 32), quantized(Recipe::kNvfp4RowScaled, 32, 32), config([](lowp_quant_config& k) {
                  k.four_over_six = 1;
                  k.four_over_six_scale_max = 256.0f;
                }));
  expect_pass(run(c), LOWP_SUCCESS);
}

// q->nvfp4_outer_max is read by the dequantize: a value no encode records is rejected by name.
TEST(RegressionMerge, DequantizeRejectsAnOuterMaxNoEncodeRecords) {
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  uint8_t codes[128] = {}, scales[512] = {};
  float amax = 1, out[256];
  q.dtype = LOWP_DTYPE_E2M1, q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN, q.rows = 16, q.cols = 16;
  q.rowwise = {codes, scales, &amax};
  q.nvfp4_outer_max = 1536;  // 4over6's E = 256: not a per-token encode
  lowp_tensor o{out, LOWP_DTYPE_FLOAT32, 16, 16};
  EXPECT_EQ(lowp_dequantize(&q, LOWP_ROWWISE, &o, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("q->nvfp4_outer_max"), std::string::npos) << lowp_get_last_error();
}

// A layout handed back with NVFP4 cols that break K % 16 is named as the layout's member.
TEST(RegressionMerge, FromLayoutNamesTheLayoutsCols) {
  lowp_quantized_layout l = LOWP_QUANTIZED_LAYOUT_INIT;
  ASSERT_EQ(lowp_quantized_layout_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, 16, 32, LOWP_PARTS_ROWWISE, &l),
            LOWP_SUCCESS);
  l.cols = 24;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  EXPECT_EQ(lowp_quantized_tensor_from_layout(&l, reinterpret_cast<void*>(uintptr_t{1} << 20), &q),
            LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("layout->cols"), std::string::npos) << lowp_get_last_error();
  EXPECT_EQ(q.rowwise.data, nullptr);
}

// Every registered entry point runs a few hundred fixed calls cleanly (the bounded CI run is
// the larger version of this; here a failure names the entry point in the test output).
TEST(Regression39, FixedSeedSmokeOfEveryEntryPoint) {
  for (const EntryPoint& ep : entry_points()) {
    for (uint64_t i = 0; i < 40; ++i) {
      const Judgement j = fuzz_one(ep, 0x39000 + i, host_memory());
      if (j.kind == Judgement::kFail)
        ADD_FAILURE() << ep.name << " call seed " << (0x39000 + i) << ": " << j.detail;
    }
  }
}

}  // namespace
}  // namespace lowp_fuzz
