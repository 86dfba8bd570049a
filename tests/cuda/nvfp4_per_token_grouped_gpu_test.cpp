// CUDA backend == CPU backend, byte for byte, for the grouped per-row NVFP4 calls, per-token and
// row-scaled (with 4over6) (lowp_nvfp4_grouped_quantize, lowp_nvfp4_grouped_amax(_per_row)): N from 1 to 1000 (empty, 16-row and
// tiny members), member_rows in host and in device memory, every part and knob; every member
// equals a single-tensor device quantize of that member alone; two calls back to back on one
// workspace; a bad device-side layout is reported by lowp_grouped_layout_error and writes
// nothing. Single tensors:
// nvfp4_per_token_gpu_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "nvfp4_per_token_gpu.h"

namespace lowp_test {
namespace {

struct GroupCase {
  lowp_dtype in = LOWP_DTYPE_BFLOAT16;
  int64_t K = 48;
  std::vector<int64_t> rows;  // member_rows
  bool row = true, col = true, rht = false, sr = false;
  lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT;
  uint32_t mask = 0xD7E8u;
  bool device_rows = false;  // member_rows in device memory (else host)
  PtValues values = PtValues::kMixed;
  uint64_t seed = 1;
  int64_t total_rows = -1;  // x->rows when it is not the members' sum (bad layouts)
  int row_multiple = 0;     // cfg->group_row_multiple
  PerRowRecipe recipe = kPerToken;
  int64_t N() const { return static_cast<int64_t>(rows.size()); }
  int64_t R() const {
    if (total_rows >= 0) return total_rows;
    int64_t r = 0;
    for (int64_t m : rows) r += m;
    return r;
  }
  std::vector<uint8_t> x() const { return pt_values(in, R(), K, values, seed); }
};

std::string describe(const GroupCase& g) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s in=%d N=%lld R=%lld K=%lld (%lld empty) row=%d col=%d rht=%d mask=0x%04x sr=%d swz=%d device_rows=%d "
                "row_multiple=%d values=%s seed=%llu rows=",
                g.recipe.name, g.in, static_cast<long long>(g.N()), static_cast<long long>(g.R()), static_cast<long long>(g.K),
                static_cast<long long>(std::count(g.rows.begin(), g.rows.end(), 0)), g.row, g.col, g.rht, g.mask, g.sr,
                g.layout == LOWP_SCALE_LAYOUT_SWIZZLED, g.device_rows, g.row_multiple, values_name(g.values),
                static_cast<unsigned long long>(g.seed));
  std::string s = buf;
  for (size_t t = 0; t < g.rows.size() && t < 12; ++t) s += std::to_string(g.rows[t]) + ",";
  return s + (g.rows.size() > 12 ? "..." : "");
}

size_t workspace_bytes(int64_t n) {
  size_t b = 0;
  EXPECT_EQ(lowp_grouped_workspace_size(n, &b), LOWP_SUCCESS) << lowp_get_last_error();
  return b;
}

// Poisoned outputs sized by lowp_nvfp4_grouped_sizes (upper bounds: the slack must stay poisoned).
Outputs initial(const GroupCase& g) {
  lowp_quantized_sizes s{};
  EXPECT_EQ(lowp_nvfp4_grouped_sizes(g.N(), g.R(), g.K, &s), LOWP_SUCCESS) << lowp_get_last_error();
  return poisoned(s);
}
// Grouped K1's outputs only: R row amaxes, [N][K] column amaxes.
Outputs initial_amax(const GroupCase& g) {
  Outputs o;
  o.b[kRowAmax].assign(static_cast<size_t>(g.R()) * 4, kPoison);
  o.b[kColAmax].assign(static_cast<size_t>(g.N() * g.K) * 4, kPoison);
  return o;
}

lowp_quant_config config(const GroupCase& g, const uint64_t* rng) {
  lowp_quant_config c = pt_config(g.rht, g.mask, g.sr, rng, false, g.recipe);
  c.group_row_multiple = g.row_multiple;
  return c;
}

// The calls, on whichever memory space the pointers live in.
lowp_status call_quantize(const GroupCase& g, void* x, const int64_t* rows, const std::array<void*, kNumBufs>& p,
                          const uint64_t* rng, void* ws, size_t ws_bytes) {
  lowp_tensor t{x, g.in, g.R(), g.K};
  lowp_quantized_tensor q = pt_qtensor(g.R(), g.K, g.layout, g.row, g.col, p, g.recipe);
  const lowp_quant_config cfg = config(g, rng);
  return lowp_nvfp4_grouped_quantize(&t, g.N(), rows, &q, &cfg, ws, ws_bytes, nullptr);
}
lowp_status call_amax(const GroupCase& g, void* x, const int64_t* rows, const std::array<void*, kNumBufs>& p, void* ws,
                      size_t ws_bytes) {
  lowp_tensor t{x, g.in, g.R(), g.K};
  const lowp_quant_config cfg = config(g, nullptr);
  return lowp_nvfp4_grouped_amax_per_row(&t, g.recipe.scaling, g.N(), rows,
                                         g.row ? static_cast<float*>(p[kRowAmax]) : nullptr,
                                         g.col ? static_cast<float*>(p[kColAmax]) : nullptr, &cfg, ws, ws_bytes, nullptr);
}

// The CPU backend: host x and member_rows, no workspace.
Outputs run_cpu(const GroupCase& g, const std::vector<uint8_t>& x, Outputs o, bool amax_only) {
  void* hx = host_ptr(const_cast<std::vector<uint8_t>&>(x));
  o.status = amax_only ? call_amax(g, hx, g.rows.data(), host_ptrs(o), nullptr, 0)
                       : call_quantize(g, hx, g.rows.data(), host_ptrs(o), kPtRngState, nullptr, 0);
  o.error = lowp_get_last_error();
  return o;
}

// x, member_rows, the workspace, the RNG state and every output on the device.
struct DeviceGroup {
  DeviceBuffer x, rows, ws, rng;
  DeviceOutputs out;
  DeviceGroup(const GroupCase& g, const std::vector<uint8_t>& hx, const Outputs& init)
      : x(hx.size()), rows(g.rows.size() * 8), ws(workspace_bytes(g.N())), rng(16), out(init) {
    if (!hx.empty()) x.upload(hx.data());
    rows.upload(g.rows.data());
    rng.upload(kPtRngState);
  }
  const int64_t* member_rows(const GroupCase& g) const {
    return g.device_rows ? static_cast<const int64_t*>(rows.get()) : g.rows.data();
  }
  Outputs run(const GroupCase& g, bool amax_only) { return run_with_workspace(g, amax_only, ws); }
  Outputs run_with_workspace(const GroupCase& g, bool amax_only, const DeviceBuffer& w) {
    return device_result(enqueue(g, amax_only, w), out);
  }
  // The call alone, not waited for.
  lowp_status enqueue(const GroupCase& g, bool amax_only, const DeviceBuffer& w) {
    return amax_only ? call_amax(g, x.get(), member_rows(g), out.ptrs(), w.get(), w.bytes())
                     : call_quantize(g, x.get(), member_rows(g), out.ptrs(), static_cast<const uint64_t*>(rng.get()),
                                     w.get(), w.bytes());
  }
  int64_t layout_error() const {
    int64_t bad = -1;
    EXPECT_EQ(lowp_grouped_layout_error(ws.get(), &bad, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    return bad;
  }
};

// GPU == CPU for one group; with device member_rows the (valid) layout must also report 0.
void compare_group(Tally& tally, const GroupCase& g, bool amax_only) {
  const std::vector<uint8_t> x = g.x();
  const Outputs init = amax_only ? initial_amax(g) : initial(g);
  DeviceGroup d(g, x, init);
  const Outputs got = d.run(g, amax_only);
  const std::string what = describe(g) + (amax_only ? " [grouped amax]" : " [grouped quantize]");
  tally.compare(what, got, run_cpu(g, x, init, amax_only));
  if (g.device_rows && got.status == LOWP_SUCCESS) {
    const int64_t bad = d.layout_error();
    if (bad != 0)
      tally.fail(what + ": lowp_grouped_layout_error reports " + std::to_string(bad) + " for a valid layout");
  }
  tally.case_run();
}

// A bad device layout g (rows not summing to R, or breaking a member rule): the call succeeds,
// lowp_grouped_layout_error reports `want`, no output byte is written, and the same workspace
// reports 0 after a valid call (one member of R rows).
void check_bad_layout(Tally& tally, const GroupCase& g, bool amax_only, int64_t want, const char* why) {
  const std::string what = std::string(why) + (amax_only ? " [grouped amax] " : " [grouped quantize] ") + describe(g);
  const std::vector<uint8_t> x = g.x();
  DeviceGroup d(g, x, amax_only ? initial_amax(g) : initial(g));
  const Outputs got = d.run(g, amax_only);
  if (got.status != LOWP_SUCCESS) {
    tally.fail(what + ": " + lowp_status_name(got.status) + " (" + got.error + ")");
    return;
  }
  const int64_t reported = d.layout_error();
  if (reported != want)
    tally.fail(what + ": lowp_grouped_layout_error reports " + std::to_string(reported) + ", want " + std::to_string(want));
  for (int i = 0; i < kNumBufs; ++i) tally.check(untouched(got.b[i].data(), got.b[i].size(), buf_name(i)), what);
  GroupCase ok = g;
  ok.rows = {g.R()}, ok.total_rows = -1, ok.row_multiple = 0;
  DeviceGroup valid(ok, x, amax_only ? initial_amax(ok) : initial(ok));
  const Outputs good = valid.run_with_workspace(ok, amax_only, d.ws);
  if (good.status != LOWP_SUCCESS)
    tally.fail(what + ": valid follow-up call " + lowp_status_name(good.status) + " (" + good.error + ")");
  else if (const int64_t again = d.layout_error(); again != 0)
    tally.fail(what + ": after a valid call on the same workspace the status is " + std::to_string(again));
  tally.case_run();
}

// n members. Columnwise (mult16): multiples of 16 rows; else any count. n >= 1000: tiny members
// (0-3 rows, or 0/16); n >= 200: half empty, most of the rest one 16-row strip; otherwise one in
// five empty. A single member is never empty.
std::vector<int64_t> make_split(int64_t n, bool mult16, Rng& rng) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  for (int64_t& m : rows) {
    if (n >= 1000)
      m = rng.below(3) == 0 ? 0 : mult16 ? 16 : rng.below(4);
    else if (n >= 200)
      m = rng.below(2) == 0 ? 0 : rng.below(4) != 0 ? (mult16 ? 16 : 1 + rng.below(16)) : 16 * (1 + rng.below(12));
    else
      m = rng.below(5) == 0 ? 0 : mult16 ? 16 * (1 + rng.below(10)) : 1 + rng.below(170);
  }
  if (n == 1) rows[0] = mult16 ? 16 * (1 + rng.below(20)) : 1 + rng.below(333);
  return rows;
}

int64_t pick_k(int64_t n, Rng& rng) {
  const int64_t ks[] = {16, 48, 144, 272, 1024};
  return n >= 1000 ? 48 : n >= 200 ? 128 : n >= 64 ? ks[1 + rng.below(3)] : ks[rng.below(5)];
}

// 32 and 33: the largest group whose host rows the kernels take as parameters, and the smallest not.
const int64_t kNs[] = {1, 3, 8, 32, 33, 64, 200, 1000};

void quantizeByteExactAgainstCpu(const PerRowRecipe& r) {
  Tally tally(std::string(r.name) + " nvfp4 grouped quantize gpu==cpu");
  Rng rng(2025);
  int i = 0;
  for (int64_t n : kNs)
    for (lowp_dtype in : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32})
      for (int parts = 1; parts <= 3; ++parts)
        for (int device_rows = 0; device_rows < 2; ++device_rows) {
          const int idx = i++, knobs = (idx * 3 + static_cast<int>(n)) % 8;  // rht, sr, swizzled
          if (quick_mode() && idx % 3 != 0) continue;
          GroupCase g;
          g.recipe = r;
          g.in = in, g.row = parts & 1, g.col = parts & 2, g.device_rows = device_rows;
          g.rht = knobs & 1, g.sr = knobs & 2, g.mask = knobs & 4 ? 0xD7E8u : 0x3C5Au;
          g.layout = knobs & 4 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
          g.K = pick_k(n, rng);
          g.rows = make_split(n, g.col, rng);  // rowwise only: any member rows
          g.values = static_cast<PtValues>(idx % static_cast<int>(PtValues::kCount));
          g.seed = static_cast<uint64_t>(idx);
          compare_group(tally, g, false);
        }
}

void amaxBitExactAgainstCpu(const PerRowRecipe& r) {
  Tally tally(std::string(r.name) + " nvfp4 grouped amax gpu==cpu");
  Rng rng(77);
  int i = 0;
  for (int64_t n : kNs)
    for (lowp_dtype in : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32})
      for (int parts = 1; parts <= 3; ++parts)
        for (int rht = 0; rht < 2; ++rht) {
          const int idx = i++;
          if (quick_mode() && idx % 3 != 0) continue;
          GroupCase g;
          g.recipe = r;
          g.in = in, g.row = parts & 1, g.col = parts & 2, g.rht = rht, g.device_rows = idx % 2;
          g.mask = idx % 4 < 2 ? 0xD7E8u : 0x8001u;
          g.K = pick_k(n, rng);
          // Rows of 40 or 80 bytes: the member-by-member path (token_amax_tile_path_ok), with each
          // choice of outputs (its zeroing of empty members' column amaxes once wrote through a
          // NULL col_amax); it needs host member rows (lowp.h).
          if (idx % 5 == 4) g.K = 20, g.device_rows = false;
          // Column amaxes need 16-row members only with RHT.
          g.rows = make_split(n, g.col && (g.rht || rng.below(2) == 0), rng);
          g.values = static_cast<PtValues>(idx % static_cast<int>(PtValues::kCount));
          g.seed = static_cast<uint64_t>(1000 + idx);
          compare_group(tally, g, true);
        }
}

// Per-token, and row-scaled with and without 4over6.
TEST(Nvfp4PerTokenGroupedGpu, QuantizeByteExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  quantizeByteExactAgainstCpu(kPerToken);
}
TEST(Nvfp4RowScaledGroupedGpu, QuantizeByteExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  for (const PerRowRecipe* r : {&kRowScaled, &kRowScaled4over6, &kRowScaled4over6MseE256}) quantizeByteExactAgainstCpu(*r);
}

TEST(Nvfp4PerTokenGroupedGpu, AmaxBitExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  amaxBitExactAgainstCpu(kPerToken);
}
TEST(Nvfp4RowScaledGroupedGpu, AmaxBitExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  amaxBitExactAgainstCpu(kRowScaled);
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& v, int64_t offset, size_t n) {
  if (offset < 0 || static_cast<size_t>(offset) + n > v.size()) return {};  // out of the buffer: a size mismatch
  return std::vector<uint8_t>(v.begin() + offset, v.begin() + offset + static_cast<int64_t>(n));
}

// Every member's outputs of group g (at the offsets lowp.h documents) == lowp_quantize of that
// member alone, both on the device. SR numbers the blocks of a group member after member (block
// base R_t*K/16) while a tensor alone starts at 0, so with SR only member 0 must match.
void compare_members_with_single(Tally& tally, const GroupCase& g) {
  const std::string what = describe(g);
  const std::vector<uint8_t> x = g.x();
  DeviceGroup d(g, x, initial(g));
  const Outputs grp = d.run(g, false);
  if (grp.status != LOWP_SUCCESS) {
    tally.fail(what + ": grouped " + lowp_status_name(grp.status) + " (" + grp.error + ")");
    return;
  }
  const size_t es = dtype_size(g.in), k = static_cast<size_t>(g.K);
  int64_t row0 = 0, row_s = 0, col_s = 0;
  for (int64_t t = 0; t < g.N(); ++t) {
    const int64_t m = g.rows[t];
    const std::string mwhat = what + " member " + std::to_string(t) + " (" + std::to_string(m) + " rows)";
    if (m == 0) {  // an empty member's column amaxes are written 0
      if (g.col)
        tally.check(bytes_equal(slice(grp.b[kColAmax], t * g.K * 4, k * 4), std::vector<uint8_t>(k * 4, 0), 1,
                                g.K, "empty member columnwise amax", 4),
                    mwhat);
      continue;
    }
    if (!g.sr || t == 0) {
      DeviceOutputs a(poisoned(pt_sizes(m, g.K)));
      lowp_tensor xt{static_cast<uint8_t*>(d.x.get()) + static_cast<size_t>(row0) * k * es, g.in, m, g.K};
      lowp_quantized_tensor q = pt_qtensor(m, g.K, g.layout, g.row, g.col, a.ptrs(), g.recipe);
      const lowp_quant_config cfg = config(g, static_cast<const uint64_t*>(d.rng.get()));
      const Outputs alone = device_result(lowp_quantize(&xt, &q, &cfg, nullptr), a);
      Outputs member = alone;  // parts not requested: not compared
      member.status = grp.status;
      const size_t codes = static_cast<size_t>(m) * k / 2;
      if (g.row) {
        member.b[kRowCodes] = slice(grp.b[kRowCodes], row0 * g.K / 2, codes);
        member.b[kRowScales] = slice(grp.b[kRowScales], row_s, alone.b[kRowScales].size());
        member.b[kRowAmax] = slice(grp.b[kRowAmax], row0 * 4, static_cast<size_t>(m) * 4);
      }
      if (g.col) {
        member.b[kColCodes] = slice(grp.b[kColCodes], row0 * g.K / 2, codes);
        member.b[kColScales] = slice(grp.b[kColScales], col_s, alone.b[kColScales].size());
        member.b[kColAmax] = slice(grp.b[kColAmax], t * g.K * 4, k * 4);
      }
      tally.compare(mwhat, member, alone, "CUDA grouped", "CUDA alone");
      tally.case_run();
    }
    row0 += m;
    row_s += static_cast<int64_t>(pt_sizes(m, g.K).scale_inv_bytes[0]);
    if (g.col) col_s += static_cast<int64_t>(pt_sizes(m, g.K).scale_inv_bytes[1]);
  }
}

// compare_members_with_single over fuzzed groups; then groups whose members' rows are multiples
// of 32, 64 or 128 that the call is told about (cfg->group_row_multiple: CUDA launches fewer
// blocks, with 128 none idle).
void everyMemberEqualsSingleTensorOnDevice(const PerRowRecipe& r) {
  Tally tally(std::string(r.name) + " nvfp4 grouped member == single tensor (cuda)");
  Rng rng(4242);
  int i = 0;
  for (int64_t n : {3, 8, 64, 200})
    for (int parts = 1; parts <= 3; ++parts)
      for (int variant = 0; variant < 2; ++variant) {
        if (quick_mode() && (n > 8 || variant == 1)) continue;
        GroupCase g;
        g.recipe = r;
        g.in = i % 2 ? LOWP_DTYPE_FLOAT32 : LOWP_DTYPE_BFLOAT16;
        g.row = parts & 1, g.col = parts & 2, g.rht = variant == 0, g.device_rows = i % 3 != 0;
        g.sr = n == 8 && variant == 1;  // member 0 only
        g.layout = (i / 2) % 2 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        g.K = pick_k(n, rng);
        g.rows = make_split(n, g.col, rng);
        g.values = static_cast<PtValues>(i % static_cast<int>(PtValues::kCount));
        g.seed = static_cast<uint64_t>(2000 + i++);
        compare_members_with_single(tally, g);
      }
  for (int multiple : {32, 64, 128})
    for (int64_t n : {1, 3, 8, 64}) {
      if (quick_mode() && n == 64) continue;
      GroupCase g;
      g.recipe = r;
      g.in = i % 2 ? LOWP_DTYPE_FLOAT32 : LOWP_DTYPE_BFLOAT16;
      g.rht = i % 3 == 0, g.device_rows = i % 4 != 0, g.row_multiple = multiple;
      g.layout = i % 2 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
      g.K = pick_k(n, rng);
      g.rows = make_split(n, true, rng);
      for (int64_t& m : g.rows) m *= multiple / 16;
      g.values = static_cast<PtValues>(i % static_cast<int>(PtValues::kCount));
      g.seed = static_cast<uint64_t>(2000 + i++);
      compare_members_with_single(tally, g);
    }
}

TEST(Nvfp4PerTokenGroupedGpu, EveryMemberEqualsSingleTensorOnDevice) {
  LOWP_REQUIRE_GPU();
  everyMemberEqualsSingleTensorOnDevice(kPerToken);
}
TEST(Nvfp4RowScaledGroupedGpu, EveryMemberEqualsSingleTensorOnDevice) {
  LOWP_REQUIRE_GPU();
  for (const PerRowRecipe* r : {&kRowScaled, &kRowScaled4over6MseE256}) everyMemberEqualsSingleTensorOnDevice(*r);
}

// The fused first pass over groups (K1 with the rowwise encode; nvfp4_launch.h, token_strips_ok:
// K = 2048, 8192 rows in all or more, 16-bit x, RN, no RHT, compact scales, both copies, up to 32
// members): equal and uneven splits, empty members first, inside and last, 16-row members (their
// scales' padding rows), 32 members (the most it takes), and neighbours that take K1 then K2 (33
// members, 8176 rows); member rows on the host and on the device; then bad device layouts.
TEST(Nvfp4PerTokenGroupedGpu, FusedRowStripsMatchCpu) {
  LOWP_REQUIRE_GPU();
  Tally tally("nvfp4 grouped fused row strips gpu==cpu");
  std::vector<int64_t> tiny(32, 16);
  tiny[17] = 8192 - 31 * 16;
  const std::vector<int64_t> splits[] = {std::vector<int64_t>(8, 1024),
                                         {2080, 0, 32, 4000, 288, 2016, 0, 64},
                                         {0, 8192, 0},
                                         tiny,
                                         std::vector<int64_t>(32, 256),
                                         std::vector<int64_t>(33, 256),
                                         {4096, 4080}};
  int i = 0;
  for (const std::vector<int64_t>& rows : splits)
    for (int device_rows = 0; device_rows < 2; ++device_rows) {
      const int idx = i++;
      if (quick_mode() && idx % 3 != 0) continue;
      GroupCase g;
      g.in = idx % 3 == 2 ? LOWP_DTYPE_FLOAT16 : LOWP_DTYPE_BFLOAT16;
      g.K = 2048, g.rows = rows, g.device_rows = device_rows;
      g.values = static_cast<PtValues>(idx % static_cast<int>(PtValues::kCount));
      g.seed = static_cast<uint64_t>(7000 + idx);
      compare_group(tally, g, false);
    }
  struct Bad {
    std::vector<int64_t> rows;
    int64_t want;
    const char* why;
  };
  const Bad bad[] = {{{4096, 2048, 2040, 8}, 3, "fused pass: rows % 16 != 0"},
                     {{4096, 2048}, 2, "fused pass: members end short of R"},
                     {{4096, 8192}, 2, "fused pass: members run past R"}};
  for (const Bad& b : bad) {
    GroupCase g;
    g.K = 2048, g.rows = b.rows, g.total_rows = 8192, g.device_rows = true;
    check_bad_layout(tally, g, false, b.want, b.why);
  }
}

// The split with the most 128-row tiles for its rows (7 members of 144 rows, one of 16: 15 tiles
// for 1024 rows), the bound a launch for device rows is sized by; host rows launch the 15 exactly.
TEST(Nvfp4PerTokenGroupedGpu, WorstSplitMatchesCpu) {
  LOWP_REQUIRE_GPU();
  Tally tally("nvfp4 grouped worst split gpu==cpu");
  int i = 0;
  for (lowp_dtype in : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT32})
    for (int knobs = 0; knobs < 4; ++knobs)
      for (bool amax_only : {false, true}) {
        GroupCase g;
        g.in = in, g.row = true, g.col = true, g.device_rows = knobs != 1;
        g.rht = knobs & 1, g.sr = knobs & 2, g.mask = 0xD7E8u;
        g.layout = knobs >= 2 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        g.K = 272;
        g.rows = {144, 144, 144, 144, 144, 144, 144, 16};
        g.values = static_cast<PtValues>(i % static_cast<int>(PtValues::kCount));
        g.seed = static_cast<uint64_t>(3000 + i++);
        compare_group(tally, g, amax_only);
      }
}

// Device rows, so the launches are sized for the worst split and carry surplus blocks: splits with
// more live row tiles than ceil(R / 128) (the first five), equal 128-row splits (the most surplus
// for their rows), one of several waves (R = 4096), and declared row multiples. Any other way of
// sizing such launches (docs/perf/grouped.md: the folded launch) must pass these too.
TEST(Nvfp4PerTokenGroupedGpu, DeviceRowsSurplusLaunchMatchesCpu) {
  LOWP_REQUIRE_GPU();
  Tally tally("nvfp4 grouped device rows, surplus launch gpu==cpu");
  struct Split {
    std::vector<int64_t> rows;
    int multiple;
  };
  const Split splits[] = {{{16, 240}, 0},
                          {{208, 48, 128, 128, 256, 256}, 0},
                          {{656, 400, 512, 528, 496, 512, 480, 512}, 0},
                          {{192, 64, 320, 448}, 64},
                          {{96, 32, 160, 224}, 32},
                          {std::vector<int64_t>(8, 128), 0},
                          {std::vector<int64_t>(8, 128), 32}};
  int i = 0;
  for (const Split& sp : splits)
    for (int knobs = 0; knobs < 4; ++knobs)
      for (bool amax_only : {false, true}) {
        GroupCase g;
        g.in = i % 3 == 2 ? LOWP_DTYPE_FLOAT32 : LOWP_DTYPE_BFLOAT16;
        g.row = knobs != 3, g.col = knobs != 2, g.device_rows = true, g.row_multiple = sp.multiple;
        g.rht = knobs & 1, g.sr = (i / 2) % 2, g.mask = 0xD7E8u;
        g.layout = i % 4 >= 2 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        g.K = i % 2 ? 272 : 1024;
        g.rows = sp.rows;
        g.values = static_cast<PtValues>(i % static_cast<int>(PtValues::kCount));
        g.seed = static_cast<uint64_t>(3500 + i++);
        compare_group(tally, g, amax_only);
      }
}

// Two calls with device rows enqueued back to back on one stream with one workspace (no sync
// between): the second call's prep, launched early, rewrites the member map that the first
// call's kernels read, so it must not write before they are done. Each call must equal the CPU
// on its own x; equal, uneven and empty-member splits, K one tile or many.
TEST(Nvfp4PerTokenGroupedGpu, BackToBackCallsOnOneWorkspaceMatchCpu) {
  LOWP_REQUIRE_GPU();
  Tally tally("nvfp4 grouped back-to-back calls, one workspace gpu==cpu");
  const std::vector<int64_t> splits[] = {std::vector<int64_t>(8, 128),
                                         {16, 240, 16, 240, 16, 240, 16, 240},
                                         {1008, 16, 1024, 2048, 16, 16, 16, 2048},
                                         {0, 4096, 16, 0, 112, 16, 2048, 144}};
  uint64_t seed = 3800;
  for (int i = 0; i < 4; ++i)
    for (int knobs = 0; knobs < 4; ++knobs) {
      GroupCase a, b;
      a.rows = splits[i], b.rows = splits[(i + 1) % 4];
      for (GroupCase* g : {&a, &b}) {
        g->device_rows = true, g->K = (i + knobs) % 2 ? 2048 : 272, g->rht = knobs & 1, g->sr = knobs >> 1;
        g->layout = knobs == 2 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        g->values = static_cast<PtValues>(seed % static_cast<int>(PtValues::kCount));
        g->seed = seed++;
      }
      const std::vector<uint8_t> xa = a.x(), xb = b.x();
      DeviceGroup da(a, xa, initial(a)), db(b, xb, initial(b));
      const lowp_status sa = da.enqueue(a, false, da.ws), sb = db.enqueue(b, false, da.ws);  // b on a's workspace
      tally.compare(describe(a) + " (first call)", device_result(sa, da.out), run_cpu(a, xa, initial(a), false));
      tally.compare(describe(b) + " (second call)", device_result(sb, db.out), run_cpu(b, xb, initial(b), false));
      tally.case_run();
    }
}

// A device-side layout that breaks the rules: the call succeeds (it cannot know), the layout
// status names the first bad member (index + 1; members short of R name the last one), and no
// output byte is written. The same workspace then reports 0 after a valid call.
TEST(Nvfp4PerTokenGroupedGpu, BadDeviceLayoutIsReportedAndWritesNothing) {
  LOWP_REQUIRE_GPU();
  Tally tally("nvfp4 grouped bad device layout");
  struct Bad {
    std::vector<int64_t> rows;
    int64_t R;
    bool col;
    int64_t want;
    const char* why;
    int multiple = 0;  // cfg->group_row_multiple
  };
  std::vector<int64_t> many(1000, 16);
  many[777] = 8, many[900] = 24;  // two bad members with the columnwise copy: the first is named
  std::vector<Bad> cases = {{{32, 16, -16, 64, 32}, 128, true, 3, "negative member"},
                            {{32, 16, -16, 64, 32}, 128, false, 3, "negative member, rowwise only"},
                            {{32, 24, 8, 64}, 128, true, 2, "rows % 16 != 0 with the columnwise copy"},
                            {{64, 48, 32, 16}, 128, true, 3, "members run past R"},
                            {{1, 2, 200, 3}, 128, false, 3, "members run past R, rowwise only"},
                            {{32, 32, 32}, 128, true, 3, "members end short of R"},
                            {{32, 64, 0}, 128, false, 3, "members end short of R, last one empty"},
                            {many, 16 * 1000, true, 778, "1000 members, two with rows % 16 != 0"},
                            {{128, 64, 128}, 320, true, 2, "rows % 128 != 0 with group_row_multiple 128", 128},
                            {{64, 32, 32}, 128, false, 2, "rows % 64 != 0, rowwise only, group_row_multiple 64", 64}};
  for (const Bad& b : cases)
    for (int call = 0; call < 2; ++call) {  // 0: grouped quantize, 1: grouped amax
      GroupCase g;
      g.rows = b.rows, g.total_rows = b.R, g.col = b.col, g.device_rows = true, g.K = 32, g.row_multiple = b.multiple;
      g.rht = true;  // grouped amax: the 16-row rule holds for column amaxes with RHT
      g.sr = call == 0;
      check_bad_layout(tally, g, call == 1, b.want, b.why);
    }
  // Host member_rows with the same rules are rejected before anything is written.
  GroupCase g;
  g.rows = {32, 24, 8, 64}, g.K = 32;
  const std::vector<uint8_t> x = g.x();
  DeviceGroup d(g, x, initial(g));
  const Outputs got = d.run(g, false);
  EXPECT_EQ(got.status, LOWP_ERROR_INVALID_ARGUMENT)
      << "host member_rows with a member of 24 rows and the columnwise copy";
  for (int i = 0; i < kNumBufs; ++i) EXPECT_TRUE(untouched(got.b[i].data(), got.b[i].size(), buf_name(i)));
}

}  // namespace
}  // namespace lowp_test
