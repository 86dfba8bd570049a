// Callers built against the first release of each growable struct (lowp.h, "Structs that
// grow"): every entry point that takes one is called with the struct as that release laid it out
// (a local copy of the old layout, in a heap block of exactly its size so ASan sees any byte read
// or written past it), its padding bytes poisoned, and must behave as with a current struct that
// holds the same members and the defaults for the rest: the same status and the same bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/compare.h"
#include "lowp/gemm.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

// The first releases' layouts, copied from the lowp.h and gemm.h of that release.
struct QuantConfigV1 {
  size_t struct_size;
  float amax_epsilon;
  int power_of_two_scale;
  int rht;
  uint32_t rht_sign_mask;
  int stochastic_rounding;
  const uint64_t* rng_state;
  int block_2d;
  int amax_estimation;
  float amax_estimation_factor;
  int amax_given;
  int group_row_multiple;
};
struct QuantizedTensorV1 {
  size_t struct_size;
  lowp_dtype dtype;
  lowp_scaling scaling;
  lowp_scale_layout scale_layout;
  int64_t rows;
  int64_t cols;
  lowp_quantized_part rowwise;
  lowp_quantized_part columnwise;
  float* scale;
  float* scale_inv;
  float* amax;
};
struct GroupedQuantizedTensorV1 {
  size_t struct_size;
  lowp_dtype dtype;
  lowp_scaling scaling;
  int64_t num_tensors;
  void* rowwise_data;
  void* columnwise_data;
  float* scale;
  float* scale_inv;
  float* amax;
  int64_t amax_stride;
};
struct QuantizedLayoutV1 {
  size_t struct_size;
  lowp_dtype dtype;
  lowp_scaling scaling;
  int64_t rows;
  int64_t cols;
  lowp_parts parts;
  size_t total_bytes;
  lowp_quantized_sizes sizes;
  size_t data_offset[2];
  size_t scale_inv_offset[2];
  size_t amax_offset[2];
  size_t tensor_scale_offset;
  size_t tensor_scale_inv_offset;
  size_t tensor_amax_offset;
};
struct GemmConfigV1 {
  size_t struct_size;
  const void* bias;
  lowp_dtype bias_dtype;
  int accumulate;
  int fast_accumulation;
  int a_columnwise_rht;
  int b_columnwise_rht;
};
static_assert(sizeof(QuantConfigV1) == LOWP_QUANT_CONFIG_FIRST_SIZE);
static_assert(sizeof(QuantizedTensorV1) == LOWP_QUANTIZED_TENSOR_FIRST_SIZE);
static_assert(sizeof(GroupedQuantizedTensorV1) == LOWP_GROUPED_QUANTIZED_TENSOR_FIRST_SIZE);
static_assert(sizeof(QuantizedLayoutV1) == LOWP_QUANTIZED_LAYOUT_FIRST_SIZE);
static_assert(sizeof(GemmConfigV1) == LOWP_GEMM_CONFIG_FIRST_SIZE);

// What an old caller's padding may hold: each makes an int read from it nonzero.
constexpr uint8_t kPads[] = {0x01, 0xA5, 0xFF};

// An old caller's struct T in a heap block of exactly sizeof(T), every byte `pad` (its padding
// keeps it), struct_size = sizeof(T). Passed to lowp as the current type U.
template <typename T>
class Old {
 public:
  explicit Old(uint8_t pad) : p_(static_cast<T*>(std::malloc(sizeof(T)))) {
    std::memset(static_cast<void*>(p_), pad, sizeof(T));
    p_->struct_size = sizeof(T);
  }
  ~Old() { std::free(p_); }
  Old(const Old&) = delete;
  Old& operator=(const Old&) = delete;
  T* operator->() { return p_; }
  const T* get() const { return p_; }
  template <typename U>
  U* as() {
    return reinterpret_cast<U*>(p_);
  }
  std::vector<uint8_t> bytes() const {
    const auto* b = reinterpret_cast<const uint8_t*>(p_);
    return {b, b + sizeof(T)};
  }

 private:
  T* p_;
};

// The first release's members of lowp_quant_config_default() (or of `c`, a current config).
void set_config(QuantConfigV1* o, const lowp_quant_config& c) {
  o->amax_epsilon = c.amax_epsilon;
  o->power_of_two_scale = c.power_of_two_scale;
  o->rht = c.rht;
  o->rht_sign_mask = c.rht_sign_mask;
  o->stochastic_rounding = c.stochastic_rounding;
  o->rng_state = c.rng_state;
  o->block_2d = c.block_2d;
  o->amax_estimation = c.amax_estimation;
  o->amax_estimation_factor = c.amax_estimation_factor;
  o->amax_given = c.amax_given;
  o->group_row_multiple = c.group_row_multiple;
}

void set_tensor(QuantizedTensorV1* o, const lowp_quantized_tensor& q) {
  o->dtype = q.dtype;
  o->scaling = q.scaling;
  o->scale_layout = q.scale_layout;
  o->rows = q.rows;
  o->cols = q.cols;
  o->rowwise = q.rowwise;
  o->columnwise = q.columnwise;
  o->scale = q.scale;
  o->scale_inv = q.scale_inv;
  o->amax = q.amax;
}

void set_grouped(GroupedQuantizedTensorV1* o, const lowp_grouped_quantized_tensor& q) {
  o->dtype = q.dtype;
  o->scaling = q.scaling;
  o->num_tensors = q.num_tensors;
  o->rowwise_data = q.rowwise_data;
  o->columnwise_data = q.columnwise_data;
  o->scale = q.scale;
  o->scale_inv = q.scale_inv;
  o->amax = q.amax;
  o->amax_stride = q.amax_stride;
}

std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& f : v) {
    s = s * 1664525u + 1013904223u;
    f = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 8.0f;
  }
  return v;
}

// Every buffer of a quantized tensor in one poisoned allocation (lowp_quantized_layout_query).
struct Quantized {
  lowp_quantized_layout layout = LOWP_QUANTIZED_LAYOUT_INIT;
  uint8_t* base = nullptr;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;

  Quantized(lowp_dtype dtype, lowp_scaling scaling, int64_t rows, int64_t cols, lowp_parts parts = LOWP_PARTS_BOTH) {
    EXPECT_EQ(lowp_quantized_layout_query(dtype, scaling, rows, cols, parts, &layout), LOWP_SUCCESS)
        << lowp_get_last_error();
    base = static_cast<uint8_t*>(std::aligned_alloc(LOWP_LAYOUT_ALIGNMENT, layout.total_bytes));
    poison(base, layout.total_bytes);
    EXPECT_EQ(lowp_quantized_tensor_from_layout(&layout, base, &q), LOWP_SUCCESS) << lowp_get_last_error();
    if (q.scale != nullptr) *q.scale = 2.0f;  // DELAYED reads it
  }
  ~Quantized() { std::free(base); }
  Quantized(const Quantized&) = delete;
  Quantized& operator=(const Quantized&) = delete;
  std::vector<uint8_t> bytes() const { return {base, base + layout.total_bytes}; }
};

struct Recipe {
  lowp_dtype dtype;
  lowp_scaling scaling;
  const char* name;
};
constexpr Recipe kRecipes[] = {
    {LOWP_DTYPE_E4M3, LOWP_SCALING_DELAYED, "FP8 delayed"},
    {LOWP_DTYPE_E5M2, LOWP_SCALING_CURRENT, "FP8 current"},
    {LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, "FP8 per-token"},
    {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, "NVFP4 per-tensor"},
    {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, "NVFP4 per-token"},
    {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_ROW_SCALED, "NVFP4 row-scaled"},
};
bool is_nvfp4(const Recipe& r) { return r.dtype == LOWP_DTYPE_E2M1; }

constexpr int64_t kRows = 32, kCols = 64;

// The configs an old caller passes for recipe r: the defaults, and one with other first-release
// members set (RHT for NVFP4, a power-of-two scale and an epsilon for FP8).
std::vector<lowp_quant_config> configs_for(const Recipe& r) {
  lowp_quant_config plain;
  lowp_quant_config_default(&plain);
  lowp_quant_config other = plain;
  if (is_nvfp4(r)) {
    other.rht = 1;
    other.rht_sign_mask = 0x1234;
  } else {
    other.power_of_two_scale = 1;
    other.amax_epsilon = 1e-3f;
  }
  return {plain, other};
}

// lowp_quantize (and, for the recipes that fuse it, lowp_quantize_dact) of the same x with a
// current q and config (`want`), and with the old caller's config, q, or both.
struct QuantizeRun {
  lowp_status status;
  std::string message;
  std::vector<uint8_t> buffers;
  float outer_max;
};

QuantizeRun quantize(const Recipe& r, bool dact, const lowp_quant_config* cfg, bool old_q, uint8_t pad) {
  const std::vector<float> x = values(kRows * kCols, 1), act = values(kRows * kCols, 2);
  lowp_tensor t = {const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, kRows, kCols};
  Quantized b(r.dtype, r.scaling, kRows, kCols);
  Old<QuantizedTensorV1> o(pad);
  set_tensor(o.operator->(), b.q);
  const std::vector<uint8_t> old_before = o.bytes();
  lowp_quantized_tensor* q = old_q ? o.as<lowp_quantized_tensor>() : &b.q;
  const lowp_status s = dact ? lowp_quantize_dact(&t, act.data(), LOWP_ACTIVATION_SILU, q, cfg, nullptr)
                             : lowp_quantize(&t, q, cfg, nullptr);
  if (old_q) {
    EXPECT_EQ(o.bytes(), old_before) << r.name << ": the old caller's q was written";
  }
  return {s, lowp_get_last_error(), b.bytes(), b.q.nvfp4_outer_max};
}

void expect_same(const QuantizeRun& got, const QuantizeRun& want, const std::string& what) {
  ASSERT_EQ(want.status, LOWP_SUCCESS) << what << ": " << want.message;
  EXPECT_EQ(got.status, LOWP_SUCCESS) << what << ": " << got.message;
  EXPECT_TRUE(got.buffers == want.buffers) << what << ": other bytes";
}

TEST(OldCallers, QuantizeWithAFirstReleaseConfig) {
  for (const Recipe& r : kRecipes)
    for (const lowp_quant_config& c : configs_for(r))
      for (const bool dact : {false, true}) {
        if (dact && (is_nvfp4(r) || r.scaling == LOWP_SCALING_PER_TOKEN)) continue;  // FP8 per-tensor only
        const QuantizeRun want = quantize(r, dact, &c, false, 0);
        for (uint8_t pad : kPads) {
          Old<QuantConfigV1> o(pad);
          set_config(o.operator->(), c);
          const QuantizeRun got = quantize(r, dact, o.as<lowp_quant_config>(), false, 0);
          expect_same(got, want, std::string(r.name) + (dact ? " dact" : "") + " rht " + std::to_string(c.rht) +
                                     " pad " + std::to_string(pad));
          if (is_nvfp4(r)) {
            EXPECT_EQ(got.outer_max, 2688.0f) << r.name << ": no 4over6 for a first-release config";
          }
        }
      }
}

TEST(OldCallers, QuantizeIntoAFirstReleaseTensor) {
  for (const Recipe& r : kRecipes)
    for (const bool dact : {false, true}) {
      if (dact && (is_nvfp4(r) || r.scaling == LOWP_SCALING_PER_TOKEN)) continue;
      const QuantizeRun want = quantize(r, dact, nullptr, false, 0);
      for (uint8_t pad : kPads)
        expect_same(quantize(r, dact, nullptr, true, pad), want,
                    std::string(r.name) + (dact ? " dact" : "") + " pad " + std::to_string(pad));
    }
}

TEST(OldCallers, DequantizeAFirstReleaseTensor) {
  const std::vector<float> x = values(kRows * kCols, 3);
  lowp_tensor t = {const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, kRows, kCols};
  for (const Recipe& r : kRecipes) {
    Quantized b(r.dtype, r.scaling, kRows, kCols);
    ASSERT_EQ(lowp_quantize(&t, &b.q, nullptr, nullptr), LOWP_SUCCESS) << r.name << ": " << lowp_get_last_error();
    for (const lowp_orientation which : {LOWP_ROWWISE, LOWP_COLUMNWISE}) {
      std::vector<float> want(kRows * kCols), got(kRows * kCols);
      const int64_t rows = which == LOWP_ROWWISE ? kRows : kCols, cols = kRows * kCols / rows;
      lowp_tensor out = {want.data(), LOWP_DTYPE_FLOAT32, rows, cols};
      ASSERT_EQ(lowp_dequantize(&b.q, which, &out, nullptr), LOWP_SUCCESS) << r.name << ": " << lowp_get_last_error();
      for (uint8_t pad : kPads) {
        Old<QuantizedTensorV1> o(pad);
        set_tensor(o.operator->(), b.q);
        const std::vector<uint8_t> before = o.bytes();
        poison(got.data(), got.size() * sizeof(float));
        out.data = got.data();
        EXPECT_EQ(lowp_dequantize(o.as<lowp_quantized_tensor>(), which, &out, nullptr), LOWP_SUCCESS)
            << r.name << ": " << lowp_get_last_error();
        EXPECT_TRUE(float_bits_equal(got.data(), want.data(), got.size(), r.name));
        EXPECT_EQ(o.bytes(), before);
      }
    }
  }
}

// The old layout with the current one's members.
void set_layout(QuantizedLayoutV1* o, const lowp_quantized_layout& l) {
  o->dtype = l.dtype;
  o->scaling = l.scaling;
  o->rows = l.rows;
  o->cols = l.cols;
  o->parts = l.parts;
  o->total_bytes = l.total_bytes;
  o->sizes = l.sizes;
  for (int i = 0; i < 2; ++i) {
    o->data_offset[i] = l.data_offset[i];
    o->scale_inv_offset[i] = l.scale_inv_offset[i];
    o->amax_offset[i] = l.amax_offset[i];
  }
  o->tensor_scale_offset = l.tensor_scale_offset;
  o->tensor_scale_inv_offset = l.tensor_scale_inv_offset;
  o->tensor_amax_offset = l.tensor_amax_offset;
}

TEST(OldCallers, LayoutQueryAndTensorFromLayout) {
  for (const Recipe& r : kRecipes) {
    lowp_quantized_layout want = LOWP_QUANTIZED_LAYOUT_INIT;
    ASSERT_EQ(lowp_quantized_layout_query(r.dtype, r.scaling, kRows, kCols, LOWP_PARTS_BOTH, &want), LOWP_SUCCESS);
    alignas(LOWP_LAYOUT_ALIGNMENT) static uint8_t base[LOWP_LAYOUT_ALIGNMENT];
    lowp_quantized_tensor want_q = LOWP_QUANTIZED_TENSOR_INIT;
    ASSERT_EQ(lowp_quantized_tensor_from_layout(&want, base, &want_q), LOWP_SUCCESS);
    for (uint8_t pad : kPads) {
      Old<QuantizedLayoutV1> layout(pad);
      ASSERT_EQ(lowp_quantized_layout_query(r.dtype, r.scaling, kRows, kCols, LOWP_PARTS_BOTH,
                                            layout.as<lowp_quantized_layout>()),
                LOWP_SUCCESS)
          << lowp_get_last_error();
      Old<QuantizedLayoutV1> expected(pad);
      set_layout(expected.operator->(), want);
      // Member by member: the query may write the old layout's inner padding.
      const QuantizedLayoutV1& g = *layout.get();
      const QuantizedLayoutV1& w = *expected.get();
      EXPECT_TRUE(g.dtype == w.dtype && g.scaling == w.scaling && g.rows == w.rows && g.cols == w.cols &&
                  g.parts == w.parts && g.total_bytes == w.total_bytes &&
                  std::memcmp(&g.sizes, &w.sizes, sizeof g.sizes) == 0 &&
                  std::memcmp(g.data_offset, w.data_offset, sizeof g.data_offset) == 0 &&
                  std::memcmp(g.scale_inv_offset, w.scale_inv_offset, sizeof g.scale_inv_offset) == 0 &&
                  std::memcmp(g.amax_offset, w.amax_offset, sizeof g.amax_offset) == 0 &&
                  g.tensor_scale_offset == w.tensor_scale_offset &&
                  g.tensor_scale_inv_offset == w.tensor_scale_inv_offset && g.tensor_amax_offset == w.tensor_amax_offset)
          << r.name;
      // Old layout into an old and into a current q; a current layout into an old q.
      for (const bool old_layout : {true, false}) {
        Old<QuantizedTensorV1> q(pad);
        q->scale_layout = LOWP_SCALE_LAYOUT_COMPACT;  // kept by the call
        Old<QuantizedTensorV1> q_want(pad);
        set_tensor(q_want.operator->(), want_q);
        const lowp_quantized_layout* l = old_layout ? layout.as<lowp_quantized_layout>() : &want;
        EXPECT_EQ(lowp_quantized_tensor_from_layout(l, base, q.as<lowp_quantized_tensor>()), LOWP_SUCCESS)
            << lowp_get_last_error();
        EXPECT_EQ(q.bytes(), q_want.bytes()) << r.name << ": the old q's members, its padding kept";
      }
      lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
      EXPECT_EQ(lowp_quantized_tensor_from_layout(layout.as<lowp_quantized_layout>(), base, &q), LOWP_SUCCESS);
      EXPECT_EQ(std::memcmp(&q, &want_q, sizeof q), 0) << r.name;
    }
  }
}

// Grouped FP8: three members of one buffer.
struct GroupedRun {
  lowp_status status;
  std::vector<uint8_t> row, col;
  std::vector<float> scale, scale_inv, amax;
};

constexpr int64_t kMembers = 3;
const int64_t kFirst[kMembers] = {16, 0, 8}, kLast[kMembers] = {32, 32, 16}, kOffsets[kMembers] = {0, 512, 512};
constexpr int64_t kTotal = 512 + 128;

GroupedRun grouped(lowp_scaling scaling, bool dact, const lowp_quant_config* cfg, bool old_q, uint8_t pad) {
  const std::vector<float> x = values(kTotal, 4), act = values(kTotal, 5);
  lowp_grouped_tensor g = {const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, kMembers, kTotal, kFirst, kLast, kOffsets};
  GroupedRun run;
  run.row.assign(kTotal, kPoison);
  run.col.assign(kTotal, kPoison);
  run.scale.assign(kMembers, 2.0f);
  run.scale_inv.assign(kMembers, -1.0f);
  run.amax.assign(kMembers, 0.5f);
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = scaling;
  q.num_tensors = kMembers;
  q.rowwise_data = run.row.data();
  q.columnwise_data = run.col.data();
  q.scale = run.scale.data();
  q.scale_inv = run.scale_inv.data();
  q.amax = run.amax.data();
  q.amax_stride = 1;
  Old<GroupedQuantizedTensorV1> o(pad);
  set_grouped(o.operator->(), q);
  const std::vector<uint8_t> before = o.bytes();
  lowp_grouped_quantized_tensor* qp = old_q ? o.as<lowp_grouped_quantized_tensor>() : &q;
  run.status = dact ? lowp_grouped_quantize_dact(&g, act.data(), LOWP_ACTIVATION_GELU_TANH, qp, cfg, nullptr, 0, nullptr)
                    : lowp_grouped_quantize(&g, qp, cfg, nullptr, 0, nullptr);
  EXPECT_EQ(o.bytes(), before);
  return run;
}

void expect_same(const GroupedRun& got, const GroupedRun& want, const std::string& what) {
  ASSERT_EQ(want.status, LOWP_SUCCESS) << what;
  EXPECT_EQ(got.status, LOWP_SUCCESS) << what << ": " << lowp_get_last_error();
  EXPECT_TRUE(got.row == want.row && got.col == want.col) << what;
  EXPECT_TRUE(float_bits_equal(got.scale.data(), want.scale.data(), kMembers, "scale"));
  EXPECT_TRUE(float_bits_equal(got.scale_inv.data(), want.scale_inv.data(), kMembers, "scale_inv"));
  EXPECT_TRUE(float_bits_equal(got.amax.data(), want.amax.data(), kMembers, "amax"));
}

TEST(OldCallers, GroupedQuantizeAndDequantize) {
  lowp_quant_config c;
  lowp_quant_config_default(&c);
  c.power_of_two_scale = 1;
  for (const lowp_scaling scaling : {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT})
    for (const bool dact : {false, true}) {
      const GroupedRun want = grouped(scaling, dact, &c, false, 0);
      for (uint8_t pad : kPads) {
        const std::string what = std::string(scaling == LOWP_SCALING_DELAYED ? "delayed" : "current") +
                                 (dact ? " dact" : "") + " pad " + std::to_string(pad);
        Old<QuantConfigV1> o(pad);
        set_config(o.operator->(), c);
        expect_same(grouped(scaling, dact, o.as<lowp_quant_config>(), false, 0), want, what + " old cfg");
        expect_same(grouped(scaling, dact, &c, true, pad), want, what + " old q");
      }
    }
  // Dequantize of each orientation through an old q.
  GroupedRun run = grouped(LOWP_SCALING_CURRENT, false, nullptr, false, 0);
  ASSERT_EQ(run.status, LOWP_SUCCESS);
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = LOWP_SCALING_CURRENT;
  q.num_tensors = kMembers;
  q.rowwise_data = run.row.data();
  q.columnwise_data = run.col.data();
  q.scale = run.scale.data();
  q.scale_inv = run.scale_inv.data();
  q.amax = run.amax.data();
  for (const lowp_orientation which : {LOWP_ROWWISE, LOWP_COLUMNWISE}) {
    std::vector<float> want(kTotal, 0.0f), got(kTotal, 0.0f);
    lowp_grouped_tensor out = {want.data(), LOWP_DTYPE_FLOAT32, kMembers, kTotal, kFirst, kLast, kOffsets};
    ASSERT_EQ(lowp_grouped_dequantize(&q, which, &out, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    for (uint8_t pad : kPads) {
      Old<GroupedQuantizedTensorV1> o(pad);
      set_grouped(o.operator->(), q);
      out.data = got.data();
      EXPECT_EQ(lowp_grouped_dequantize(o.as<lowp_grouped_quantized_tensor>(), which, &out, nullptr, 0, nullptr),
                LOWP_SUCCESS)
          << lowp_get_last_error();
      EXPECT_TRUE(float_bits_equal(got.data(), want.data(), kTotal));
    }
  }
}

// The NVFP4 amax passes alone (K1), single and grouped: cfg->rht and rht_sign_mask are read.
TEST(OldCallers, Nvfp4AmaxPasses) {
  constexpr int64_t kR = 32, kK = 48;
  const std::vector<float> x = values(kR * kK, 6);
  lowp_tensor t = {const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, kR, kK};
  const int64_t member_rows[2] = {16, 16};
  lowp_quant_config c;
  lowp_quant_config_default(&c);
  c.rht = 1;
  c.rht_sign_mask = 0x0F0F;
  // Each pass as a function of the config: the row and column amaxes (N * K for the grouped ones).
  using Pass = lowp_status (*)(const lowp_tensor*, const int64_t*, float*, float*, const lowp_quant_config*);
  const struct {
    const char* name;
    Pass run;
  } passes[] = {
      {"lowp_nvfp4_amax_per_token",
       [](const lowp_tensor* in, const int64_t*, float* row, float* col, const lowp_quant_config* k) {
         return lowp_nvfp4_amax_per_token(in, row, col, k, nullptr);
       }},
      {"lowp_nvfp4_amax_per_row",
       [](const lowp_tensor* in, const int64_t*, float* row, float* col, const lowp_quant_config* k) {
         return lowp_nvfp4_amax_per_row(in, LOWP_SCALING_NVFP4_ROW_SCALED, row, col, k, nullptr);
       }},
      {"lowp_nvfp4_grouped_amax",
       [](const lowp_tensor* in, const int64_t* m, float* row, float* col, const lowp_quant_config* k) {
         return lowp_nvfp4_grouped_amax(in, 2, m, row, col, k, nullptr, 0, nullptr);
       }},
      {"lowp_nvfp4_grouped_amax_per_row",
       [](const lowp_tensor* in, const int64_t* m, float* row, float* col, const lowp_quant_config* k) {
         return lowp_nvfp4_grouped_amax_per_row(in, LOWP_SCALING_NVFP4_ROW_SCALED, 2, m, row, col, k, nullptr, 0,
                                                nullptr);
       }},
  };
  for (const auto& p : passes) {
    std::vector<float> want_row(kR), want_col(2 * kK), row(kR), col(2 * kK);
    poison(want_row.data(), want_row.size() * 4);
    poison(want_col.data(), want_col.size() * 4);
    ASSERT_EQ(p.run(&t, member_rows, want_row.data(), want_col.data(), &c), LOWP_SUCCESS) << lowp_get_last_error();
    for (uint8_t pad : kPads) {
      Old<QuantConfigV1> o(pad);
      set_config(o.operator->(), c);
      poison(row.data(), row.size() * 4);
      poison(col.data(), col.size() * 4);
      EXPECT_EQ(p.run(&t, member_rows, row.data(), col.data(), o.as<lowp_quant_config>()), LOWP_SUCCESS)
          << p.name << ": " << lowp_get_last_error();
      EXPECT_TRUE(float_bits_equal(row.data(), want_row.data(), row.size(), p.name));
      EXPECT_TRUE(float_bits_equal(col.data(), want_col.data(), col.size(), p.name));
    }
  }
}

// lowp_nvfp4_grouped_quantize with an old config and an old q.
TEST(OldCallers, Nvfp4GroupedQuantize) {
  constexpr int64_t kN = 2, kR = 48, kK = 32;
  const int64_t member_rows[kN] = {16, 32};
  const std::vector<float> x = values(kR * kK, 7);
  lowp_tensor t = {const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, kR, kK};
  lowp_quantized_sizes s;
  ASSERT_EQ(lowp_nvfp4_grouped_sizes(kN, kR, kK, &s), LOWP_SUCCESS);
  for (const lowp_scaling scaling : {LOWP_SCALING_NVFP4_PER_TOKEN, LOWP_SCALING_NVFP4_ROW_SCALED}) {
    lowp_quant_config c;
    lowp_quant_config_default(&c);
    c.rht = 1;
    // Runs the call into fresh poisoned buffers; returns them back to back.
    const auto run = [&](const lowp_quant_config* cfg, bool old_q, uint8_t pad, lowp_status* status) {
      std::vector<std::vector<uint8_t>> b;
      for (int i = 0; i < 2; ++i) {
        b.emplace_back(s.data_bytes[i], kPoison);
        b.emplace_back(s.scale_inv_bytes[i], kPoison);
        b.emplace_back(s.amax_bytes[i], kPoison);
      }
      lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
      q.dtype = LOWP_DTYPE_E2M1;
      q.scaling = scaling;
      q.rows = kR;
      q.cols = kK;
      q.rowwise = {b[0].data(), b[1].data(), reinterpret_cast<float*>(b[2].data())};
      q.columnwise = {b[3].data(), b[4].data(), reinterpret_cast<float*>(b[5].data())};
      Old<QuantizedTensorV1> o(pad);
      set_tensor(o.operator->(), q);
      const std::vector<uint8_t> before = o.bytes();
      *status = lowp_nvfp4_grouped_quantize(&t, kN, member_rows, old_q ? o.as<lowp_quantized_tensor>() : &q, cfg,
                                            nullptr, 0, nullptr);
      EXPECT_EQ(o.bytes(), before);
      std::vector<uint8_t> all;
      for (const auto& v : b) all.insert(all.end(), v.begin(), v.end());
      return all;
    };
    lowp_status st;
    const std::vector<uint8_t> want = run(&c, false, 0, &st);
    ASSERT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
    for (uint8_t pad : kPads) {
      Old<QuantConfigV1> o(pad);
      set_config(o.operator->(), c);
      EXPECT_TRUE(run(o.as<lowp_quant_config>(), false, 0, &st) == want) << "old cfg, pad " << int(pad);
      EXPECT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_TRUE(run(&c, true, pad, &st) == want) << "old q, pad " << int(pad);
      EXPECT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
    }
  }
}

// lowp_gemm and lowp_gemm_workspace_size with old operands and an old config.
TEST(OldCallers, Gemm) {
  constexpr int64_t kM = 32, kN = 16, kK = 64;
  const std::vector<float> xa = values(kM * kK, 8), xb = values(kN * kK, 9);
  const std::vector<uint16_t> bias(kN, 0x3F80);  // bf16 1.0
  for (const Recipe& r : kRecipes) {
    const lowp_dtype b_dtype = r.dtype == LOWP_DTYPE_E5M2 ? LOWP_DTYPE_E4M3 : r.dtype;  // no E5M2 x E5M2
    Quantized a(r.dtype, r.scaling, kM, kK, LOWP_PARTS_ROWWISE), b(b_dtype, r.scaling, kN, kK, LOWP_PARTS_ROWWISE);
    lowp_tensor ta = {const_cast<float*>(xa.data()), LOWP_DTYPE_FLOAT32, kM, kK};
    lowp_tensor tb = {const_cast<float*>(xb.data()), LOWP_DTYPE_FLOAT32, kN, kK};
    ASSERT_EQ(lowp_quantize(&ta, &a.q, nullptr, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    ASSERT_EQ(lowp_quantize(&tb, &b.q, nullptr, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    lowp_gemm_config c;
    lowp_gemm_config_default(&c);
    c.bias = bias.data();
    c.accumulate = 1;
    std::vector<float> want(kM * kN, 0.25f), got(kM * kN);
    lowp_tensor d = {want.data(), LOWP_DTYPE_FLOAT32, kM, kN};
    ASSERT_EQ(lowp_gemm(&a.q, LOWP_ROWWISE, &b.q, LOWP_ROWWISE, &d, &c, nullptr, 0, nullptr), LOWP_SUCCESS)
        << r.name << ": " << lowp_get_last_error();
    for (uint8_t pad : kPads) {
      Old<QuantizedTensorV1> oa(pad), ob(pad);
      set_tensor(oa.operator->(), a.q);
      set_tensor(ob.operator->(), b.q);
      Old<GemmConfigV1> oc(pad);
      oc->bias = c.bias;
      oc->bias_dtype = c.bias_dtype;
      oc->accumulate = c.accumulate;
      oc->fast_accumulation = c.fast_accumulation;
      oc->a_columnwise_rht = c.a_columnwise_rht;
      oc->b_columnwise_rht = c.b_columnwise_rht;
      const auto* qa = oa.as<lowp_quantized_tensor>();
      const auto* qb = ob.as<lowp_quantized_tensor>();
      const auto* cfg = oc.as<lowp_gemm_config>();
      for (const int which : {0, 1, 2}) {  // old operands, old config, both
        const lowp_quantized_tensor* A = which != 1 ? qa : &a.q;
        const lowp_quantized_tensor* B = which != 1 ? qb : &b.q;
        const lowp_gemm_config* C = which != 0 ? cfg : &c;
        size_t bytes = 1;
        EXPECT_EQ(lowp_gemm_workspace_size(A, LOWP_ROWWISE, B, LOWP_ROWWISE, &d, C, &bytes), LOWP_SUCCESS)
            << r.name << ": " << lowp_get_last_error();
        EXPECT_EQ(bytes, 0u);
        std::fill(got.begin(), got.end(), 0.25f);
        d.data = got.data();
        EXPECT_EQ(lowp_gemm(A, LOWP_ROWWISE, B, LOWP_ROWWISE, &d, C, nullptr, 0, nullptr), LOWP_SUCCESS)
            << r.name << " pad " << int(pad) << ": " << lowp_get_last_error();
        EXPECT_TRUE(float_bits_equal(got.data(), want.data(), got.size(), r.name));
        d.data = want.data();
      }
    }
  }
}

// A first-release struct_size of a struct whose first release ended in padding is the padded size:
// the members' end alone is below it, and rejected.
TEST(OldCallers, SizesInsideTheFirstReleasesPaddingAreRejected) {
  const std::vector<float> x = values(kRows * kCols, 1);
  lowp_tensor t = {const_cast<float*>(x.data()), LOWP_DTYPE_FLOAT32, kRows, kCols};
  Quantized b(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, kRows, kCols);
  const std::vector<uint8_t> before = b.bytes();
  for (size_t size = offsetof(QuantConfigV1, group_row_multiple) + sizeof(int); size < LOWP_QUANT_CONFIG_FIRST_SIZE;
       ++size) {
    lowp_quant_config c;
    lowp_quant_config_default(&c);
    c.struct_size = size;
    EXPECT_EQ(lowp_quantize(&t, &b.q, &c, nullptr), LOWP_ERROR_INVALID_ARGUMENT) << size;
    EXPECT_NE(std::strstr(lowp_get_last_error(), "cfg->struct_size"), nullptr) << lowp_get_last_error();
    EXPECT_TRUE(b.bytes() == before);
  }
  Quantized fa(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 16, 16, LOWP_PARTS_ROWWISE);
  std::vector<float> dv(256);
  lowp_tensor d = {dv.data(), LOWP_DTYPE_FLOAT32, 16, 16};
  for (size_t size = offsetof(GemmConfigV1, b_columnwise_rht) + sizeof(int); size < LOWP_GEMM_CONFIG_FIRST_SIZE;
       ++size) {
    lowp_gemm_config c;
    lowp_gemm_config_default(&c);
    c.struct_size = size;
    EXPECT_EQ(lowp_gemm(&fa.q, LOWP_ROWWISE, &fa.q, LOWP_ROWWISE, &d, &c, nullptr, 0, nullptr),
              LOWP_ERROR_INVALID_ARGUMENT)
        << size;
    EXPECT_NE(std::strstr(lowp_get_last_error(), "cfg->struct_size"), nullptr) << lowp_get_last_error();
  }
}

}  // namespace
