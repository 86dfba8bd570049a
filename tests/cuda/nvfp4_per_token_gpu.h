// Shared helpers of the per-row NVFP4 GPU tests (per-token and row-scaled, with 4over6;
// nvfp4_per_token_gpu_test.cpp: single tensor; nvfp4_per_token_grouped_gpu_test.cpp: grouped):
// the recipe of a case, the six output buffers of a call on the host and on the device,
// adversarial per-token values, and a tally that compares buffers byte for byte and reports the
// first mismatches in full.
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"
#include "device_buffer.h"

namespace lowp_test {

constexpr uint64_t kPtRngState[2] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull};

// The output buffers of a per-token call (single tensor or grouped), in this order.
enum Buf { kRowCodes, kColCodes, kRowScales, kColScales, kRowAmax, kColAmax, kNumBufs };
inline const char* buf_name(int b) {
  static const char* names[kNumBufs] = {"rowwise codes",     "columnwise codes", "rowwise scales",
                                        "columnwise scales", "rowwise amax",     "columnwise amax"};
  return names[b];
}
inline size_t buf_elem(int b) { return b == kRowAmax || b == kColAmax ? 4 : 1; }

// Host copies of every output buffer (amaxes as raw bytes) and the call's result.
struct Outputs {
  std::array<std::vector<uint8_t>, kNumBufs> b;
  lowp_status status = LOWP_SUCCESS;
  std::string error;
};

// Every buffer at its size from `s` (index 0 rowwise, 1 columnwise), filled with kPoison.
inline Outputs poisoned(const lowp_quantized_sizes& s) {
  Outputs o;
  const size_t bytes[kNumBufs] = {s.data_bytes[0],      s.data_bytes[1], s.scale_inv_bytes[0],
                                  s.scale_inv_bytes[1], s.amax_bytes[0], s.amax_bytes[1]};
  for (int i = 0; i < kNumBufs; ++i) o.b[i].assign(bytes[i], kPoison);
  return o;
}

inline lowp_quantized_sizes pt_sizes(int64_t rows, int64_t cols, lowp_scaling scaling = LOWP_SCALING_NVFP4_PER_TOKEN) {
  lowp_quantized_sizes s{};
  EXPECT_EQ(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, scaling, rows, cols, &s), LOWP_SUCCESS)
      << lowp_get_last_error();
  return s;
}

inline void put_floats(std::vector<uint8_t>& dst, const std::vector<float>& v) {
  dst.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(dst.data(), v.data(), dst.size());
}

// A non-NULL host pointer for a buffer that may be empty (R = 0 groups, absent columnwise copy).
inline void* host_ptr(std::vector<uint8_t>& v) {
  alignas(16) static uint8_t dummy[16];
  return v.empty() ? static_cast<void*>(dummy) : v.data();
}
inline std::array<void*, kNumBufs> host_ptrs(Outputs& o) {
  std::array<void*, kNumBufs> p;
  for (int i = 0; i < kNumBufs; ++i) p[i] = host_ptr(o.b[i]);
  return p;
}

// The device copies of every output buffer, uploaded from `init` (poison, or given amaxes).
struct DeviceOutputs {
  std::array<std::unique_ptr<DeviceBuffer>, kNumBufs> d;
  explicit DeviceOutputs(const Outputs& init) {
    for (int i = 0; i < kNumBufs; ++i) {
      d[i] = std::make_unique<DeviceBuffer>(init.b[i].size());
      if (!init.b[i].empty()) d[i]->upload(init.b[i].data());
    }
  }
  std::array<void*, kNumBufs> ptrs() const {
    std::array<void*, kNumBufs> p;
    for (int i = 0; i < kNumBufs; ++i) p[i] = d[i]->get();
    return p;
  }
  float* f32(int i) const { return d[i]->f32(); }
  Outputs download() const {
    Outputs o;
    for (int i = 0; i < kNumBufs; ++i) o.b[i] = d[i]->download();
    return o;
  }
};

// Which per-row recipe a case runs: per-token, or row-scaled, optionally with 4over6 (its error
// measure and E; 4over6 takes no RHT and no SR: configs drop them).
struct PerRowRecipe {
  const char* name = "per-token";
  lowp_scaling scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
  bool four_over_six = false, mse = false, e256 = false;

  void apply(lowp_quant_config& c) const {
    c.four_over_six = four_over_six;
    c.four_over_six_error = mse ? LOWP_FOUR_OVER_SIX_MSE : LOWP_FOUR_OVER_SIX_MAE;
    c.four_over_six_scale_max = e256 ? 256.0f : 448.0f;
    if (four_over_six) c.rht = c.stochastic_rounding = 0, c.rng_state = nullptr;
  }
  // The 6E lowp_quantize records (what a dequantize of its copies reads).
  float outer_max() const { return four_over_six && e256 ? 1536.0f : 2688.0f; }
};
inline const PerRowRecipe kPerToken{};
inline const PerRowRecipe kRowScaled{"row-scaled", LOWP_SCALING_NVFP4_ROW_SCALED};
inline const PerRowRecipe kRowScaled4over6{"row-scaled 4over6", LOWP_SCALING_NVFP4_ROW_SCALED, true};
inline const PerRowRecipe kRowScaled4over6MseE256{"row-scaled 4over6 MSE E=256", LOWP_SCALING_NVFP4_ROW_SCALED, true,
                                                  true, true};

// A per-row quantized tensor over the six buffers, producing the requested parts. The parts
// not requested still point at their (poisoned) buffers: the call must leave them alone.
inline lowp_quantized_tensor pt_qtensor(int64_t rows, int64_t cols, lowp_scale_layout layout, bool row, bool col,
                                        const std::array<void*, kNumBufs>& p, const PerRowRecipe& r = kPerToken) {
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E2M1;
  q.scaling = r.scaling;
  q.nvfp4_outer_max = r.outer_max();
  q.scale_layout = layout;
  q.rows = rows;
  q.cols = cols;
  q.rowwise = {row ? p[kRowCodes] : nullptr, p[kRowScales], static_cast<float*>(p[kRowAmax])};
  q.columnwise = {col ? p[kColCodes] : nullptr, p[kColScales], static_cast<float*>(p[kColAmax])};
  return q;
}

inline lowp_quant_config pt_config(bool rht, uint32_t mask, bool sr, const uint64_t* rng, bool amax_given,
                                   const PerRowRecipe& r = kPerToken) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  cfg.rht = rht;
  cfg.rht_sign_mask = mask;
  cfg.stochastic_rounding = sr;
  cfg.rng_state = sr ? rng : nullptr;
  cfg.amax_given = amax_given;
  r.apply(cfg);
  return cfg;
}

// The result of an enqueued device call: waits, downloads every buffer, records the status.
inline Outputs device_result(lowp_status st, const DeviceOutputs& out) {
  const std::string err = lowp_get_last_error();
  const cudaError_t e = cudaDeviceSynchronize();
  Outputs o = out.download();
  o.status = e == cudaSuccess ? st : LOWP_ERROR_CUDA;
  o.error = e == cudaSuccess ? err : cudaGetErrorString(e);
  return o;
}

// Counts cases and mismatching buffers (a failed call counts as one); reports the first
// kMaxReports failures in full (each with its case), then only counts, so a broken kernel does not
// flood the log. The destructor prints "N cases, M mismatching buffers" and expects M == 0.
class Tally {
 public:
  static constexpr int kMaxReports = 20;
  explicit Tally(std::string name) : name_(std::move(name)) {}
  void case_run() { ++cases_; }
  void fail(const std::string& msg) {
    if (++bad_ <= kMaxReports) ADD_FAILURE() << msg;
  }
  void check(const ::testing::AssertionResult& r, const std::string& what) {
    if (!r) fail(what + ": " + r.message());
  }
  // Both calls succeeded and every buffer of got equals want's, byte for byte.
  void compare(const std::string& what, const Outputs& got, const Outputs& want, const char* got_name = "CUDA",
               const char* want_name = "CPU") {
    if (got.status != LOWP_SUCCESS || want.status != LOWP_SUCCESS) {
      fail(what + ": " + got_name + " " + lowp_status_name(got.status) + " (" + got.error + "), " + want_name + " " +
           lowp_status_name(want.status) + " (" + want.error + ")");
      return;
    }
    for (int i = 0; i < kNumBufs; ++i) {
      const size_t e = buf_elem(i);
      check(bytes_equal(got.b[i], want.b[i], 1, static_cast<int64_t>(want.b[i].size() / e), buf_name(i), e), what);
    }
  }
  ~Tally() {
    std::printf("[%s] %d cases, %d mismatching buffers\n", name_.c_str(), cases_, bad_);
    EXPECT_EQ(bad_, 0) << name_ << ": " << bad_ << " mismatching buffers in " << cases_ << " cases (first "
                       << kMaxReports << " reported above)";
  }

 private:
  std::string name_;
  int cases_ = 0, bad_ = 0;
};

// Value sets for per-token tests. Every set then gets all-zero rows (alternately -0) and all-zero
// columns, so rows and columns with amax 0 occur in both orientations.
enum class PtValues { kMixed, kOutlierPerRow, kTies, kSpecials, kDenormals, kHugeRange, kTiny, kSubnormalScales, kCount };
inline const char* values_name(PtValues v) {
  static const char* names[] = {"mixed",      "outlier_per_row", "ties", "specials", "denormals",
                                "huge_range", "tiny",            "subnormal_scales"};
  return names[static_cast<int>(v)];
}

inline std::vector<uint8_t> pt_values(lowp_dtype t, int64_t rows, int64_t cols, PtValues v, uint64_t seed) {
  const size_t es = dtype_size(t), n = static_cast<size_t>(rows * cols);
  std::vector<uint8_t> x;
  Rng rng(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(v));
  auto from_floats = [&](float scale, bool ties) {
    std::vector<float> f(n);
    for (float& e : f)
      e = ties ? (static_cast<float>(rng.below(65)) - 32.0f) * 0.25f : static_cast<float>(rng.gaussian()) * scale;
    return encode(f, t);
  };
  // One value per row (a random column, the sign alternating by row) replaced by an outlier.
  // Without subnormal_scales the row's other blocks are negligible next to it (scale 0); with
  // them the outliers are 3e4-5e5 times the other values, whose blocks (and those of the
  // outliers' columns) then take UE4M3 subnormal scales: values past 6 before the E2M1 clamp.
  auto with_row_outliers = [&](bool subnormal_scales) {
    const bool fp16 = t == LOWP_DTYPE_FLOAT16;
    std::vector<uint8_t> o = from_floats(subnormal_scales && fp16 ? 0.5f : 1.0f, false);
    const float pool[] = {3e4f, 6e4f, 1.2e5f, 2.5e5f, 4.5e5f};
    for (int64_t r = 0; r < rows; ++r) {
      const float huge = !subnormal_scales ? (fp16 ? 60000.0f : 1e30f) : pool[rng.below(fp16 ? 2 : 5)];
      const auto e = encode({(r & 1) ? -huge : huge}, t);
      std::memcpy(&o[static_cast<size_t>(r * cols + static_cast<int64_t>(rng.below(static_cast<uint32_t>(cols)))) * es],
                  e.data(), es);
    }
    return o;
  };
  switch (v) {
    case PtValues::kMixed: x = fuzz_tensor(t, rows, cols, Fill::kMixed, seed); break;
    case PtValues::kOutlierPerRow: x = with_row_outliers(false); break;
    case PtValues::kTies: x = from_floats(1.0f, true); break;
    case PtValues::kSpecials: x = fuzz_tensor(t, rows, cols, Fill::kSpecials, seed); break;
    case PtValues::kDenormals: x = fuzz_tensor(t, rows, cols, Fill::kDenormals, seed); break;
    case PtValues::kHugeRange: x = fuzz_tensor(t, rows, cols, Fill::kHugeRange, seed); break;
    // Near the 1e-12 floor of the per-token S_enc (fp16: near its subnormals).
    case PtValues::kTiny: x = from_floats(t == LOWP_DTYPE_FLOAT16 ? 1e-6f : 1e-13f, false); break;
    case PtValues::kSubnormalScales: x = with_row_outliers(true); break;
    case PtValues::kCount: ADD_FAILURE() << "pt_values: kCount is not a value set"; return {};
  }
  auto zero = [&](int64_t r, int64_t c, bool negative) {
    uint8_t* p = &x[static_cast<size_t>(r * cols + c) * es];
    std::memset(p, 0, es);
    if (negative) p[es - 1] = 0x80;  // little-endian: the sign bit is the top bit of the last byte
  };
  const int64_t zr = static_cast<int64_t>(seed % 9), zc = static_cast<int64_t>(seed % 11);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (r % 9 == zr || c % 11 == zc) zero(r, c, (r % 9 == zr) && (r & 1));
  return x;
}

}  // namespace lowp_test
