// Grouped FP8 operations on host memory (numerics §2 "Grouped"). Oracle: the single-tensor API on
// each member alone (byte for byte), plus hand-worked values where no single-tensor call exists
// (empty members). Gaps between members and spare slots past N are poisoned and must stay so.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"
#include "common/grouped_outputs.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

constexpr int64_t kSpare = 4;  // poisoned floats / bytes past the last slot of every output

struct Layout {
  std::vector<int64_t> first, last, off;
  int64_t total = 0;
  int64_t n() const { return static_cast<int64_t>(first.size()); }
  int64_t numel(int64_t t) const { return first[t] * last[t]; }
  lowp_grouped_tensor view(void* data, lowp_dtype dt) const {
    return {data, dt, n(), total, first.data(), last.data(), off.data()};
  }
};

enum class Shape { kSameLastDim, kAllDifferent };  // MoE token split / a list of weights

// n members with empty ones (0 rows; 0 cols when shapes differ), gaps, odd and a few tall shapes.
Layout random_layout(Rng& rng, int64_t n, Shape shape, int64_t max_rows = 20, int64_t max_cols = 40) {
  Layout L;
  const int64_t k = 1 + rng.below(static_cast<uint32_t>(max_cols));
  int64_t pos = rng.below(4);
  for (int64_t t = 0; t < n; ++t) {
    int64_t f = rng.below(static_cast<uint32_t>(max_rows + 1));
    int64_t l = shape == Shape::kSameLastDim ? k : rng.below(static_cast<uint32_t>(max_cols + 1));
    const uint32_t e = rng.below(12);
    if (e == 0) f = 0;
    if (e == 1 && shape == Shape::kAllDifferent) l = 0;
    if (e == 2) f = 65 + rng.below(100);  // crosses 64-row chunks / tiles
    if (rng.below(3) == 0) pos += rng.below(9);  // gap
    L.first.push_back(f);
    L.last.push_back(l);
    L.off.push_back(pos);
    pos += f * l;
  }
  L.total = pos + rng.below(5);
  return L;
}

Fill pick_fill(Rng& rng) {
  return rng.below(2) ? Fill::kGaussian : kAllFills[rng.below(sizeof kAllFills / sizeof kAllFills[0])];
}

// total+1 elements (never a NULL data pointer); gaps hold NaN/inf so reading them shows up.
std::vector<uint8_t> fill_group(const Layout& L, lowp_dtype dt, Rng& rng, uint64_t seed) {
  const size_t es = dtype_size(dt);
  std::vector<uint8_t> buf = fuzz_tensor(dt, 1, L.total + 1, Fill::kSpecials, seed);
  for (int64_t t = 0; t < L.n(); ++t) {
    if (L.numel(t) == 0) continue;
    const std::vector<uint8_t> m = fuzz_tensor(dt, L.first[t], L.last[t], pick_fill(rng), seed * 131 + t);
    std::memcpy(buf.data() + L.off[t] * es, m.data(), m.size());
  }
  return buf;
}

// Bytes of [0, total) that belong to some member.
std::vector<bool> covered(const Layout& L) {
  std::vector<bool> c(L.total, false);
  for (int64_t t = 0; t < L.n(); ++t)
    for (int64_t i = 0; i < L.numel(t); ++i) c[L.off[t] + i] = true;
  return c;
}

::testing::AssertionResult gaps_untouched(const Layout& L, const std::vector<uint8_t>& buf, const char* what) {
  const std::vector<bool> c = covered(L);
  for (int64_t i = 0; i < L.total; ++i)
    if (!c[i] && buf[i] != kPoison)
      return ::testing::AssertionFailure() << what << " gap byte " << i << " was written: " << int(buf[i]);
  return untouched(buf.data() + L.total, buf.size() - L.total, what);
}

bool bits_eq(float a, float b) { return f32_bits(a) == f32_bits(b); }
std::string hexf(float a) { return hex_bytes(reinterpret_cast<const uint8_t*>(&a), 4) + " (" + std::to_string(a) + ")"; }
#define EXPECT_BITS(got, want) EXPECT_TRUE(bits_eq(got, want)) << #got << " = " << hexf(got) << ", want " << hexf(want)

// One member quantized alone through lowp_quantize / lowp_quantize_dact (the oracle).
struct Single {
  std::vector<uint8_t> row, col;
  float scale, scale_inv, amax;
};
Single single_quantize(const void* x, const void* act_in, int act, lowp_dtype in, int64_t rows, int64_t cols,
                       lowp_dtype out, lowp_scaling s, bool want_row, bool want_col, float scale0, float amax0,
                       const lowp_quant_config* cfg) {
  Single r{std::vector<uint8_t>(rows * cols, kPoison), std::vector<uint8_t>(rows * cols, kPoison), scale0, 0, amax0};
  poison(&r.scale_inv, 4);
  lowp_tensor xt{const_cast<void*>(x), in, rows, cols};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = out;
  q.scaling = s;
  q.rows = rows;
  q.cols = cols;
  q.rowwise.data = want_row ? r.row.data() : nullptr;
  q.columnwise.data = want_col ? r.col.data() : nullptr;
  q.scale = &r.scale;
  q.scale_inv = &r.scale_inv;
  q.amax = &r.amax;
  const lowp_status st = act < 0 ? lowp_quantize(&xt, &q, cfg, nullptr)
                                 : lowp_quantize_dact(&xt, act_in, static_cast<lowp_activation>(act), &q, cfg, nullptr);
  EXPECT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
  return r;
}

float single_amax(const void* x, lowp_dtype in, int64_t rows, int64_t cols) {
  lowp_tensor xt{const_cast<void*>(x), in, rows, cols};
  float a;
  poison(&a, 4);
  EXPECT_EQ(lowp_amax(&xt, &a, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  return a;
}

// Outputs of one grouped quantize, poisoned; DELAYED state (scale, amax) seeded by the caller.
struct GroupOut {
  std::vector<uint8_t> row, col;
  std::vector<float> scale, scale_inv, amax;
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  GroupOut(const Layout& L, lowp_dtype dt, lowp_scaling s, bool want_row, bool want_col, int64_t stride = 1)
      : row(L.total + kSpare, kPoison), col(L.total + kSpare, kPoison), scale(L.n() + kSpare),
        scale_inv(L.n() + kSpare), amax(L.n() * std::max<int64_t>(stride, 1) + kSpare) {
    for (auto* v : {&scale, &scale_inv, &amax}) poison(v->data(), v->size() * 4);
    q = grouped_outputs(dt, s, L.n(), want_row ? row.data() : nullptr, want_col ? col.data() : nullptr, scale.data(),
                        scale_inv.data(), amax.data(), stride);
  }
};

// Seeds DELAYED state: per-member scales (some saturating) and prior amaxes (some 0).
void seed_delayed(Rng& rng, GroupOut& g, int64_t n, int64_t stride) {
  static const float kScales[] = {1.0f, 0.5f, 3.7f, 1000.0f, 1e-3f, 0.3f, 65536.0f};
  static const float kPrior[] = {0.0f, 0.0f, 1e-20f, 0.75f, 3.0f, 1e6f};
  for (int64_t t = 0; t < n; ++t) {
    g.scale[t] = kScales[rng.below(7)];
    g.amax[t * std::max<int64_t>(stride, 1)] = kPrior[rng.below(6)];
  }
}

// Checks every member of g against the single-tensor oracle (or the empty-member rule).
// scale0/amax0: per-member state before the call; amax_all0: the whole amax array before it.
// x/act_in laid out by L. Returns members checked.
int64_t expect_members_match(const Layout& L, const GroupOut& g, const std::vector<float>& scale0,
                             const std::vector<float>& amax0, const std::vector<float>& amax_all0, const uint8_t* x, const uint8_t* act_in, int act,
                             lowp_dtype in, const lowp_quant_config* cfg) {
  const lowp_grouped_quantized_tensor& q = g.q;
  const int64_t stride = std::max<int64_t>(q.amax_stride, 1);
  const size_t es = dtype_size(in);
  const bool want_row = q.rowwise_data != nullptr, want_col = q.columnwise_data != nullptr;
  // Scale from amax 0 under cfg (1 unless amax_epsilon > 0): a 1x1 zero tensor alone.
  const float zero = 0.0f;
  const Single z = single_quantize(&zero, nullptr, -1, LOWP_DTYPE_FLOAT32, 1, 1, q.dtype, LOWP_SCALING_CURRENT,
                                   true, false, 0, 0, cfg);
  int64_t checked = 0;
  for (int64_t t = 0; t < L.n(); ++t) {
    SCOPED_TRACE("member " + std::to_string(t) + " of " + std::to_string(L.n()) + ": " +
                 std::to_string(L.first[t]) + " x " + std::to_string(L.last[t]) + " at " + std::to_string(L.off[t]));
    const float s_got = g.scale[t], si_got = g.scale_inv[t], a_got = g.amax[t * stride];
    if (L.numel(t) == 0) {
      if (q.scaling == LOWP_SCALING_DELAYED) {  // scale read, 1/scale written, amax unchanged
        EXPECT_BITS(s_got, scale0[t]);
        EXPECT_BITS(si_got, 1.0f / scale0[t]);
        EXPECT_BITS(a_got, amax0[t]);
      } else {  // amax 0 -> scale from amax 0 (= 1 with the default eps 0)
        EXPECT_BITS(a_got, 0.0f);
        EXPECT_BITS(s_got, z.scale);
        EXPECT_BITS(si_got, z.scale_inv);
        if (cfg == nullptr || cfg->amax_epsilon == 0.0f) {
          EXPECT_BITS(s_got, 1.0f);
          EXPECT_BITS(si_got, 1.0f);
        }
      }
    } else {
      const Single w = single_quantize(x + L.off[t] * es, act_in ? act_in + L.off[t] * es : nullptr, act, in,
                                       L.first[t], L.last[t], q.dtype, q.scaling, want_row, want_col,
                                       scale0[t], amax0[t], cfg);
      if (want_row) {
        EXPECT_TRUE(bytes_equal(g.row.data() + L.off[t], w.row.data(), L.first[t], L.last[t], 1, "rowwise"));
      }
      if (want_col) {
        EXPECT_TRUE(bytes_equal(g.col.data() + L.off[t], w.col.data(), L.last[t], L.first[t], 1, "columnwise"));
      }
      EXPECT_BITS(s_got, w.scale);
      EXPECT_BITS(si_got, w.scale_inv);
      EXPECT_BITS(a_got, w.amax);
    }
    ++checked;
    if (::testing::Test::HasFailure()) return checked;  // first bad member is enough
  }
  EXPECT_TRUE(want_row ? gaps_untouched(L, g.row, "rowwise codes")
                       : untouched(g.row.data(), g.row.size(), "unrequested rowwise"));
  EXPECT_TRUE(want_col ? gaps_untouched(L, g.col, "columnwise codes")
                       : untouched(g.col.data(), g.col.size(), "unrequested columnwise"));
  EXPECT_TRUE(untouched(g.scale.data() + L.n(), kSpare * 4, "scale past N"));
  EXPECT_TRUE(untouched(g.scale_inv.data() + L.n(), kSpare * 4, "scale_inv past N"));
  for (size_t i = 0; i < g.amax.size(); ++i) {  // only amax[t * stride] may change
    const int64_t j = static_cast<int64_t>(i);
    if (!(j % stride == 0 && j / stride < L.n())) {
      EXPECT_TRUE(bits_eq(g.amax[i], amax_all0[i])) << "amax entry " << i << " (not a member's slot) changed";
    }
  }
  return checked;
}

// Per-member initial state indexed by member (scale0[t], amax0[t]) from a seeded GroupOut.
void state_before(const GroupOut& g, int64_t n, std::vector<float>* scale0, std::vector<float>* amax0) {
  const int64_t stride = std::max<int64_t>(g.q.amax_stride, 1);
  scale0->resize(n);
  amax0->resize(n);
  for (int64_t t = 0; t < n; ++t) {
    (*scale0)[t] = g.scale[t];
    (*amax0)[t] = g.amax[t * stride];
  }
}

const lowp_dtype kInputs[] = {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32};
const lowp_dtype kFp8[] = {LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2};
const lowp_scaling kScalings[] = {LOWP_SCALING_DELAYED, LOWP_SCALING_CURRENT};
const char* name_of(lowp_dtype d) {
  switch (d) {
    case LOWP_DTYPE_BFLOAT16: return "bf16";
    case LOWP_DTYPE_FLOAT16: return "fp16";
    case LOWP_DTYPE_FLOAT32: return "fp32";
    case LOWP_DTYPE_E4M3: return "e4m3";
    default: return "e5m2";
  }
}

// Runs one grouped quantize (act < 0) or dact cast over group L and checks every member.
int64_t run_and_check(const Layout& L, lowp_dtype in, const std::vector<uint8_t>& x, const std::vector<uint8_t>* act_in,
                      int act, lowp_dtype out, lowp_scaling s, bool want_row, bool want_col,
                      const lowp_quant_config* cfg, Rng& rng, std::vector<uint64_t>* ws = nullptr) {
  GroupOut g(L, out, s, want_row, want_col);
  if (s == LOWP_SCALING_DELAYED) seed_delayed(rng, g, L.n(), 1);
  std::vector<float> scale0, amax0;
  state_before(g, L.n(), &scale0, &amax0);
  const std::vector<float> amax_all0 = g.amax;
  lowp_grouped_tensor xt = L.view(const_cast<uint8_t*>(x.data()), in);
  void* wsp = ws ? ws->data() : nullptr;
  const size_t wsb = ws ? ws->size() * 8 : 0;
  const lowp_status st = act < 0 ? lowp_grouped_quantize(&xt, &g.q, cfg, wsp, wsb, nullptr)
                                 : lowp_grouped_quantize_dact(&xt, act_in->data(), static_cast<lowp_activation>(act),
                                                              &g.q, cfg, wsp, wsb, nullptr);
  EXPECT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
  if (st != LOWP_SUCCESS) return 0;
  return expect_members_match(L, g, scale0, amax0, amax_all0, x.data(), act_in ? act_in->data() : nullptr, act, in, cfg);
}

TEST(GroupedFp8Cpu, QuantizeEachMemberAsAlone) {
  Rng rng(0x6770u);
  int64_t members = 0, groups = 0;
  const int64_t kN[] = {1, 80, 2, 0};  // 0: random in [1, 80]
  for (lowp_dtype in : kInputs)
    for (lowp_dtype out : kFp8)
      for (lowp_scaling s : kScalings)
        for (int orient = 0; orient < 3; ++orient)
          for (Shape shape : {Shape::kSameLastDim, Shape::kAllDifferent})
            for (int rep = 0; rep < 2; ++rep) {
              const int64_t n = kN[(groups) % 4] ? kN[groups % 4] : 1 + rng.below(80);
              const Layout L = random_layout(rng, n, shape);
              const std::vector<uint8_t> x = fill_group(L, in, rng, 1000 + groups);
              lowp_quant_config cfg;
              lowp_quant_config_default(&cfg);
              if (rep == 1 && s == LOWP_SCALING_CURRENT) {
                cfg.power_of_two_scale = static_cast<int>(rng.below(2));
                cfg.amax_epsilon = rng.below(2) ? 0.0f : 1e-3f;
              }
              SCOPED_TRACE(std::string(name_of(in)) + "->" + name_of(out) + (s ? " current" : " delayed") +
                           " orient " + std::to_string(orient) + " shape " + std::to_string(int(shape)) +
                           " n " + std::to_string(n) + " rep " + std::to_string(rep));
              members += run_and_check(L, in, x, nullptr, -1, out, s, orient != 1, orient != 0,
                                       rep ? &cfg : nullptr, rng);
              ++groups;
              if (HasFailure()) return;
            }
  std::cout << "[ grouped ] " << groups << " groups, " << members << " members matched lowp_quantize\n";
  EXPECT_EQ(groups, 144);
}

// Hand-worked: empty members at shared offsets, scale_inv written for every member.
TEST(GroupedFp8Cpu, EmptyMembersGetScaleInv) {
  Layout L;
  L.first = {0, 3, 2, 0, 1};
  L.last = {16, 0, 4, 0, 3};
  L.off = {0, 0, 0, 8, 8};
  L.total = 11;
  const std::vector<float> xv = {1, -2, 0.5f, 0, 0.25f, 1, -1, 2, /*member 4*/ 7, 0, -7, /*spare*/ 99};
  std::vector<uint8_t> x = encode(xv, LOWP_DTYPE_FLOAT32);
  lowp_grouped_tensor xt = L.view(x.data(), LOWP_DTYPE_FLOAT32);
  for (lowp_scaling s : kScalings) {
    SCOPED_TRACE(s ? "current" : "delayed");
    GroupOut g(L, LOWP_DTYPE_E4M3, s, true, true);
    const float scales[] = {2, 4, 0.5f, 3, 8};
    for (int t = 0; t < 5; ++t) g.scale[t] = scales[t], g.amax[t] = 0.5f;
    ASSERT_EQ(lowp_grouped_quantize(&xt, &g.q, nullptr, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    if (s == LOWP_SCALING_DELAYED) {
      const float want_si[] = {0.5f, 0.25f, 2.0f, 1.0f / 3.0f, 0.125f};
      const float want_amax[] = {0.5f, 0.5f, 2.0f, 0.5f, 7.0f};  // max(prior 0.5, |member|)
      for (int t = 0; t < 5; ++t) {
        EXPECT_BITS(g.scale[t], scales[t]);
        EXPECT_BITS(g.scale_inv[t], want_si[t]);
        EXPECT_BITS(g.amax[t], want_amax[t]);
      }
      // member 2 at scale 0.5: 1*0.5 = 0.5 -> 0x30; -2*0.5 = -1 -> 0xB8; member 4 at 8: 56 -> 0x66
      EXPECT_EQ(g.row[0], 0x30);
      EXPECT_EQ(g.row[1], 0xB8);
      EXPECT_EQ(g.row[8], 0x66);  // 56 = 1.75 * 2^5
      EXPECT_EQ(g.row[10], 0xE6);
    } else {
      const float want_s[] = {1, 1, 224, 1, 64};  // 448 / amax; empty -> 1
      const float want_amax[] = {0, 0, 2, 0, 7};
      for (int t = 0; t < 5; ++t) {
        EXPECT_BITS(g.scale[t], want_s[t]);
        EXPECT_BITS(g.scale_inv[t], 1.0f / want_s[t]);
        EXPECT_BITS(g.amax[t], want_amax[t]);
      }
      // -2 * 224 = -448 -> 0xFE; 2 * 224 -> 0x7E; member 4: 7 * 64 = 448 -> 0x7E
      EXPECT_EQ(g.row[1], 0xFE);
      EXPECT_EQ(g.row[7], 0x7E);
      EXPECT_EQ(g.row[8], 0x7E);
      // columnwise of member 2 (4 x 2): col[0..1] = x[0][0], x[1][0] = 1, 0.25
      EXPECT_EQ(g.col[0], 0x76);  // 224 = 1.75 * 2^7
      EXPECT_EQ(g.col[1], 0x66);  // 56 = 1.75 * 2^5
    }
    EXPECT_TRUE(untouched(g.row.data() + 11, kSpare));
    EXPECT_TRUE(untouched(g.scale_inv.data() + 5, kSpare * 4));
  }
}

// amax = [N][L] history: DELAYED folds into h[t][0] only; the update step then works on it.
TEST(GroupedFp8Cpu, AmaxStrideFoldsIntoHistoryHead) {
  Rng rng(0x57a1);
  for (int64_t hl : {int64_t{1}, int64_t{5}, int64_t{16}}) {
    for (lowp_dtype out : kFp8) {
      SCOPED_TRACE("history_len " + std::to_string(hl) + " " + name_of(out));
      const Layout L = random_layout(rng, 9, Shape::kAllDifferent);
      const std::vector<uint8_t> x = fill_group(L, LOWP_DTYPE_BFLOAT16, rng, 77 + hl);
      GroupOut g(L, out, LOWP_SCALING_DELAYED, true, true, hl);
      for (size_t i = 0; i < g.amax.size(); ++i) g.amax[i] = static_cast<float>(rng.uniform() * 4.0);
      for (int64_t t = 0; t < L.n(); ++t) g.scale[t] = static_cast<float>(0.25 + rng.uniform() * 8.0);
      const std::vector<float> before = g.amax;
      std::vector<float> scale0, amax0;
      state_before(g, L.n(), &scale0, &amax0);
      lowp_grouped_tensor xt = L.view(const_cast<uint8_t*>(x.data()), LOWP_DTYPE_BFLOAT16);
      ASSERT_EQ(lowp_grouped_quantize(&xt, &g.q, nullptr, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
      // Oracle history: h[t][0] folded by the single-tensor call, the rest as before.
      std::vector<float> want = before;
      for (int64_t t = 0; t < L.n(); ++t) {
        if (L.numel(t) == 0) continue;
        want[t * hl] = single_quantize(x.data() + L.off[t] * 2, nullptr, -1, LOWP_DTYPE_BFLOAT16, L.first[t],
                                       L.last[t], out, LOWP_SCALING_DELAYED, true, false, scale0[t], amax0[t],
                                       nullptr).amax;
      }
      ASSERT_TRUE(float_bits_equal(g.amax.data(), want.data(), want.size(), "history"));
      // Update on the grouped result == update on the oracle history; and hand-checked (MAX, margin 0).
      std::vector<float> s1(scale0), si1(L.n()), s2(scale0), si2(L.n());
      std::vector<float> h2 = want;
      ASSERT_EQ(lowp_fp8_delayed_scaling_update(L.n(), hl, g.amax.data(), s1.data(), si1.data(), out, 0,
                                                LOWP_AMAX_ALGO_MAX, nullptr), LOWP_SUCCESS);
      ASSERT_EQ(lowp_fp8_delayed_scaling_update(L.n(), hl, h2.data(), s2.data(), si2.data(), out, 0,
                                                LOWP_AMAX_ALGO_MAX, nullptr), LOWP_SUCCESS);
      EXPECT_TRUE(float_bits_equal(g.amax.data(), h2.data(), h2.size(), "rolled history"));
      EXPECT_TRUE(float_bits_equal(s1.data(), s2.data(), s1.size(), "updated scale"));
      EXPECT_TRUE(float_bits_equal(si1.data(), si2.data(), si1.size(), "updated scale_inv"));
      const float fmax = out == LOWP_DTYPE_E4M3 ? 448.0f : 57344.0f;
      for (int64_t t = 0; t < L.n(); ++t) {
        EXPECT_BITS(g.amax[t * hl], 0.0f) << " member " << t;  // rolled, head zeroed
        float a = 0;
        bool nan = false;
        for (int64_t i = 0; i < hl; ++i) nan |= std::isnan(want[t * hl + i]), a = std::fmax(a, want[t * hl + i]);
        if (nan || !std::isfinite(a) || a <= 0) continue;  // scale kept: covered by the oracle compare
        float sc = fmax / a;
        if (std::isinf(sc)) sc = FLT_MAX;
        EXPECT_BITS(s1[t], sc) << " member " << t;
        EXPECT_BITS(si1[t], 1.0f / sc) << " member " << t;
      }
    }
  }
}

// More than 64 members: every member its own amax slot (regression for a fixed 64-slot table).
TEST(GroupedFp8Cpu, LargeGroupsKeepEveryMembersAmax) {
  for (int64_t n : {int64_t{65}, int64_t{257}, int64_t{4096}}) {
    Layout L;
    std::vector<float> xv;
    Rng rng(n);
    for (int64_t t = 0; t < n; ++t) {
      const int64_t rows = 1 + t % 3, cols = 16;
      L.first.push_back(rows);
      L.last.push_back(cols);
      L.off.push_back(static_cast<int64_t>(xv.size()));
      const double mag = std::ldexp(1.0, static_cast<int>((t * 7) % 23) - 11);  // distinct per member
      for (int64_t i = 0; i < rows * cols; ++i) xv.push_back(static_cast<float>(rng.gaussian() * mag));
    }
    L.total = static_cast<int64_t>(xv.size());
    for (lowp_dtype in : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32}) {
      const std::vector<uint8_t> x = encode(xv, in);
      const size_t es = dtype_size(in);
      for (lowp_scaling s : kScalings) {
        SCOPED_TRACE("n " + std::to_string(n) + " " + name_of(in) + (s ? " current" : " delayed"));
        GroupOut g(L, LOWP_DTYPE_E4M3, s, true, true);
        for (int64_t t = 0; t < n; ++t) g.scale[t] = 1.0f, g.amax[t] = 0.0f;
        lowp_grouped_tensor xt = L.view(const_cast<uint8_t*>(x.data()), in);
        ASSERT_EQ(lowp_grouped_quantize(&xt, &g.q, nullptr, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
        for (int64_t t = 0; t < n; ++t) {
          const float want = single_amax(x.data() + L.off[t] * es, in, L.first[t], L.last[t]);
          ASSERT_TRUE(bits_eq(g.amax[t], want)) << "member " << t << ": amax " << hexf(g.amax[t]) << ", want " << hexf(want);
        }
        std::vector<float> scale0(n, 1.0f), amax0(n, 0.0f), all0(g.amax.size());
        poison(all0.data(), all0.size() * 4);
        for (int64_t t = 0; t < n; ++t) all0[t] = 0.0f;
        expect_members_match(L, g, scale0, amax0, all0, x.data(), nullptr, -1, in, nullptr);
        if (HasFailure()) return;
      }
      std::vector<float> am(n + kSpare);
      poison(am.data(), am.size() * 4);
      lowp_grouped_tensor xt = L.view(const_cast<uint8_t*>(x.data()), in);
      ASSERT_EQ(lowp_grouped_amax(&xt, am.data(), 1, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
      for (int64_t t = 0; t < n; ++t)
        ASSERT_TRUE(bits_eq(am[t], single_amax(x.data() + L.off[t] * es, in, L.first[t], L.last[t]))) << "grouped_amax member " << t;
      EXPECT_TRUE(untouched(am.data() + n, kSpare * 4));
    }
  }
}

TEST(GroupedFp8Cpu, GroupedAmaxEqualsAmaxPerMember) {
  Rng rng(0xa3a3);
  int64_t checked = 0;
  for (lowp_dtype in : kInputs)
    for (int64_t stride : {int64_t{0}, int64_t{1}, int64_t{3}})
      for (Shape shape : {Shape::kSameLastDim, Shape::kAllDifferent}) {
        SCOPED_TRACE(std::string(name_of(in)) + " stride " + std::to_string(stride));
        const Layout L = random_layout(rng, 1 + rng.below(80), shape);
        const std::vector<uint8_t> x = fill_group(L, in, rng, 500 + checked);
        const int64_t st = std::max<int64_t>(stride, 1);
        std::vector<float> am(L.n() * st + kSpare);
        poison(am.data(), am.size() * 4);
        lowp_grouped_tensor xt = L.view(const_cast<uint8_t*>(x.data()), in);
        ASSERT_EQ(lowp_grouped_amax(&xt, am.data(), stride, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
        for (int64_t t = 0; t < L.n(); ++t) {
          const float want = L.numel(t) ? single_amax(x.data() + L.off[t] * dtype_size(in), in, L.first[t], L.last[t]) : 0.0f;
          ASSERT_TRUE(bits_eq(am[t * st], want)) << "member " << t << " (" << L.first[t] << "x" << L.last[t]
                                                 << "): " << hexf(am[t * st]) << ", want " << hexf(want);
          for (int64_t j = 1; j < st; ++j) ASSERT_TRUE(untouched(&am[t * st + j], 4, "between slots"));
          ++checked;
        }
        EXPECT_TRUE(untouched(am.data() + L.n() * st, kSpare * 4, "past N"));
      }
  std::cout << "[ grouped ] amax: " << checked << " members\n";
}

TEST(GroupedFp8Cpu, DequantizeEqualsDequantizePerMember) {
  Rng rng(0xde9);
  int64_t checked = 0;
  for (lowp_dtype code : kFp8)
    for (lowp_dtype out : kInputs)
      for (lowp_orientation which : {LOWP_ROWWISE, LOWP_COLUMNWISE})
        for (Shape shape : {Shape::kSameLastDim, Shape::kAllDifferent}) {
          SCOPED_TRACE(std::string(name_of(code)) + "->" + name_of(out) + (which ? " col" : " row"));
          const Layout L = random_layout(rng, 1 + rng.below(80), shape);
          std::vector<uint8_t> codes(L.total + 1);
          for (auto& b : codes) b = static_cast<uint8_t>(rng.next());  // every code, NaN included
          static const float kSi[] = {1.0f, 0.5f, 3.7f, 1e-30f, 1e30f, 1.0f / 448.0f};
          std::vector<float> si(L.n());
          for (auto& v : si) v = kSi[rng.below(6)];
          lowp_grouped_quantized_tensor q =
              grouped_outputs(code, LOWP_SCALING_CURRENT, L.n(), nullptr, nullptr, nullptr, si.data(), nullptr, 1);
          (which == LOWP_ROWWISE ? q.rowwise_data : q.columnwise_data) = codes.data();
          const size_t es = dtype_size(out);
          std::vector<uint8_t> got((L.total + kSpare) * es, kPoison);
          lowp_grouped_tensor ot = L.view(got.data(), out);
          ASSERT_EQ(lowp_grouped_dequantize(&q, which, &ot, nullptr, 0, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          std::vector<bool> cov = covered(L);
          for (int64_t t = 0; t < L.n(); ++t) {
            if (L.numel(t) == 0) continue;
            const int64_t r = which ? L.last[t] : L.first[t], c = which ? L.first[t] : L.last[t];
            std::vector<uint8_t> want(r * c * es, kPoison);
            lowp_quantized_tensor sq = LOWP_QUANTIZED_TENSOR_INIT;
            sq.dtype = code;
            sq.scaling = LOWP_SCALING_CURRENT;
            sq.rows = L.first[t];
            sq.cols = L.last[t];
            (which ? sq.columnwise.data : sq.rowwise.data) = codes.data() + L.off[t];
            sq.scale_inv = &si[t];
            lowp_tensor wt{want.data(), out, r, c};
            ASSERT_EQ(lowp_dequantize(&sq, which, &wt, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
            ASSERT_TRUE(bytes_equal(got.data() + L.off[t] * es, want.data(), r, c, es, "member"))
                << "member " << t << " " << L.first[t] << "x" << L.last[t];
            ++checked;
          }
          for (int64_t i = 0; i < L.total; ++i)
            if (!cov[i]) {
              ASSERT_TRUE(untouched(got.data() + i * es, es, "out gap")) << "element " << i;
            }
          EXPECT_TRUE(untouched(got.data() + L.total * es, kSpare * es, "out past total"));
        }
  std::cout << "[ grouped ] dequantize: " << checked << " members\n";
}

const lowp_activation kActs[] = {LOWP_ACTIVATION_GELU_TANH, LOWP_ACTIVATION_SILU, LOWP_ACTIVATION_RELU};

TEST(GroupedFp8Cpu, DactEachMemberAsAlone) {
  Rng rng(0xdac7);
  int64_t members = 0, groups = 0;
  for (lowp_activation act : kActs)
    for (lowp_dtype in : kInputs)
      for (lowp_dtype out : kFp8)
        for (lowp_scaling s : kScalings)
          for (Shape shape : {Shape::kSameLastDim, Shape::kAllDifferent}) {
            const int orient = static_cast<int>(rng.below(3));
            SCOPED_TRACE("act " + std::to_string(act) + " " + name_of(in) + "->" + name_of(out) +
                         (s ? " current" : " delayed") + " orient " + std::to_string(orient));
            const Layout L = random_layout(rng, 1 + rng.below(80), shape);
            const std::vector<uint8_t> grad = fill_group(L, in, rng, 9000 + groups);
            const std::vector<uint8_t> act_in = fill_group(L, in, rng, 7000 + groups);
            members += run_and_check(L, in, grad, &act_in, act, out, s, orient != 1, orient != 0, nullptr, rng);
            ++groups;
            if (HasFailure()) return;
          }
  std::cout << "[ grouped ] dact: " << groups << " groups, " << members << " members\n";
}

// Regression: the backward cast must take shapes and offsets from the gradient group, not from
// the forward input quantized before it (same N, different rows, offsets and total).
TEST(GroupedFp8Cpu, DactUsesGradientLayoutNotForwardLayout) {
  Rng rng(0xf0b);
  const int64_t n = 6, k = 24;
  Layout fwd, bwd;
  const int64_t fwd_rows[n] = {10, 0, 33, 4, 70, 1}, bwd_rows[n] = {3, 12, 0, 40, 2, 66};
  for (Layout* L : {&fwd, &bwd}) {
    int64_t pos = L == &fwd ? 0 : 5;
    for (int64_t t = 0; t < n; ++t) {
      L->first.push_back(L == &fwd ? fwd_rows[t] : bwd_rows[t]);
      L->last.push_back(k);
      L->off.push_back(pos);
      pos += L->first[t] * k + (L == &bwd ? 3 : 0);
    }
    L->total = pos;
  }
  ASSERT_NE(fwd.total, bwd.total);
  std::vector<uint64_t> ws;  // one host workspace reused by both calls, as a training step would
  size_t wsb = 0;
  ASSERT_EQ(lowp_grouped_workspace_size(n, &wsb), LOWP_SUCCESS);
  ws.assign(wsb / 8 + 1, 0);
  for (lowp_activation act : kActs)
    for (lowp_scaling s : kScalings)
      for (lowp_dtype in : kInputs) {
        SCOPED_TRACE("act " + std::to_string(act) + (s ? " current " : " delayed ") + name_of(in));
        const std::vector<uint8_t> x = fill_group(fwd, in, rng, 31 + act);
        run_and_check(fwd, in, x, nullptr, -1, LOWP_DTYPE_E4M3, s, true, true, nullptr, rng, &ws);
        const std::vector<uint8_t> grad = fill_group(bwd, in, rng, 41 + act);
        const std::vector<uint8_t> act_in = fill_group(bwd, in, rng, 51 + act);  // laid out like grad
        run_and_check(bwd, in, grad, &act_in, act, LOWP_DTYPE_E5M2, s, true, true, nullptr, rng, &ws);
        if (HasFailure()) return;
      }
}

TEST(GroupedFp8Cpu, HostLayoutErrorIsZero) {
  std::vector<uint64_t> ws(64, 0xFFFFFFFFFFFFFFFFull);
  int64_t bad = -7;
  ASSERT_EQ(lowp_grouped_layout_error(ws.data(), &bad, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_EQ(bad, 0);
}

}  // namespace
