// Grouped per-row NVFP4 (lowp_nvfp4_grouped_*: per-token, and row-scaled with and without 4over6)
// on the CPU backend: every member's outputs are
// lowp_quantize's for that member alone, at the offsets lowp.h documents (fuzzed splits with up to
// 70 members, empty ones included, every dtype, part, RHT and scale layout); SR continues the
// block numbering across members (checked against the per-token oracle); grouped K1 equals K1 per
// member; K1 then K2 equals the composite; lowp_nvfp4_grouped_sizes bounds every split and is
// reached by one; nothing is written past the layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "nvfp4_per_token_fixture.h"

using namespace lowp_test;
namespace pto = nvfp4_per_token_oracle;

namespace {

int64_t row_scale_bytes(int64_t m, int64_t k) { return padded_scale_bytes(m, k / 16); }
int64_t col_scale_bytes(int64_t m, int64_t k) { return padded_scale_bytes(k, m / 16); }

// Member t's place in the group's outputs (lowp.h, lowp_nvfp4_grouped_quantize), computed here
// from the documented rule.
struct Place {
  int64_t row0, rows, row_scales, col_scales;
};
std::vector<Place> places(const std::vector<int64_t>& rows, int64_t K) {
  std::vector<Place> p;
  int64_t r = 0, rs = 0, cs = 0;
  for (int64_t m : rows) {
    p.push_back({r, m, rs, cs});
    r += m;
    rs += row_scale_bytes(m, K);
    cs += col_scale_bytes(m, K);
  }
  p.push_back({r, 0, rs, cs});  // one past the last member: the totals
  return p;
}

// The group's buffers, sized by lowp_nvfp4_grouped_sizes and poisoned.
struct Group {
  int64_t N, R, K;
  std::vector<int64_t> rows;
  std::vector<uint8_t> row, col, row_scales, col_scales;
  std::vector<float> row_amax, col_amax;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;

  Group(const std::vector<int64_t>& member_rows, int64_t k, bool want_row, bool want_col,
        lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT, lowp_scaling scaling = LOWP_SCALING_NVFP4_PER_TOKEN)
      : N(static_cast<int64_t>(member_rows.size())), R(0), K(k), rows(member_rows) {
    for (int64_t m : rows) R += m;
    lowp_quantized_sizes s{};
    EXPECT_EQ(lowp_nvfp4_grouped_sizes(N, R, K, &s), LOWP_SUCCESS) << lowp_get_last_error();
    row.assign(s.data_bytes[0], kPoison);
    col.assign(s.data_bytes[1], kPoison);
    row_scales.assign(s.scale_inv_bytes[0], kPoison);
    col_scales.assign(s.scale_inv_bytes[1], kPoison);
    row_amax.resize(s.amax_bytes[0] / 4);
    col_amax.resize(s.amax_bytes[1] / 4);
    poison(row_amax.data(), row_amax.size() * 4);
    poison(col_amax.data(), col_amax.size() * 4);
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = scaling;
    q.scale_layout = layout;
    q.rows = R;
    q.cols = K;
    // Never NULL, even when empty: a part with data is requested, its side buffers must exist.
    alignas(16) static uint8_t dummy[16];
    q.rowwise = {want_row ? (row.empty() ? dummy : row.data()) : nullptr, row_scales.empty() ? dummy : row_scales.data(),
                 row_amax.empty() ? reinterpret_cast<float*>(dummy) : row_amax.data()};
    q.columnwise = {want_col ? (col.empty() ? dummy : col.data()) : nullptr, col_scales.empty() ? dummy : col_scales.data(),
                    col_amax.empty() ? reinterpret_cast<float*>(dummy) : col_amax.data()};
  }
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  lowp_status run(const std::vector<uint8_t>& x, lowp_dtype dt, const lowp_quant_config* cfg) {
    alignas(8) static uint8_t dummy_x[16];
    lowp_tensor t{x.empty() ? dummy_x : const_cast<uint8_t*>(x.data()), dt, R, K};
    return lowp_nvfp4_grouped_quantize(&t, N, rows.data(), &q, cfg, nullptr, 0, nullptr);
  }
};

// A random split: n members, each empty with probability 1/5, else 16 * [1, 6] rows (columnwise
// possible) or [1, 90] rows (rowwise only).
std::vector<int64_t> random_split(Rng& rng, int64_t n, bool multiple_of_16) {
  std::vector<int64_t> rows(n);
  for (int64_t& m : rows) m = rng.below(5) == 0 ? 0 : multiple_of_16 ? 16 * (1 + rng.below(6)) : 1 + rng.below(90);
  return rows;
}

// Member t of g against lowp_quantize of that member alone (same cfg; SR excluded: the block
// numbering differs by design), and the bytes past the layout untouched.
void expect_members_as_alone(const Group& g, const std::vector<uint8_t>& x, lowp_dtype dt, const lowp_quant_config& cfg,
                             bool want_row, bool want_col) {
  const std::vector<Place> p = places(g.rows, g.K);
  const size_t es = dtype_size(dt);
  for (int64_t t = 0; t < g.N; ++t) {
    SCOPED_TRACE(testing::Message() << "member " << t << " of " << g.N << ", " << p[t].rows << " rows at row " << p[t].row0);
    const int64_t m = p[t].rows;
    if (m == 0) {
      if (want_col) {
        for (int64_t k = 0; k < g.K; ++k) ASSERT_EQ(f32_bits(g.col_amax[t * g.K + k]), 0u) << "empty member col amax " << k;
      }
      continue;
    }
    const std::vector<uint8_t> xm(x.begin() + p[t].row0 * g.K * es, x.begin() + (p[t].row0 + m) * g.K * es);
    Nvfp4PtQuant alone(m, g.K, want_row, want_col, g.q.scale_layout);
    alone.q.scaling = g.q.scaling;
    ASSERT_EQ(alone.run(xm, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
    const int64_t code_bytes = m * g.K / 2;
    if (want_row) {
      ASSERT_TRUE(bytes_equal(g.row.data() + p[t].row0 * g.K / 2, alone.row.data(), 1, code_bytes, 1, "rowwise codes"));
      ASSERT_TRUE(bytes_equal(g.row_scales.data() + p[t].row_scales, alone.row_scales.data(), 1,
                              row_scale_bytes(m, g.K), 1, "rowwise scales"));
      ASSERT_TRUE(float_bits_equal(g.row_amax.data() + p[t].row0, alone.row_amax.data(), m, "rowwise amax"));
    }
    if (want_col) {
      ASSERT_TRUE(bytes_equal(g.col.data() + p[t].row0 * g.K / 2, alone.col.data(), 1, code_bytes, 1, "columnwise codes"));
      ASSERT_TRUE(bytes_equal(g.col_scales.data() + p[t].col_scales, alone.col_scales.data(), 1,
                              col_scale_bytes(m, g.K), 1, "columnwise scales"));
      ASSERT_TRUE(float_bits_equal(g.col_amax.data() + t * g.K, alone.col_amax.data(), g.K, "columnwise amax"));
    }
  }
  // Past the layout (the sizes are upper bounds), nothing was written.
  const Place& end = p.back();
  const size_t row_slack = want_row ? g.row_scales.size() - end.row_scales : 0;
  const size_t col_slack = want_col ? g.col_scales.size() - end.col_scales : 0;
  EXPECT_TRUE(untouched(g.row_scales.data() + end.row_scales, row_slack, "rowwise scale slack"));
  EXPECT_TRUE(untouched(g.col_scales.data() + end.col_scales, col_slack, "columnwise scale slack"));
  EXPECT_TRUE(untouched(g.row.data(), want_row ? 0 : g.row.size(), "rowwise codes (not requested)"));
  EXPECT_TRUE(untouched(g.col_amax.data(), want_col ? 0 : g.col_amax.size() * 4, "columnwise amax (not requested)"));
}

TEST(Nvfp4GroupedCpu, EveryMemberAsAlone) {
  Rng rng(2024);
  int runs = 0, members = 0, empty = 0;
  for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32})
    for (int parts : {1, 2, 3})
      for (bool rht : {false, true})
        for (lowp_scale_layout layout : {LOWP_SCALE_LAYOUT_COMPACT, LOWP_SCALE_LAYOUT_SWIZZLED}) {
          const bool want_row = parts & 1, want_col = parts & 2;
          const int64_t n = runs % 4 == 0 ? 1 + rng.below(3) : 1 + rng.below(70);
          const int64_t K = 16 * (1 + rng.below(6));
          const std::vector<int64_t> split = random_split(rng, n, want_col);
          SCOPED_TRACE(testing::Message() << "dtype " << dt << " parts " << parts << " rht " << rht << " layout " << layout
                                          << " N " << n << " K " << K);
          Group g(split, K, want_row, want_col, layout);
          const Fill fill = kAllFills[runs % 7];
          const std::vector<uint8_t> x = fuzz_tensor(dt, g.R, K, fill, 900 + runs);
          lowp_quant_config cfg = default_config();
          cfg.rht = rht;
          ASSERT_EQ(g.run(x, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
          expect_members_as_alone(g, x, dt, cfg, want_row, want_col);
          ++runs;
          members += static_cast<int>(n);
          empty += static_cast<int>(std::count(split.begin(), split.end(), 0));
        }
  std::printf("[ nvfp4 grouped ] %d groups, %d members (%d empty): every member byte-identical to lowp_quantize alone\n",
              runs, members, empty);
}

// Row-scaled groups (with RHT, or 4over6): every member as alone, and the grouped K1 of the
// row-scaled recipe equals the per-member K1 (the RHT column amaxes rounded to bf16).
TEST(Nvfp4GroupedCpu, RowScaledEveryMemberAsAlone) {
  Rng rng(4242);
  int runs = 0;
  for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32})
    for (int variant = 0; variant < 3; ++variant)  // plain, RHT, 4over6 (MSE, E 256)
      for (int parts : {1, 3}) {
        const bool want_row = parts & 1, want_col = parts & 2;
        const int64_t K = 16 * (1 + rng.below(6));
        const std::vector<int64_t> split = random_split(rng, 1 + rng.below(40), want_col);
        SCOPED_TRACE(testing::Message() << "dtype " << dt << " variant " << variant << " parts " << parts << " N "
                                        << split.size() << " K " << K);
        Group g(split, K, want_row, want_col, LOWP_SCALE_LAYOUT_SWIZZLED, LOWP_SCALING_NVFP4_ROW_SCALED);
        const std::vector<uint8_t> x = fuzz_tensor(dt, g.R, K, kAllFills[runs % 7], 4000 + runs);
        lowp_quant_config cfg = default_config();
        cfg.rht = variant == 1;
        cfg.four_over_six = variant == 2;
        cfg.four_over_six_error = LOWP_FOUR_OVER_SIX_MSE;
        cfg.four_over_six_scale_max = 256.0f;
        ASSERT_EQ(g.run(x, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
        EXPECT_EQ(g.q.nvfp4_outer_max, variant == 2 ? 1536.0f : 2688.0f);
        expect_members_as_alone(g, x, dt, cfg, want_row, want_col);
        std::vector<float> row(g.R + 1), col(g.N * K + 1);
        lowp_tensor xt{const_cast<uint8_t*>(x.data()), dt, g.R, K};
        ASSERT_EQ(lowp_nvfp4_grouped_amax_per_row(&xt, LOWP_SCALING_NVFP4_ROW_SCALED, g.N, split.data(), row.data(),
                                                  want_col ? col.data() : nullptr, &cfg, nullptr, 0, nullptr),
                  LOWP_SUCCESS) << lowp_get_last_error();
        EXPECT_TRUE(float_bits_equal(row.data(), g.row_amax.data(), g.R, "grouped K1 row amax"));
        if (want_col) {
          EXPECT_TRUE(float_bits_equal(col.data(), g.col_amax.data(), g.N * K, "grouped K1 col amax"));
        }
        ++runs;
      }
}

// Groups of only empty members (R = 0), and a group of one member (the single tensor).
TEST(Nvfp4GroupedCpu, EdgeGroups) {
  {
    Group g({0, 0, 0}, 32, true, true);
    ASSERT_EQ(g.run({}, LOWP_DTYPE_BFLOAT16, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    for (float a : g.col_amax) EXPECT_EQ(f32_bits(a), 0u);
    EXPECT_TRUE(g.row.empty() && g.row_scales.empty() && g.col_scales.empty());
  }
  const std::vector<uint8_t> x = fuzz_tensor(LOWP_DTYPE_BFLOAT16, 64, 48, Fill::kMixed, 1);
  Group g({64}, 48, true, true, LOWP_SCALE_LAYOUT_SWIZZLED);
  ASSERT_EQ(g.run(x, LOWP_DTYPE_BFLOAT16, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  expect_members_as_alone(g, x, LOWP_DTYPE_BFLOAT16, default_config(), true, true);
}

// SR: the same state gives the same bytes; member t's block (i, j) draws with index
// R_t*K/16 + i*B_t + j (numerics §7), checked against the oracle with that block base.
TEST(Nvfp4GroupedCpu, StochasticRoundingNumbersBlocksAcrossMembers) {
  Rng rng(77);
  const uint64_t state[2] = {0xABCDEF0123ull, 0x55ull};
  int runs = 0;
  for (bool rht : {false, true})
    for (int rep = 0; rep < 3; ++rep) {
      const int64_t K = 16 * (1 + rng.below(5));
      const std::vector<int64_t> split = random_split(rng, 1 + rng.below(20), true);
      SCOPED_TRACE(testing::Message() << "rht " << rht << " K " << K << " N " << split.size());
      lowp_quant_config cfg = default_config();
      cfg.rht = rht;
      cfg.stochastic_rounding = 1;
      cfg.rng_state = state;
      Group a(split, K, true, true), b(split, K, true, true);
      const std::vector<uint8_t> x = fuzz_tensor(LOWP_DTYPE_BFLOAT16, a.R, K, Fill::kGaussian, 33 + runs++);
      ASSERT_EQ(a.run(x, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
      ASSERT_EQ(b.run(x, LOWP_DTYPE_BFLOAT16, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
      EXPECT_EQ(a.row, b.row);
      EXPECT_EQ(a.col, b.col);
      const std::vector<float> xf = decode_all(x, LOWP_DTYPE_BFLOAT16);
      const std::vector<Place> p = places(split, K);
      for (size_t t = 0; t < split.size(); ++t) {
        if (split[t] == 0) continue;
        SCOPED_TRACE(testing::Message() << "member " << t);
        const std::vector<float> xm(xf.begin() + p[t].row0 * K, xf.begin() + (p[t].row0 + split[t]) * K);
        for (bool col : {false, true}) {
          pto::PtConfig oc;
          oc.columnwise = col;
          oc.rht = rht;
          oc.sr = true;
          oc.seed = state[0];
          oc.offset = state[1];
          oc.block_base = static_cast<uint64_t>(p[t].row0 * K / 16);
          const pto::PtResult want = pto::quantize(xm, split[t], K, oc);
          const std::vector<uint8_t> scales(col ? a.col_scales.begin() + p[t].col_scales : a.row_scales.begin() + p[t].row_scales,
                                            col ? a.col_scales.begin() + p[t + 1].col_scales
                                                : a.row_scales.begin() + p[t + 1].row_scales);
          const float* amax = col ? a.col_amax.data() + t * K : a.row_amax.data() + p[t].row0;
          EXPECT_TRUE(matches_pt_oracle((col ? a.col.data() : a.row.data()) + p[t].row0 * K / 2, scales, amax, want,
                                        col ? "columnwise" : "rowwise"));
        }
      }
    }
}

// Grouped K1 equals lowp_nvfp4_amax_per_token of every member; empty members' column amaxes are 0.
// K1 then K2 (amax_given) equals the grouped composite.
TEST(Nvfp4GroupedCpu, GroupedAmaxAndGivenAmax) {
  Rng rng(5);
  int runs = 0;
  for (bool rht : {false, true})
    for (lowp_dtype dt : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32})
      for (int rep = 0; rep < 2; ++rep) {
        const int64_t K = 16 * (1 + rng.below(4));
        const std::vector<int64_t> split = random_split(rng, 1 + rng.below(40), true);
        SCOPED_TRACE(testing::Message() << "rht " << rht << " dtype " << dt << " N " << split.size() << " K " << K);
        Group composite(split, K, true, true), given(split, K, true, true);
        const std::vector<uint8_t> x = fuzz_tensor(dt, composite.R, K, Fill::kMixed, 71 + runs++);
        lowp_quant_config cfg = default_config();
        cfg.rht = rht;
        ASSERT_EQ(composite.run(x, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
        lowp_tensor xt{const_cast<uint8_t*>(x.data()), dt, composite.R, K};
        ASSERT_EQ(lowp_nvfp4_grouped_amax(&xt, given.N, split.data(), given.row_amax.data(), given.col_amax.data(), &cfg,
                                          nullptr, 0, nullptr),
                  LOWP_SUCCESS) << lowp_get_last_error();
        // Per member: lowp_nvfp4_amax_per_token of the member alone.
        const std::vector<Place> p = places(split, K);
        const size_t es = dtype_size(dt);
        for (size_t t = 0; t < split.size(); ++t) {
          if (split[t] == 0) continue;
          std::vector<float> row(split[t]), col(K);
          lowp_tensor mt{const_cast<uint8_t*>(x.data()) + p[t].row0 * K * es, dt, split[t], K};
          ASSERT_EQ(lowp_nvfp4_amax_per_token(&mt, row.data(), col.data(), &cfg, nullptr), LOWP_SUCCESS);
          EXPECT_TRUE(float_bits_equal(given.row_amax.data() + p[t].row0, row.data(), split[t], "grouped K1 row amax"));
          EXPECT_TRUE(float_bits_equal(given.col_amax.data() + t * K, col.data(), K, "grouped K1 col amax"));
        }
        EXPECT_TRUE(float_bits_equal(given.row_amax.data(), composite.row_amax.data(), composite.R, "K1 vs composite rows"));
        EXPECT_TRUE(float_bits_equal(given.col_amax.data(), composite.col_amax.data(), composite.N * K, "K1 vs composite cols"));
        cfg.amax_given = 1;
        ASSERT_EQ(given.run(x, dt, &cfg), LOWP_SUCCESS) << lowp_get_last_error();
        EXPECT_EQ(given.row, composite.row);
        EXPECT_EQ(given.col, composite.col);
        EXPECT_EQ(given.row_scales, composite.row_scales);
        EXPECT_EQ(given.col_scales, composite.col_scales);
        // K1 with one output only, and the rowwise amax of any split (no 16-row rule without RHT).
        std::vector<float> only(composite.R + 1, -1.0f);
        ASSERT_EQ(lowp_nvfp4_grouped_amax(&xt, given.N, split.data(), only.data(), nullptr, &cfg, nullptr, 0, nullptr),
                  LOWP_SUCCESS);
        EXPECT_TRUE(float_bits_equal(only.data(), composite.row_amax.data(), composite.R, "row amax alone"));
        EXPECT_EQ(only[composite.R], -1.0f);
      }
}

// lowp_nvfp4_grouped_sizes bounds the real layout of every split and is reached by the split
// it documents (n - 1 members of one row or 16-row strip, the rest in one member).
TEST(Nvfp4GroupedCpu, SizesBoundEverySplit) {
  Rng rng(3);
  int64_t checked = 0;
  for (int rep = 0; rep < 300; ++rep) {
    const int64_t n = 1 + rng.below(rep % 3 == 0 ? 300 : 20);
    const int64_t K = 16 * (1 + rng.below(40));
    const std::vector<int64_t> split = random_split(rng, n, rep % 2 == 0);
    const std::vector<Place> p = places(split, K);
    const int64_t R = p.back().row0;
    lowp_quantized_sizes s{};
    ASSERT_EQ(lowp_nvfp4_grouped_sizes(n, R, K, &s), LOWP_SUCCESS) << lowp_get_last_error();
    EXPECT_EQ(s.data_bytes[0], static_cast<size_t>(R * K / 2));
    EXPECT_EQ(s.amax_bytes[0], static_cast<size_t>(4 * R));
    EXPECT_LE(p.back().row_scales, static_cast<int64_t>(s.scale_inv_bytes[0]));
    if (R % 16 == 0) {
      EXPECT_EQ(s.amax_bytes[1], static_cast<size_t>(4 * n * K));
      EXPECT_LE(p.back().col_scales, static_cast<int64_t>(s.scale_inv_bytes[1]));
      // The brief's looser bounds hold too: rows (roundup(R,128) + 128N) * C, cols roundup(K,128) * (roundup(R/16,4) + 4N).
      EXPECT_LE(s.scale_inv_bytes[1], static_cast<size_t>((K + 127) / 128 * 128 * ((R / 16 + 3) / 4 * 4 + 4 * n)));
    } else {
      EXPECT_EQ(s.data_bytes[1] + s.scale_inv_bytes[1] + s.amax_bytes[1], 0u);
    }
    EXPECT_LE(s.scale_inv_bytes[0], static_cast<size_t>(((R + 127) / 128 * 128 + 128 * n) * ((K / 16 + 3) / 4 * 4)));
    ++checked;
    // The extreme split of the same R: n' - 1 members of one unit, the rest in one member.
    for (bool col : {false, true}) {
      if (col && R % 16 != 0) continue;
      const int64_t unit = col ? 16 : 1, units = R / unit, nonempty = std::min(n, units);
      if (nonempty == 0) continue;
      std::vector<int64_t> extreme(n, 0);
      for (int64_t t = 0; t + 1 < nonempty; ++t) extreme[t] = unit;
      extreme[nonempty - 1] = R - (nonempty - 1) * unit;
      const Place e = places(extreme, K).back();
      EXPECT_EQ(col ? e.col_scales : e.row_scales, static_cast<int64_t>(s.scale_inv_bytes[col ? 1 : 0]))
          << "R " << R << " N " << n << " K " << K << (col ? " columnwise" : " rowwise");
    }
  }
  std::printf("[ nvfp4 grouped sizes ] %lld splits within the bounds\n", static_cast<long long>(checked));
}

// With a host workspace the layout status reads 0 (host layouts are checked up front).
TEST(Nvfp4GroupedCpu, HostWorkspaceLayoutStatusIsZero) {
  size_t ws_bytes = 0;
  ASSERT_EQ(lowp_grouped_workspace_size(3, &ws_bytes), LOWP_SUCCESS);
  std::vector<uint64_t> ws(ws_bytes / 8 + 1, 0xA5A5A5A5A5A5A5A5ull);
  const std::vector<int64_t> split = {16, 0, 32};
  Group g(split, 32, true, true);
  const std::vector<uint8_t> x = fuzz_tensor(LOWP_DTYPE_BFLOAT16, g.R, 32, Fill::kGaussian, 2);
  lowp_tensor xt{const_cast<uint8_t*>(x.data()), LOWP_DTYPE_BFLOAT16, g.R, 32};
  ASSERT_EQ(lowp_nvfp4_grouped_quantize(&xt, 3, split.data(), &g.q, nullptr, ws.data(), ws_bytes, nullptr), LOWP_SUCCESS)
      << lowp_get_last_error();
  int64_t bad = -1;
  ASSERT_EQ(lowp_grouped_layout_error(ws.data(), &bad, nullptr), LOWP_SUCCESS);
  EXPECT_EQ(bad, 0);
}

}  // namespace
