// Runs one recipe of the table (recipe_table.cpp) on one tensor through the C API and measures
// both copies it makes.
#include "recipes.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "columnwise.h"
#include "quantized_buffers.h"

namespace lowp_cli {
namespace {

// Delayed scaling's amax history (TE's default is 1024; the length does not change the demo).
constexpr int64_t kHistoryLen = 16;
// The "previous step" of the delayed-scaling demo is this tensor times 0.9.
constexpr float kPrevStepFactor = 0.9f;

// Delayed scaling as in training: the previous step's amax sits in the history, the update
// turns it into this step's scale, and this step's cast folds its own amax into h[0].
// The previous step is x*0.9; its amax is exactly fl(0.9 * amax(x)) because rounding a product
// is monotonic, so one lowp_amax over x gives it without materialising the scaled tensor.
void prepare_delayed(QuantizedBuffers& qb, const Recipe& r, const PreparedInput& in, Backend b) {
  Buffer amax(b, sizeof(float));
  const lowp_tensor x = in.view();
  check(lowp_amax(&x, amax.floats(), nullptr), "lowp_amax");
  float a = 0;
  amax.download(&a, sizeof a);
  std::vector<float> h(kHistoryLen, 0.0f);
  h[0] = kPrevStepFactor * a;
  qb.history = Buffer(b, h.size() * sizeof(float));
  qb.history.upload(h.data(), h.size() * sizeof(float));
  const float one = 1.0f;  // initial scale; kept by the update if the amax is 0 or not finite
  qb.scale.upload(&one, sizeof one);
  check(
      lowp_fp8_delayed_scaling_update(1, kHistoryLen, qb.history.floats(), qb.scale.floats(),
                                      qb.tensor_scale_inv.floats(), r.dtype, 0, LOWP_AMAX_ALGO_MAX, nullptr),
      "lowp_fp8_delayed_scaling_update");
  qb.q.amax = qb.history.floats();  // h[0], zeroed by the roll
}

double time_quantize(const lowp_tensor& x, lowp_quantized_tensor& q, const lowp_quant_config& cfg,
                     Backend b) {
  // CUDA: the first launch pays for module loading, and single launches are noisy.
  const int warmup = b == Backend::kCuda ? 1 : 0;
  const int reps = b == Backend::kCuda ? 5 : 1;
  for (int i = 0; i < warmup; ++i) {
    check(lowp_quantize(&x, &q, &cfg, nullptr), "lowp_quantize");
    synchronize(b);
  }
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    check(lowp_quantize(&x, &q, &cfg, nullptr), "lowp_quantize");
    synchronize(b);
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::vector<float> dequantize(const lowp_quantized_tensor& q, lowp_orientation which, Backend b) {
  const int64_t rows = which == LOWP_ROWWISE ? q.rows : q.cols;
  const int64_t cols = which == LOWP_ROWWISE ? q.cols : q.rows;
  Buffer out(b, static_cast<size_t>(rows * cols) * sizeof(float));
  lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, rows, cols};
  check(lowp_dequantize(&q, which, &o, nullptr), "lowp_dequantize");
  synchronize(b);
  return out.download_all<float>();
}

// FP8 per-tensor scaling shares one scale, and NVFP4 2D blocks one scale per 16x16 tile, so
// the columnwise copy must be exactly the transpose of the rowwise one.
void check_columnwise_is_transpose(const lowp_quantized_tensor& q, const std::vector<float>& row,
                                   const std::vector<float>& col) {
  for (int64_t r = 0; r < q.rows; ++r)
    for (int64_t c = 0; c < q.cols; ++c) {
      const float a = row[r * q.cols + c], t = col[c * q.rows + r];
      if (std::memcmp(&a, &t, sizeof a) != 0)
        throw std::runtime_error("columnwise copy is not the transpose of the rowwise copy at x[" +
                                 std::to_string(r) + "][" + std::to_string(c) + "]: " + std::to_string(a) +
                                 " vs " + std::to_string(t));
    }
}

// The RHT recipe again with the columnwise amax estimated (rowwise amax * factor). Overwrites
// qb's outputs (the rowwise copy with the same bytes: estimation does not touch it).
AmaxEstimate measure_estimate(QuantizedBuffers& qb, const lowp_quant_config& cfg, const PreparedInput& in,
                              const std::vector<double>& col_ref, Backend b) {
  float exact = 0, estimated = 0;
  qb.amax[1].download(&exact, sizeof exact);
  lowp_quant_config est = cfg;
  est.amax_estimation = 1;
  const lowp_tensor x = in.view();
  check(lowp_quantize(&x, &qb.q, &est, nullptr), "lowp_quantize (amax estimation)");
  synchronize(b);
  qb.amax[1].download(&estimated, sizeof estimated);
  AmaxEstimate e;
  e.factor = est.amax_estimation_factor;
  e.amax_ratio = static_cast<double>(estimated) / static_cast<double>(exact);
  e.col_stats = error_stats(col_ref, dequantize(qb.q, LOWP_COLUMNWISE, b));
  e.clipped_fraction = clipped_block_fraction(col_ref, in.host.rows, estimated);
  return e;
}

}  // namespace

const char* status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kOk: return "ok";
    case RunStatus::kUnsupported: return "unsupported";
    case RunStatus::kSkipped: return "skipped";
    case RunStatus::kError: return "error";
  }
  return "?";
}

PreparedInput::PreparedInput(const HostTensor& t, Backend b)
    : host(t), values(to_float(t)), nonfinite(count_nonfinite(values)), x(b, t.bytes.size()) {
  x.upload(t.bytes.data(), t.bytes.size());
}

RecipeRun run_recipe(const Recipe& r, const PreparedInput& in, Backend b) {
  RecipeRun run;
  if (r.shape_rule != nullptr) {
    if (const char* why = r.shape_rule(in.host.rows, in.host.cols)) {
      run.status = RunStatus::kSkipped;
      run.message = why;
      return run;
    }
  }
  try {
    QuantizedBuffers qb;
    const bool columnwise = allocate(qb, r.dtype, r.scaling, r.columnwise, in.host, b);
    lowp_quant_config cfg;
    lowp_quant_config_default(&cfg);
    if (r.tune != nullptr) r.tune(cfg);
    const Buffer rng = stochastic_rounding_state(cfg, b);
    if (r.scaling == LOWP_SCALING_DELAYED) prepare_delayed(qb, r, in, b);

    const lowp_tensor x = in.view();
    run.time_ms = time_quantize(x, qb.q, cfg, b);
    const std::vector<float> xhat = dequantize(qb.q, LOWP_ROWWISE, b);
    run.stats = error_stats(in.values, xhat);
    run.clipped_pct = clipped_percent(qb.data[0].download_all<uint8_t>(), r.dtype, in.values, xhat);
    if (cfg.four_over_six)
      run.map4_fraction = map4_fraction(in.values, in.host.rows, in.host.cols, qb.scale_inv[0].download_all<uint8_t>(),
                                        qb.amax[0].download_all<float>(), qb.q.nvfp4_outer_max, cfg.block_2d != 0);
    if (r.columnwise && !columnwise)
      run.note = "rowwise copy only: NVFP4 makes the columnwise copy (blocks of 16 along the rows of x) "
                 "only when rows % 16 == 0";
    if (!columnwise) return run;

    const bool rht = cfg.rht != 0;
    const std::vector<double> col_ref =
        columnwise_reference(in.values, in.host.rows, in.host.cols, rht, cfg.rht_sign_mask);
    const std::vector<float> col = dequantize(qb.q, LOWP_COLUMNWISE, b);
    run.col_stats = error_stats(col_ref, col);
    run.col_domain = rht ? "rht16" : "transpose";
    const bool fp8_per_tensor = r.scaling == LOWP_SCALING_CURRENT || r.scaling == LOWP_SCALING_DELAYED;
    if (fp8_per_tensor || cfg.block_2d) check_columnwise_is_transpose(qb.q, xhat, col);
    if (r.scaling == LOWP_SCALING_NVFP4_PER_TENSOR && rht) run.estimate = measure_estimate(qb, cfg, in, col_ref, b);

  } catch (const LowpError& e) {
    run.status = e.status == LOWP_ERROR_UNSUPPORTED ? RunStatus::kUnsupported : RunStatus::kError;
    run.message = e.what();
  } catch (const std::exception& e) {  // CUDA runtime errors, the transpose check
    run.status = RunStatus::kError;
    run.message = e.what();
  }
  return run;
}

}  // namespace lowp_cli
