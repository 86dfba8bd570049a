// CUDA backend == CPU backend, byte for byte, for the NVFP4 per-tensor recipe: every knob
// (RHT and its sign mask, SR, 2D, estimation, given amax, 4over6 with its error and E, scale
// layout, orientation), input
// dtype, fuzzed shapes and values, misaligned pointers; plus dequantize, the standalone swizzle,
// the RNG advance and CUDA-graph replay.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fuzz_values.h"
#include "common/wide_range.h"
#include "device_buffer.h"

namespace lowp_test {
namespace {

constexpr uint64_t kRngState[2] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull};

struct Knobs {
  bool rht = false, sr = false, block_2d = false, estimation = false, amax_given = false;
  lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT;
  uint32_t sign_mask = 0xD7E8u;
  bool four_over_six = false, mse = false, e256 = false;
};

struct Case {
  lowp_dtype in;
  int64_t rows, cols;
  bool row, col;
  Knobs k;
  size_t misalign;  // bytes added to x (misaligned x takes the per-block kernels)
  size_t codes_misalign = 0;  // bytes added to both code buffers (4: not 8-byte aligned)
};

int64_t scale_bytes(int64_t rows, int64_t blocks) { return (rows + 127) / 128 * 128 * ((blocks + 3) / 4 * 4); }

// Every output of one call.
struct Outputs {
  std::vector<uint8_t> row, col, row_s, col_s;
  float row_amax = 0, col_amax = 0;
  lowp_status status = LOWP_SUCCESS;
  std::string error;
};

// Given amaxes (amax_given): distinct for the two copies so a mix-up shows.
constexpr float kGivenRow = 3.25f, kGivenCol = 7.5f;

lowp_quant_config config(const Case& c, const uint64_t* rng) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  cfg.rht = c.k.rht;
  cfg.rht_sign_mask = c.k.sign_mask;
  cfg.stochastic_rounding = c.k.sr;
  cfg.rng_state = c.k.sr ? rng : nullptr;
  cfg.block_2d = c.k.block_2d;
  cfg.amax_estimation = c.k.estimation;
  cfg.amax_estimation_factor = 2.0f;
  cfg.amax_given = c.k.amax_given;
  cfg.four_over_six = c.k.four_over_six;
  cfg.four_over_six_error = c.k.mse ? LOWP_FOUR_OVER_SIX_MSE : LOWP_FOUR_OVER_SIX_MAE;
  cfg.four_over_six_scale_max = c.k.e256 ? 256.0f : 448.0f;
  return cfg;
}

lowp_quantized_tensor qtensor(const Case& c, void* row, void* row_s, float* row_amax, void* col, void* col_s,
                              float* col_amax) {
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E2M1;
  q.scaling = LOWP_SCALING_NVFP4_PER_TENSOR;
  q.scale_layout = c.k.layout;
  q.rows = c.rows;
  q.cols = c.cols;
  q.rowwise = {c.row ? row : nullptr, row_s, row_amax};
  q.columnwise = {c.col ? col : nullptr, col_s, col_amax};
  q.nvfp4_outer_max = c.k.four_over_six && c.k.e256 ? 1536.0f : 2688.0f;  // as lowp_quantize records it
  return q;
}

Outputs run_cpu(const Case& c, const std::vector<uint8_t>& x) {
  Outputs o;
  const size_t codes = static_cast<size_t>(c.rows * c.cols / 2);
  o.row.assign(codes, kPoison);
  o.col.assign(codes, kPoison);
  o.row_s.assign(scale_bytes(c.rows, c.cols / 16), kPoison);
  o.col_s.assign(scale_bytes(c.cols, c.rows / 16), kPoison);
  o.row_amax = kGivenRow;
  o.col_amax = kGivenCol;
  lowp_tensor t{const_cast<uint8_t*>(x.data()), c.in, c.rows, c.cols};
  lowp_quantized_tensor q = qtensor(c, o.row.data(), o.row_s.data(), &o.row_amax, o.col.data(), o.col_s.data(), &o.col_amax);
  const lowp_quant_config cfg = config(c, kRngState);
  o.status = lowp_quantize(&t, &q, &cfg, nullptr);
  o.error = lowp_get_last_error();
  return o;
}

// The device buffers of one call (allocated poisoned).
struct DeviceCall {
  DeviceBuffer x, row, col, row_s, col_s, row_amax, col_amax, rng;
  DeviceCall(const Case& c, const std::vector<uint8_t>& hx)
      : x(hx.size(), c.misalign), row(c.rows * c.cols / 2, c.codes_misalign), col(c.rows * c.cols / 2, c.codes_misalign),
        row_s(scale_bytes(c.rows, c.cols / 16)), col_s(scale_bytes(c.cols, c.rows / 16)), row_amax(4),
        col_amax(4), rng(16) {
    x.upload(hx.data());
    row_amax.upload(&kGivenRow);
    col_amax.upload(&kGivenCol);
    rng.upload(kRngState);
  }
  lowp_status call(const Case& c, cudaStream_t stream) {
    lowp_tensor t{x.get(), c.in, c.rows, c.cols};
    lowp_quantized_tensor q = qtensor(c, row.get(), row_s.get(), row_amax.f32(), col.get(), col_s.get(), col_amax.f32());
    const lowp_quant_config cfg = config(c, static_cast<const uint64_t*>(rng.get()));
    return lowp_quantize(&t, &q, &cfg, stream);
  }
  Outputs download(const Case& c) const {
    Outputs o;
    o.row = row.download();
    o.col = col.download();
    o.row_s = row_s.download();
    o.col_s = col_s.download();
    cudaMemcpy(&o.row_amax, row_amax.get(), 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(&o.col_amax, col_amax.get(), 4, cudaMemcpyDeviceToHost);
    return o;
  }
};

Outputs run_gpu(const Case& c, const std::vector<uint8_t>& x) {
  DeviceCall d(c, x);
  const lowp_status st = d.call(c, nullptr);
  const std::string err = lowp_get_last_error();
  const cudaError_t e = cudaDeviceSynchronize();
  Outputs o = d.download(c);
  o.status = e == cudaSuccess ? st : LOWP_ERROR_CUDA;
  o.error = e == cudaSuccess ? err : cudaGetErrorString(e);
  return o;
}

std::string describe(const Case& c) {
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "in=%d %lldx%lld row=%d col=%d rht=%d sr=%d 2d=%d est=%d given=%d swz=%d mask=0x%x 4over6=%d mse=%d "
                "e256=%d misalign=%zu codes+%zu",
                c.in, static_cast<long long>(c.rows), static_cast<long long>(c.cols), c.row, c.col, c.k.rht, c.k.sr,
                c.k.block_2d, c.k.estimation, c.k.amax_given, c.k.layout == LOWP_SCALE_LAYOUT_SWIZZLED, c.k.sign_mask,
                c.k.four_over_six, c.k.mse, c.k.e256, c.misalign, c.codes_misalign);
  return buf;
}

// Number of mismatching buffers (0 = byte-exact).
int compare_outputs(const Case& c, const Outputs& g, const Outputs& w) {
  const std::string what = describe(c);
  EXPECT_EQ(w.status, LOWP_SUCCESS) << what << ": " << w.error;
  EXPECT_EQ(g.status, LOWP_SUCCESS) << what << ": " << g.error;
  int bad = 0;
  auto check = [&](::testing::AssertionResult r) {
    if (!r) ++bad;
    EXPECT_TRUE(r) << what;
  };
  const int64_t half = c.rows * c.cols / 2;
  if (c.row) {
    check(bytes_equal(g.row, w.row, 1, half, "rowwise codes"));
    check(bytes_equal(g.row_s, w.row_s, 1, static_cast<int64_t>(w.row_s.size()), "rowwise scales"));
    check(float_bits_equal(&g.row_amax, &w.row_amax, 1, "rowwise amax"));
  }
  if (c.col) {
    check(bytes_equal(g.col, w.col, 1, half, "columnwise codes"));
    check(bytes_equal(g.col_s, w.col_s, 1, static_cast<int64_t>(w.col_s.size()), "columnwise scales"));
    check(float_bits_equal(&g.col_amax, &w.col_amax, 1, "columnwise amax"));
  }
  return bad;
}

int compare(const Case& c, const std::vector<uint8_t>& x) { return compare_outputs(c, run_gpu(c, x), run_cpu(c, x)); }

// Values k/4 for small integers k: many products land exactly on E2M1 ties.
std::vector<uint8_t> tie_tensor(lowp_dtype t, int64_t rows, int64_t cols, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (float& f : v) f = (static_cast<float>(rng.below(65)) - 32.0f) * 0.25f;
  return encode(v, t);
}

struct Shape {
  int64_t rows, cols;
};
// Partial tiles, single blocks, multiples of 128 and not, M % 32 != 0.
const Shape kShapes[] = {{16, 16}, {16, 32}, {32, 48}, {48, 128}, {128, 128}, {112, 272}, {144, 80}, {256, 384}, {400, 176}};
const Fill kFills[] = {Fill::kGaussian, Fill::kHugeRange, Fill::kDenormals, Fill::kAllZero, Fill::kSignedZeros, Fill::kSpecials};
const lowp_dtype kInputs[] = {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32};

// The knob combinations the API accepts (2D excludes RHT and SR).
std::vector<Knobs> all_knobs() {
  std::vector<Knobs> out;
  for (int rht = 0; rht < 2; ++rht)
    for (int sr = 0; sr < 2; ++sr)
      for (int est = 0; est < 2; ++est)
        for (int given = 0; given < 2; ++given)
          for (int swz = 0; swz < 2; ++swz) {
            if (est && !rht) continue;
            Knobs k;
            k.rht = rht, k.sr = sr, k.estimation = est, k.amax_given = given;
            k.layout = swz ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
            out.push_back(k);
          }
  for (int given = 0; given < 2; ++given)
    for (int swz = 0; swz < 2; ++swz) {
      Knobs k;
      k.block_2d = true, k.amax_given = given;
      k.layout = swz ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
      out.push_back(k);
    }
  // 4over6 (no RHT, no SR): 1D and 2D, MAE at E 448 and MSE at E 256.
  for (int block_2d = 0; block_2d < 2; ++block_2d)
    for (int given = 0; given < 2; ++given)
      for (int setting = 0; setting < 2; ++setting) {
        Knobs k;
        k.four_over_six = true, k.block_2d = block_2d, k.amax_given = given;
        k.mse = k.e256 = setting == 1;
        k.layout = (given + setting) % 2 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        out.push_back(k);
      }
  return out;
}

TEST(Nvfp4QuantizeGpu, ByteExactAgainstCpuOnEveryKnob) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 1;
  const std::vector<Knobs> knobs = all_knobs();
  for (const Knobs& k : knobs)
    for (lowp_dtype in : kInputs)
      for (const Shape& s : kShapes)
        for (int orient = 0; orient < 3; ++orient) {
          if (quick_mode() && (seed % 4 != 0)) {
            ++seed;
            continue;
          }
          const Fill f = kFills[seed % 6];
          Case c{in, s.rows, s.cols, orient != 1, orient != 0, k, (seed % 7 == 0) ? dtype_size(in) : 0};
          if (seed % 3 == 0) c.k.sign_mask = 0x5A3Cu;  // the default mask has an encode of its own
          const auto x = (seed % 5 == 0) ? tie_tensor(in, s.rows, s.cols, seed) : fuzz_tensor(in, s.rows, s.cols, f, seed);
          bad += compare(c, x);
          ++seed;
          ++cases;
        }
  std::printf("[nvfp4 quantize gpu==cpu] %zu knob sets: %d cases, %d mismatching buffers\n", knobs.size(), cases, bad);
  EXPECT_EQ(bad, 0);
}

// Code buffers 4 bytes off an 8-byte boundary: the tile kernels store whole blocks (8 bytes), so
// these take the per-block kernels, with the same bytes (the tile path once faulted on them).
TEST(Nvfp4QuantizeGpu, ByteExactWithCodesOffEightByteAlignment) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 4000;
  for (lowp_dtype in : kInputs)
    for (const Shape s : {Shape{128, 128}, Shape{144, 80}})
      for (int variant = 0; variant < 5; ++variant) {  // RN, RHT, RHT + SR, 4over6 1D (MSE, E 256), 4over6 2D
        Case c{in, s.rows, s.cols, true, true, Knobs{}, 0};
        c.codes_misalign = 4;
        c.k.rht = variant == 1 || variant == 2;
        c.k.sr = variant == 2;
        c.k.four_over_six = variant >= 3;
        c.k.mse = c.k.e256 = variant == 3;
        c.k.block_2d = variant == 4;
        bad += compare(c, fuzz_tensor(in, s.rows, s.cols, Fill::kGaussian, seed++));
        ++cases;
      }
  std::printf("[nvfp4 quantize gpu==cpu, codes 4 bytes off 8-byte alignment] %d cases, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

TEST(Nvfp4QuantizeGpu, ByteExactOnLargeAndRowwiseOnlyShapes) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 5000;
  // Rowwise only: any M (not a multiple of 16), K a multiple of 16 but not of 128.
  for (lowp_dtype in : kInputs)
    for (const Shape s : {Shape{1, 16}, Shape{7, 48}, Shape{130, 144}, Shape{333, 1040}})
      for (int sr = 0; sr < 2; ++sr) {
        Case c{in, s.rows, s.cols, true, false, Knobs{}, 0};
        c.k.sr = sr;
        bad += compare(c, fuzz_tensor(in, s.rows, s.cols, Fill::kGaussian, seed++));
        ++cases;
      }
  const Shape large[] = {{1024, 2048}, {2048, 1040}, {1008, 4096}};
  for (lowp_dtype in : kInputs)
    for (const Shape& s : large)
      for (int variant = 0; variant < 4; ++variant) {
        if (quick_mode() && variant != 3) continue;
        // 0: RN; 1: RHT on a huge-range input; 2: RHT + SR; 3: RHT + estimation, swizzled.
        Case c{in, s.rows, s.cols, true, true, Knobs{}, 0};
        c.k.rht = variant >= 1;
        c.k.sr = variant == 2;
        c.k.estimation = variant == 3;
        c.k.layout = variant == 3 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        if (in == LOWP_DTYPE_FLOAT16) c.k.sign_mask = 0x81E7u;
        bad += compare(c, fuzz_tensor(in, s.rows, s.cols, variant == 1 ? Fill::kHugeRange : Fill::kGaussian, seed++));
        ++cases;
      }
  for (const Shape& s : large) {
    Case c{LOWP_DTYPE_BFLOAT16, s.rows, s.cols, true, true, Knobs{}, 0};
    c.k.block_2d = true;
    bad += compare(c, fuzz_tensor(c.in, s.rows, s.cols, Fill::kGaussian, seed++));
    ++cases;
    // 4over6, 1D and 2D, on the same shape.
    for (int block_2d = 0; block_2d < 2; ++block_2d) {
      c.k.four_over_six = true, c.k.block_2d = block_2d, c.k.mse = block_2d == 0;
      bad += compare(c, fuzz_tensor(c.in, s.rows, s.cols, block_2d ? Fill::kHugeRange : Fill::kGaussian, seed++));
      ++cases;
    }
  }
  std::printf("[nvfp4 quantize gpu==cpu] large/rowwise-only: %d cases, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

// 4over6 with 16x16 tiles on wide-range data (x = randn * exp(4 * randn), the inputs of
// cpu_nvfp4_four_over_six_te_test): the columnwise copy sums each tile's error in xᵀ's rows
// (numerics §5c), which decides some tiles differently from the rowwise copy. Both the tile
// kernels (aligned) and the per-block kernels (x misaligned), every error measure and E; the CPU
// side must show such tiles, so the columnwise order is exercised.
TEST(Nvfp4QuantizeGpu, ByteExactFourOverSix2DOnWideRangeData) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  int64_t untransposed = 0;
  for_each_wide_range_case([&](const WideRangeShape& s, lowp_dtype in, const WideRangeSetting& st, uint64_t seed) {
    const std::vector<uint8_t> x = wide_range_tensor(in, s.rows, s.cols, seed);
    for (int misalign = 0; misalign < 2; ++misalign) {
      if (quick_mode() && misalign) continue;
      Case c{in, s.rows, s.cols, true, true, Knobs{}, misalign ? dtype_size(in) : 0};
      c.k.four_over_six = c.k.block_2d = true;
      c.k.mse = st.mse;
      c.k.e256 = st.e == 256.0f;
      c.k.layout = LOWP_SCALE_LAYOUT_COMPACT;
      const Outputs want = run_cpu(c, x);
      if (!misalign) untransposed += untransposed_tiles(want.row_s, want.col_s, s.rows, s.cols);
      bad += compare_outputs(c, run_gpu(c, x), want);
      ++cases;
    }
  });
  std::printf("[nvfp4 quantize gpu==cpu] 4over6 2D wide-range: %d cases, %d mismatching buffers; %lld tiles where the "
              "copies chose differently\n",
              cases, bad, static_cast<long long>(untransposed));
  EXPECT_EQ(bad, 0);
  EXPECT_GT(untransposed, 0) << "no tile where the columnwise order decides: the inputs do not exercise it";
}

TEST(Nvfp4QuantizeGpu, GraphReplayEqualsEagerAndAdvanceChangesSrBytes) {
  LOWP_REQUIRE_GPU();
  Case c{LOWP_DTYPE_BFLOAT16, 256, 512, true, true, Knobs{}, 0};
  c.k.rht = c.k.sr = true;
  const auto x = fuzz_tensor(c.in, c.rows, c.cols, Fill::kGaussian, 77);
  const Outputs eager = run_gpu(c, x);
  ASSERT_EQ(eager.status, LOWP_SUCCESS) << eager.error;
  EXPECT_EQ(compare_outputs(c, eager, run_cpu(c, x)), 0);

  DeviceCall d(c, x);
  cudaStream_t s;
  LOWP_CUDA_OK(cudaStreamCreate(&s));
  cudaGraph_t graph;
  LOWP_CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  const lowp_status st = d.call(c, s);
  ASSERT_EQ(lowp_rng_advance(static_cast<uint64_t*>(d.rng.get()), 1, s), LOWP_SUCCESS);
  LOWP_CUDA_OK(cudaStreamEndCapture(s, &graph));
  ASSERT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
  cudaGraphExec_t exec;
  LOWP_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  LOWP_CUDA_OK(cudaGraphLaunch(exec, s));
  LOWP_CUDA_OK(cudaStreamSynchronize(s));
  const Outputs first = d.download(c);
  EXPECT_EQ(compare_outputs(c, first, eager), 0) << "graph replay 1 differs from eager";
  LOWP_CUDA_OK(cudaGraphLaunch(exec, s));  // offset advanced by the first replay: new draws
  LOWP_CUDA_OK(cudaStreamSynchronize(s));
  const Outputs second = d.download(c);
  EXPECT_NE(second.row, first.row) << "SR codes did not change after lowp_rng_advance";
  uint64_t state[2];
  cudaMemcpy(state, d.rng.get(), 16, cudaMemcpyDeviceToHost);
  EXPECT_EQ(state[0], kRngState[0]);
  EXPECT_EQ(state[1], kRngState[1] + 2);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

TEST(Nvfp4QuantizeGpu, DequantizeAndSwizzleByteExactAgainstCpu) {
  LOWP_REQUIRE_GPU();
  int cases = 0, bad = 0;
  uint64_t seed = 9000;
  for (const Shape s : {Shape{16, 16}, Shape{48, 80}, Shape{304, 528}, Shape{1024, 1024}})
    for (int swz = 0; swz < 2; ++swz)
      for (lowp_dtype out_t : kInputs) {
        Case c{LOWP_DTYPE_BFLOAT16, s.rows, s.cols, true, true, Knobs{}, 0};
        c.k.layout = swz ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        c.k.rht = (seed & 1) != 0;
        c.k.four_over_six = c.k.e256 = !c.k.rht && seed % 4 == 0;  // dequantize with 1/1536
        const auto x = fuzz_tensor(c.in, s.rows, s.cols, Fill::kGaussian, seed++);
        Outputs h = run_cpu(c, x);
        ASSERT_EQ(h.status, LOWP_SUCCESS) << h.error;
        for (int which = 0; which < 2; ++which) {
          const bool row = which == 0;
          const int64_t r = row ? s.rows : s.cols, k = row ? s.cols : s.rows;
          const size_t out_bytes = static_cast<size_t>(r * k) * dtype_size(out_t);
          std::vector<uint8_t> want(out_bytes, kPoison);
          lowp_quantized_tensor q = qtensor(c, h.row.data(), h.row_s.data(), &h.row_amax, h.col.data(), h.col_s.data(), &h.col_amax);
          lowp_tensor out{want.data(), out_t, r, k};
          ASSERT_EQ(lowp_dequantize(&q, row ? LOWP_ROWWISE : LOWP_COLUMNWISE, &out, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          DeviceBuffer codes(h.row.size()), scales(row ? h.row_s.size() : h.col_s.size()), amax(4), dout(out_bytes);
          codes.upload(row ? h.row.data() : h.col.data());
          scales.upload(row ? h.row_s.data() : h.col_s.data());
          amax.upload(row ? &h.row_amax : &h.col_amax);
          lowp_quantized_tensor dq = qtensor(c, codes.get(), scales.get(), amax.f32(), codes.get(), scales.get(), amax.f32());
          lowp_tensor dout_t{dout.get(), out_t, r, k};
          ASSERT_EQ(lowp_dequantize(&dq, row ? LOWP_ROWWISE : LOWP_COLUMNWISE, &dout_t, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          LOWP_CUDA_OK(cudaDeviceSynchronize());
          const auto got = dout.download();
          const auto res = bytes_equal(got, want, 1, static_cast<int64_t>(out_bytes), "dequantize");
          if (!res) ++bad;
          EXPECT_TRUE(res) << describe(c) << " which=" << which << " out=" << out_t;
          ++cases;
        }
        // Standalone swizzle of CPU compact scales == CPU swizzle.
        if (!swz) {
          for (int which = 0; which < 2; ++which) {
            const std::vector<uint8_t>& compact = which ? h.col_s : h.row_s;
            const int64_t rows = which ? s.cols : s.rows, blocks = (which ? s.rows : s.cols) / 16;
            std::vector<uint8_t> want(compact.size(), kPoison);
            ASSERT_EQ(lowp_nvfp4_swizzle_scales(compact.data(), want.data(), rows, blocks, nullptr), LOWP_SUCCESS);
            DeviceBuffer dc(compact.size()), ds(compact.size());
            dc.upload(compact.data());
            ASSERT_EQ(lowp_nvfp4_swizzle_scales(dc.get(), ds.get(), rows, blocks, nullptr), LOWP_SUCCESS);
            LOWP_CUDA_OK(cudaDeviceSynchronize());
            const auto res = bytes_equal(ds.download(), want, 1, static_cast<int64_t>(want.size()), "swizzle");
            if (!res) ++bad;
            EXPECT_TRUE(res) << describe(c);
            ++cases;
          }
        }
      }
  std::printf("[nvfp4 dequantize/swizzle gpu==cpu] %d cases, %d mismatching buffers\n", cases, bad);
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace lowp_test
