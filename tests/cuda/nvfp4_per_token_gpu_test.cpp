// CUDA backend == CPU backend, byte for byte, for the per-row NVFP4 recipes on single tensors:
// per-token, and row-scaled with and without 4over6 (each test body runs per recipe):
// the composite lowp_quantize on fuzzed shapes, dtypes and values with every knob (RHT, sign
// mask, SR, scale layout, orientation, misaligned x), rowwise-only odd row counts and large
// tensors; K2 alone with given amaxes; K1 alone (lowp_nvfp4_amax_per_token); K1 then K2 ==
// composite on the device; x written by the kernel just before the call; fused swizzle ==
// lowp_nvfp4_swizzle_scales; dequantize; CUDA-graph replay with SR and lowp_rng_advance.
// Grouped calls: nvfp4_per_token_grouped_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "nvfp4_per_token_gpu.h"

namespace lowp_test {
namespace {

struct PtCase {
  lowp_dtype in = LOWP_DTYPE_BFLOAT16;
  int64_t rows = 16, cols = 16;
  bool row = true, col = true;
  bool rht = false, sr = false, given = false;
  lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT;
  uint32_t mask = 0xD7E8u;
  size_t misalign = 0;  // bytes added to the device x pointer (the CPU reads the same values)
  PtValues values = PtValues::kMixed;
  uint64_t seed = 1;
  PerRowRecipe recipe = kPerToken;
  std::vector<uint8_t> x() const { return pt_values(in, rows, cols, values, seed); }
};

std::string describe(const PtCase& c) {
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "%s in=%d %lldx%lld row=%d col=%d rht=%d mask=0x%04x sr=%d given=%d swz=%d misalign=%zu values=%s seed=%llu",
      c.recipe.name, c.in,
      static_cast<long long>(c.rows), static_cast<long long>(c.cols), c.row, c.col, c.rht, c.mask, c.sr, c.given,
      c.layout == LOWP_SCALE_LAYOUT_SWIZZLED, c.misalign, values_name(c.values),
      static_cast<unsigned long long>(c.seed));
  return buf;
}

lowp_quant_config config(const PtCase& c, const uint64_t* rng) {
  return pt_config(c.rht, c.mask, c.sr, rng, c.given, c.recipe);
}

// The calls, on whichever memory space x and the buffers p live in.
lowp_status call_quantize(const PtCase& c, void* x, const std::array<void*, kNumBufs>& p, const uint64_t* rng,
                          void* stream) {
  lowp_tensor t{x, c.in, c.rows, c.cols};
  lowp_quantized_tensor q = pt_qtensor(c.rows, c.cols, c.layout, c.row, c.col, p, c.recipe);
  const lowp_quant_config cfg = config(c, rng);
  return lowp_quantize(&t, &q, &cfg, stream);
}
lowp_status call_k1(const PtCase& c, void* x, const std::array<void*, kNumBufs>& p, const lowp_quant_config* cfg,
                    void* stream) {
  lowp_tensor t{x, c.in, c.rows, c.cols};
  return lowp_nvfp4_amax_per_row(&t, c.recipe.scaling, c.row ? static_cast<float*>(p[kRowAmax]) : nullptr,
                                 c.col ? static_cast<float*>(p[kColAmax]) : nullptr, cfg, stream);
}

Outputs run_cpu(const PtCase& c, const std::vector<uint8_t>& x, Outputs o) {
  o.status = call_quantize(c, const_cast<uint8_t*>(x.data()), host_ptrs(o), kPtRngState, nullptr);
  o.error = lowp_get_last_error();
  return o;
}

// x, the RNG state and every output on the device.
struct DeviceCall {
  DeviceBuffer x, rng;
  DeviceOutputs out;
  DeviceCall(const PtCase& c, const std::vector<uint8_t>& hx, const Outputs& init)
      : x(hx.size(), c.misalign), rng(16), out(init) {
    x.upload(hx.data());
    rng.upload(kPtRngState);
  }
  lowp_status quantize(const PtCase& c, cudaStream_t s) {
    return call_quantize(c, x.get(), out.ptrs(), static_cast<const uint64_t*>(rng.get()), s);
  }
};

Outputs run_gpu(const PtCase& c, const std::vector<uint8_t>& x, const Outputs& init) {
  DeviceCall d(c, x, init);
  return device_result(d.quantize(c, nullptr), d.out);
}

Outputs initial(const PtCase& c) { return poisoned(pt_sizes(c.rows, c.cols, c.recipe.scaling)); }

void compare_quantize(Tally& tally, const PtCase& c) {
  const std::vector<uint8_t> x = c.x();
  tally.compare(describe(c), run_gpu(c, x, initial(c)), run_cpu(c, x, initial(c)));
  tally.case_run();
}

const lowp_dtype kInputs[] = {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_FLOAT32};
constexpr int kValueSets = static_cast<int>(PtValues::kCount);

// Knob set k in [0, 24): bits 0-2 rht, sr, swizzled; k / 8 the orientation (row, col, both).
void set_knobs(PtCase& c, int k) {
  c.rht = k & 1;
  c.sr = (k >> 1) & 1;
  c.layout = (k >> 2) & 1 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
  c.row = k / 8 != 1;
  c.col = k / 8 != 0;
}

void quantizeByteExactOnEveryKnob(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " quantize gpu==cpu");
  const int64_t rows_set[] = {16, 32, 48, 128, 144, 256, 272, 1040};
  const int64_t cols_set[] = {16, 32, 48, 128, 144, 272, 1024};
  // Each (dtype, shape) runs every third knob set (quick: every twelfth), rotating with the
  // shape so that consecutive shapes cover all 24; values, sign mask and misalignment rotate too.
  const int stride = quick_mode() ? 12 : 3;
  uint64_t shape_index = 0, seed = 1;
  for (lowp_dtype in : kInputs)
    for (int64_t rows : rows_set)
      for (int64_t cols : cols_set) {
        for (int k = 0; k < 24; ++k) {
          if ((k + shape_index) % stride != 0) continue;
          PtCase c;
          c.recipe = r;
          c.in = in, c.rows = rows, c.cols = cols, c.seed = seed;
          set_knobs(c, k);
          c.values = static_cast<PtValues>(seed % kValueSets);
          c.mask = seed % 3 == 0 ? 0x5A3Cu : 0xD7E8u;
          c.misalign = seed % 5 == 0 ? dtype_size(in) : 0;
          compare_quantize(tally, c);
          ++seed;
        }
        ++shape_index;
      }
}

void rowwiseOnlyOddRowsAndLargeShapes(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " rowwise-only/large gpu==cpu");
  uint64_t seed = 5000;
  for (lowp_dtype in : kInputs)
    for (int64_t rows : {1, 7, 130})
      for (int64_t cols : {16, 144, 1040})
        for (int k = 0; k < 4; ++k) {  // sr, swizzled
          if (quick_mode() && k != (rows + cols / 16) % 4) continue;
          PtCase c;
          c.recipe = r;
          c.in = in, c.rows = rows, c.cols = cols, c.seed = seed, c.col = false;
          c.rht = seed & 1;  // no effect on the rowwise copy
          c.sr = k & 1;
          c.layout = k & 2 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
          c.values = static_cast<PtValues>(seed % kValueSets);
          c.misalign = seed % 3 == 0 ? dtype_size(in) : 0;
          compare_quantize(tally, c);
          ++seed;
        }
  struct Large {
    lowp_dtype in;
    int64_t rows, cols;
    bool rht, sr, swizzled;
    size_t misalign;
  };
  const Large large[] = {{LOWP_DTYPE_BFLOAT16, 2048, 4096, true, true, true, 0},
                         {LOWP_DTYPE_BFLOAT16, 2048, 4096, false, false, false, 2},
                         {LOWP_DTYPE_FLOAT16, 4096, 1040, true, false, false, 0},
                         {LOWP_DTYPE_FLOAT32, 1040, 2048, false, true, true, 4}};
  for (const Large& l : large) {
    if (quick_mode() && &l != large) continue;
    PtCase c;
    c.recipe = r;
    c.in = l.in, c.rows = l.rows, c.cols = l.cols, c.rht = l.rht, c.sr = l.sr, c.misalign = l.misalign;
    c.layout = l.swizzled ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
    c.values = (&l - large) % 2 ? PtValues::kOutlierPerRow : PtValues::kMixed;
    c.seed = seed++;
    compare_quantize(tally, c);
  }
  // x past the L2 size takes the encode's plain loads and stores (smaller x: evict-first ones).
  int dev = 0, l2 = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), cudaSuccess);
  for (int k = 0; k < 2 && !quick_mode(); ++k) {
    PtCase c;
    c.recipe = r;
    c.cols = 2048;
    c.rows = (int64_t{l2} / (c.cols * 2) / 16 + 1) * 16 + 16 * k;  // bf16 x just past L2
    c.rht = c.sr = k == 1;
    c.layout = k == 1 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
    c.values = PtValues::kOutlierPerRow;
    c.seed = seed++;
    compare_quantize(tally, c);
  }
}

// The fused first pass (K1 with the rowwise encode; src/cuda/nvfp4/launch.h, token_strips_ok: 16-bit x of
// 2048 columns and 4096 rows or more, RN, no RHT, compact scales, both copies) on every value set,
// 4112 rows covering the scales' padding rows (4224), and its neighbours that take K1 then K2.
void fusedRowStripsByteExact(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " fused row strips gpu==cpu");
  uint64_t seed = 9000;
  for (lowp_dtype in : {LOWP_DTYPE_BFLOAT16, LOWP_DTYPE_FLOAT16})
    for (int v = 0; v < kValueSets; ++v) {
      if (quick_mode() && v % 4 != (in == LOWP_DTYPE_FLOAT16 ? 1 : 0)) continue;
      PtCase c;
      c.recipe = r;
      c.in = in, c.rows = v == 0 ? 4096 : 4112, c.cols = 2048, c.seed = seed++;
      c.values = static_cast<PtValues>(v);
      compare_quantize(tally, c);
    }
  if (quick_mode()) return;
  // The same shape with a knob the fused pass does not take, and 4080 rows (too few).
  for (int k = 0; k < 4; ++k) {
    PtCase c;
    c.recipe = r;
    c.rows = k == 3 ? 4080 : 4112, c.cols = 2048, c.seed = seed++, c.values = PtValues::kSpecials;
    c.layout = k == 0 ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
    c.sr = k == 1;
    c.row = k != 2;
    compare_quantize(tally, c);
  }
}

// Given amaxes that the encoder must take as they are: zeros, subnormals, values around the
// 1e-12 floor, amaxes far below the data (saturating codes) and above it, inf and NaN.
std::vector<float> arbitrary_amaxes(int64_t n, Rng& rng) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float pool[] = {0.0f,  -0.0f, 1e-40f, 1e-30f, 1e-13f, 1e-12f, 1.1e-12f, 1e-6f,
                        0.01f, 0.5f,  1.0f,   3.3f,   448.0f, 1e30f,  inf,      nan};
  std::vector<float> v(static_cast<size_t>(n));
  for (float& a : v) a = pool[rng.below(sizeof pool / sizeof pool[0])];
  return v;
}

void encodeAloneWithGivenAmaxes(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " K2 (amax_given) gpu==cpu");
  struct Shape {
    int64_t rows, cols;
  };
  const Shape shapes[] = {{16, 16}, {48, 144}, {144, 272}, {256, 1024}, {7, 48}, {130, 32}};
  Rng rng(31);
  uint64_t seed = 7000;
  for (lowp_dtype in : kInputs)
    for (const Shape& s : shapes)
      for (int source = 0; source < 2; ++source)  // 0: a CPU K1 run, 1: arbitrary
        for (int rep = 0; rep < (quick_mode() ? 1 : 3); ++rep) {
          PtCase c;
          c.recipe = r;
          c.in = in, c.rows = s.rows, c.cols = s.cols, c.seed = seed, c.given = true;
          set_knobs(c, static_cast<int>(seed % 24));
          if (s.rows % 16 != 0) c.row = true, c.col = false;
          c.values = static_cast<PtValues>(seed % kValueSets);
          c.misalign = seed % 4 == 0 ? dtype_size(in) : 0;
          ++seed;
          const std::vector<uint8_t> x = c.x();
          Outputs init = initial(c);
          std::vector<float> row_amax(static_cast<size_t>(c.rows)), col_amax(static_cast<size_t>(c.cols));
          if (source == 0) {
            const lowp_quant_config cfg = config(c, nullptr);
            lowp_tensor t{const_cast<uint8_t*>(x.data()), c.in, c.rows, c.cols};
            ASSERT_EQ(lowp_nvfp4_amax_per_row(&t, c.recipe.scaling, row_amax.data(), c.col ? col_amax.data() : nullptr,
                                              &cfg, nullptr),
                      LOWP_SUCCESS)
                << lowp_get_last_error();
          } else {
            row_amax = arbitrary_amaxes(c.rows, rng);
            col_amax = arbitrary_amaxes(c.cols, rng);
          }
          if (c.row) put_floats(init.b[kRowAmax], row_amax);
          if (c.col) put_floats(init.b[kColAmax], col_amax);
          const std::string what = describe(c) + (source == 0 ? " amaxes from CPU K1" : " arbitrary amaxes");
          const Outputs got = run_gpu(c, x, init);
          tally.compare(what, got, run_cpu(c, x, init));
          for (int b : {kRowAmax, kColAmax})  // given: read, never written
            if (got.status == LOWP_SUCCESS)
              tally.check(
                  bytes_equal(got.b[b], init.b[b], 1, static_cast<int64_t>(init.b[b].size() / 4), "given amax", 4),
                  what);
          tally.case_run();
        }
}

void amaxAloneBitExact(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " K1 (lowp_nvfp4_amax_per_token) gpu==cpu");
  struct Shape {
    int64_t rows, cols;
  };
  // K % 16 is not needed for the amaxes; column amaxes with RHT need M % 16 == 0.
  const Shape shapes[] = {{16, 16}, {7, 5}, {130, 33}, {144, 272}, {1040, 1024}, {2048, 4096}};
  const uint32_t masks[] = {0xD7E8u, 0x0000u, 0xFFFFu, 0x1234u};
  uint64_t seed = 8000;
  for (lowp_dtype in : kInputs)
    for (const Shape& s : shapes) {
      if (quick_mode() && s.rows * s.cols > 1 << 20) continue;
      const uint64_t x_seed = seed;
      const PtValues values = static_cast<PtValues>(seed % kValueSets);
      const std::vector<uint8_t> x = pt_values(in, s.rows, s.cols, values, x_seed);  // one x per shape
      for (int orient = 0; orient < 3; ++orient)
        for (int rht = 0; rht < 2; ++rht) {
          PtCase c;
          c.recipe = r;
          c.in = in, c.rows = s.rows, c.cols = s.cols, c.seed = x_seed, c.rht = rht;
          c.row = orient != 1, c.col = orient != 0;
          if (c.col && c.rht && c.rows % 16 != 0) continue;
          c.mask = masks[seed % 4];
          c.values = values;
          c.misalign = seed % 3 == 0 ? dtype_size(in) : 0;
          ++seed;
          Outputs init;
          init.b[kRowAmax].assign(static_cast<size_t>(c.rows) * 4, kPoison);
          init.b[kColAmax].assign(static_cast<size_t>(c.cols) * 4, kPoison);
          const lowp_quant_config cfg = config(c, nullptr);
          const lowp_quant_config* pcfg = (!c.rht && seed % 2 == 0) ? nullptr : &cfg;  // NULL cfg: no RHT
          Outputs want = init;
          want.status = call_k1(c, const_cast<uint8_t*>(x.data()), host_ptrs(want), pcfg, nullptr);
          want.error = lowp_get_last_error();
          DeviceCall d(c, x, init);
          const Outputs got = device_result(call_k1(c, d.x.get(), d.out.ptrs(), pcfg, nullptr), d.out);
          tally.compare(describe(c) + (pcfg ? "" : " cfg=NULL"), got, want);
          tally.case_run();
        }
    }
}

void amaxThenEncodeEqualsCompositeOnDevice(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " K1+K2 == composite (cuda)");
  uint64_t seed = 9000;
  for (lowp_dtype in : kInputs)
    for (int k = 0; k < 24; ++k) {
      if (quick_mode() && k % 5 != 0) continue;
      PtCase c;
      c.recipe = r;
      c.in = in, c.rows = k % 3 == 0 ? 272 : 144, c.cols = k % 2 ? 1024 : 48, c.seed = seed;
      set_knobs(c, k);
      c.mask = seed % 2 ? 0x0F0Fu : 0xD7E8u;
      c.values = static_cast<PtValues>(seed % kValueSets);
      c.misalign = seed % 5 == 0 ? dtype_size(in) : 0;
      ++seed;
      const std::vector<uint8_t> x = c.x();
      DeviceCall split(c, x, initial(c));
      const lowp_quant_config cfg = config(c, nullptr);
      lowp_status st = call_k1(c, split.x.get(), split.out.ptrs(), &cfg, nullptr);
      PtCase given = c;
      given.given = true;
      if (st == LOWP_SUCCESS) st = split.quantize(given, nullptr);
      const Outputs two_calls = device_result(st, split.out);
      tally.compare(describe(c), two_calls, run_gpu(c, x, initial(c)), "CUDA K1+K2", "CUDA composite");
      tally.case_run();
    }
}

// The composite's first kernel launches early (programmatic dependent launch) and must wait for
// whatever ran before it: here x is written by the kernel enqueued just before the call (a
// dequantize, no synchronisation in between) and starts out as poison. The result must be the
// CPU's quantization of the dequantized values.
void quantizeOfThePrecedingKernelsOutput(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " quantize after a producer kernel (cuda) == cpu");
  uint64_t seed = 12000;
  for (int k = 0; k < (quick_mode() ? 2 : 6); ++k) {
    PtCase src;
    src.recipe = r;
    src.rows = k % 2 ? 4096 : 1040, src.cols = k % 3 ? 2048 : 272, src.seed = seed++;
    src.values = static_cast<PtValues>(src.seed % kValueSets);
    Outputs h = run_cpu(src, src.x(), initial(src));
    ASSERT_EQ(h.status, LOWP_SUCCESS) << describe(src) << ": " << h.error;
    PtCase c = src;  // quantizes the bf16 rowwise dequantization of src's codes
    set_knobs(c, 16 + k % 8);
    const size_t x_bytes = static_cast<size_t>(c.rows * c.cols) * 2;
    std::vector<uint8_t> x(x_bytes);
    lowp_quantized_tensor hq = pt_qtensor(src.rows, src.cols, src.layout, true, true, host_ptrs(h), r);
    lowp_tensor hx{x.data(), LOWP_DTYPE_BFLOAT16, c.rows, c.cols};
    ASSERT_EQ(lowp_dequantize(&hq, LOWP_ROWWISE, &hx, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    const DeviceOutputs dsrc(h);
    DeviceCall d(c, std::vector<uint8_t>(x_bytes, 0xFF), initial(c));  // x: bf16 NaNs until the producer writes it
    lowp_quantized_tensor dq = pt_qtensor(src.rows, src.cols, src.layout, true, true, dsrc.ptrs(), r);
    lowp_tensor dxt{d.x.get(), LOWP_DTYPE_BFLOAT16, c.rows, c.cols};
    lowp_status st = lowp_dequantize(&dq, LOWP_ROWWISE, &dxt, nullptr);
    if (st == LOWP_SUCCESS) st = d.quantize(c, nullptr);
    tally.compare(describe(c) + " (x from the preceding kernel)", device_result(st, d.out), run_cpu(c, x, initial(c)));
    tally.case_run();
  }
}

void fusedSwizzleEqualsStandaloneSwizzle(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " fused swizzle == lowp_nvfp4_swizzle_scales (cuda)");
  struct Shape {
    int64_t rows, cols;
  };
  const Shape shapes[] = {{16, 16}, {48, 144}, {144, 272}, {272, 1024}, {7, 48}, {130, 1040}};
  uint64_t seed = 10000;
  for (lowp_dtype in : kInputs)
    for (const Shape& s : shapes)
      for (int k = 0; k < 4; ++k) {  // rht, sr
        if (quick_mode() && k != static_cast<int>((&s - shapes) % 4)) continue;
        PtCase c;
        c.recipe = r;
        c.in = in, c.rows = s.rows, c.cols = s.cols, c.seed = seed, c.rht = k & 1, c.sr = k & 2;
        if (s.rows % 16 != 0) c.col = false;
        c.values = static_cast<PtValues>(seed % kValueSets);
        ++seed;
        const std::vector<uint8_t> x = c.x();
        DeviceCall compact(c, x, initial(c));
        const lowp_status st = compact.quantize(c, nullptr);
        // The compact run with its requested parts' scales swizzled by the standalone kernel.
        Outputs standalone = device_result(st, compact.out);
        for (int part = 0; part < 2; ++part) {
          if (!(part ? c.col : c.row) || standalone.status != LOWP_SUCCESS) continue;
          const int b = part ? kColScales : kRowScales;
          DeviceBuffer swizzled(standalone.b[b].size());
          const int64_t rows = part ? c.cols : c.rows, blocks = (part ? c.rows : c.cols) / 16;
          standalone.status = lowp_nvfp4_swizzle_scales(compact.out.d[b]->get(), swizzled.get(), rows, blocks, nullptr);
          standalone.error = lowp_get_last_error();
          LOWP_CUDA_OK(cudaDeviceSynchronize());
          standalone.b[b] = swizzled.download();
        }
        PtCase fused = c;
        fused.layout = LOWP_SCALE_LAYOUT_SWIZZLED;
        tally.compare(describe(fused), run_gpu(fused, x, initial(fused)), standalone, "CUDA fused", "CUDA standalone");
        tally.case_run();
      }
}

void dequantizeByteExactAgainstCpu(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " dequantize gpu==cpu");
  struct Shape {
    int64_t rows, cols;
  };
  const Shape shapes[] = {{16, 16}, {48, 144}, {144, 272}, {1040, 1024}, {7, 48}, {130, 144}};
  uint64_t seed = 11000;
  for (const Shape& s : shapes)
    for (int swz = 0; swz < 2; ++swz)
      for (lowp_dtype out_t : kInputs) {
        if (quick_mode() && (s.rows * s.cols > 1 << 16 || out_t != LOWP_DTYPE_FLOAT32)) continue;
        PtCase c;
        c.recipe = r;
        c.in = kInputs[seed % 3], c.rows = s.rows, c.cols = s.cols, c.seed = seed, c.rht = seed & 1;
        c.layout = swz ? LOWP_SCALE_LAYOUT_SWIZZLED : LOWP_SCALE_LAYOUT_COMPACT;
        if (s.rows % 16 != 0) c.col = false;
        c.values = static_cast<PtValues>(seed % kValueSets);
        ++seed;
        Outputs h = run_cpu(c, c.x(), initial(c));
        ASSERT_EQ(h.status, LOWP_SUCCESS) << describe(c) << ": " << h.error;
        DeviceOutputs d(h);
        for (int which = 0; which < 2; ++which) {
          if (!(which ? c.col : c.row)) continue;
          const int64_t n = which ? c.cols : c.rows, k = which ? c.rows : c.cols;
          const size_t out_bytes = static_cast<size_t>(n * k) * dtype_size(out_t);
          const lowp_orientation o = which ? LOWP_COLUMNWISE : LOWP_ROWWISE;
          std::vector<uint8_t> want(out_bytes, kPoison);
          lowp_quantized_tensor hq = pt_qtensor(c.rows, c.cols, c.layout, c.row, c.col, host_ptrs(h), r);
          lowp_tensor hout{want.data(), out_t, n, k};
          ASSERT_EQ(lowp_dequantize(&hq, o, &hout, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          DeviceBuffer dout(out_bytes);
          lowp_quantized_tensor dq = pt_qtensor(c.rows, c.cols, c.layout, c.row, c.col, d.ptrs(), r);
          lowp_tensor dout_t{dout.get(), out_t, n, k};
          const std::string what = describe(c) + (which ? " columnwise" : " rowwise") + " out=" + std::to_string(out_t);
          const lowp_status st = lowp_dequantize(&dq, o, &dout_t, nullptr);
          const std::string err = lowp_get_last_error();
          LOWP_CUDA_OK(cudaDeviceSynchronize());
          if (st != LOWP_SUCCESS)
            tally.fail(what + ": CUDA " + lowp_status_name(st) + " (" + err + ")");
          else
            tally.check(bytes_equal(dout.download(), want, 1, static_cast<int64_t>(out_bytes), "dequantize"), what);
          tally.case_run();
        }
      }
}

void graphReplayEqualsEagerAndAdvanceChangesSrBytes(const PerRowRecipe& r) {
  Tally tally(std::string("nvfp4 ") + r.name + " SR graph replay");
  PtCase c;
  c.recipe = r;
  c.rows = 256, c.cols = 512, c.rht = c.sr = true;
  c.layout = LOWP_SCALE_LAYOUT_SWIZZLED;
  // SR must move codes in both copies: finite values (a NaN row makes every column amax NaN for
  // row-scaled, which takes the raw amax), no row dominated by one outlier.
  c.values = PtValues::kTies;
  const std::vector<uint8_t> x = c.x();
  const Outputs eager = run_gpu(c, x, initial(c));
  ASSERT_EQ(eager.status, LOWP_SUCCESS) << eager.error;
  tally.compare(describe(c) + " eager", eager, run_cpu(c, x, initial(c)));

  DeviceCall d(c, x, initial(c));
  cudaStream_t s;
  LOWP_CUDA_OK(cudaStreamCreate(&s));
  cudaGraph_t graph;
  LOWP_CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  const lowp_status st = d.quantize(c, s);
  const lowp_status adv = lowp_rng_advance(static_cast<uint64_t*>(d.rng.get()), 1, s);
  LOWP_CUDA_OK(cudaStreamEndCapture(s, &graph));
  ASSERT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
  ASSERT_EQ(adv, LOWP_SUCCESS) << lowp_get_last_error();
  cudaGraphExec_t exec;
  LOWP_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  LOWP_CUDA_OK(cudaGraphLaunch(exec, s));
  LOWP_CUDA_OK(cudaStreamSynchronize(s));
  const Outputs first = device_result(LOWP_SUCCESS, d.out);
  tally.compare(describe(c) + " graph replay 1", first, eager, "CUDA graph", "CUDA eager");
  LOWP_CUDA_OK(cudaGraphLaunch(exec, s));  // the first replay advanced the offset: new draws
  LOWP_CUDA_OK(cudaStreamSynchronize(s));
  const Outputs second = device_result(LOWP_SUCCESS, d.out);
  EXPECT_NE(second.b[kRowCodes], first.b[kRowCodes]) << "rowwise SR codes did not change after lowp_rng_advance";
  EXPECT_NE(second.b[kColCodes], first.b[kColCodes]) << "columnwise SR codes did not change after lowp_rng_advance";
  EXPECT_EQ(second.b[kRowAmax], first.b[kRowAmax]) << "amaxes do not depend on the RNG";
  uint64_t state[2];
  LOWP_CUDA_OK(cudaMemcpy(state, d.rng.get(), 16, cudaMemcpyDeviceToHost));
  EXPECT_EQ(state[0], kPtRngState[0]);
  EXPECT_EQ(state[1], kPtRngState[1] + 2);
  tally.case_run();
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

// Each body per recipe: per-token; row-scaled (every knob); row-scaled with 4over6 (MAE at E 448,
// MSE at E 256; no RHT, no SR: the bodies' RHT and SR knobs drop out, and the SR-only tests skip).
#define PER_ROW_TEST(Name, body, recipes)              \
  TEST(Nvfp4PerTokenGpu, Name) {                       \
    LOWP_REQUIRE_GPU();                                \
    body(kPerToken);                                   \
  }                                                    \
  TEST(Nvfp4RowScaledGpu, Name) {                      \
    LOWP_REQUIRE_GPU();                                \
    for (const PerRowRecipe* r : recipes) body(*r);    \
  }

const PerRowRecipe* const kRowScaledAll[] = {&kRowScaled, &kRowScaled4over6, &kRowScaled4over6MseE256};
const PerRowRecipe* const kRowScaledOnly[] = {&kRowScaled};

PER_ROW_TEST(QuantizeByteExactOnEveryKnob, quantizeByteExactOnEveryKnob, kRowScaledAll)
PER_ROW_TEST(RowwiseOnlyOddRowsAndLargeShapes, rowwiseOnlyOddRowsAndLargeShapes, kRowScaledAll)
PER_ROW_TEST(FusedRowStripsByteExact, fusedRowStripsByteExact, kRowScaledOnly)
PER_ROW_TEST(EncodeAloneWithGivenAmaxes, encodeAloneWithGivenAmaxes, kRowScaledAll)
PER_ROW_TEST(AmaxAloneBitExact, amaxAloneBitExact, kRowScaledOnly)
PER_ROW_TEST(AmaxThenEncodeEqualsCompositeOnDevice, amaxThenEncodeEqualsCompositeOnDevice, kRowScaledAll)
PER_ROW_TEST(QuantizeOfThePrecedingKernelsOutput, quantizeOfThePrecedingKernelsOutput, kRowScaledAll)
PER_ROW_TEST(FusedSwizzleEqualsStandaloneSwizzle, fusedSwizzleEqualsStandaloneSwizzle, kRowScaledAll)
PER_ROW_TEST(DequantizeByteExactAgainstCpu, dequantizeByteExactAgainstCpu, kRowScaledAll)
PER_ROW_TEST(GraphReplayEqualsEagerAndAdvanceChangesSrBytes, graphReplayEqualsEagerAndAdvanceChangesSrBytes, kRowScaledOnly)

}  // namespace
}  // namespace lowp_test
