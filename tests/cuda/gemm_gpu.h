// GEMM GPU test helpers: a host problem (common/gemm_operands.h) mirrored to the device, run by
// lowp_gemm on the CUDA backend, and compared with the CPU reference: numerics §8's bound with a
// tally, or byte for byte.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/gemm_operands.h"
#include "device_buffer.h"

namespace lowp_test {

// A device copy of every buffer of a host quantized tensor; view() points at them.
struct DeviceQuantized {
  HostQuantized& h;
  std::array<std::unique_ptr<DeviceBuffer>, 6> bufs;  // data, scales, amax of both copies
  std::unique_ptr<DeviceBuffer> tensor;               // FP8 per-tensor scale, scale_inv, amax

  static std::unique_ptr<DeviceBuffer> upload(const void* p, size_t bytes) {
    if (bytes == 0) return nullptr;
    auto b = std::make_unique<DeviceBuffer>(bytes);
    b->upload(p);
    return b;
  }
  explicit DeviceQuantized(HostQuantized& host) : h(host) {
    for (int c = 0; c < 2; ++c) {
      bufs[3 * c] = upload(h.data[c].data(), h.data[c].size());
      bufs[3 * c + 1] = upload(h.scales[c].data(), h.scales[c].size());
      bufs[3 * c + 2] = upload(h.amax[c].data(), h.amax[c].size() * 4);
    }
    const float t[3] = {h.scale, h.scale_inv, h.tensor_amax};
    tensor = upload(t, sizeof t);
  }
  static void* ptr(const std::unique_ptr<DeviceBuffer>& b) { return b ? b->get() : nullptr; }
  lowp_quantized_tensor view() {
    lowp_quantized_tensor q = h.view();
    q.rowwise = {ptr(bufs[0]), ptr(bufs[1]), static_cast<float*>(ptr(bufs[2]))};
    q.columnwise = {ptr(bufs[3]), ptr(bufs[4]), static_cast<float*>(ptr(bufs[5]))};
    if (q.scale != nullptr) q.scale = tensor->f32(), q.scale_inv = tensor->f32() + 1, q.amax = tensor->f32() + 2;
    return q;
  }
};

// The operands, bias, D (uploaded from d_init) and workspace of a problem on the device. NVFP4 runs
// its two-stage kernel with the workspace lowp_gemm_workspace_size asks for, and the fused (or the
// simple) kernel with none: `without_workspace` picks the latter.
struct DeviceGemm {
  HostGemm& g;
  bool without_workspace = false;
  DeviceQuantized a, b;
  std::unique_ptr<DeviceBuffer> bias;
  DeviceBuffer d;
  std::unique_ptr<DeviceBuffer> workspace;
  size_t workspace_bytes = 0;
  lowp_status status = LOWP_SUCCESS;
  std::string error;

  explicit DeviceGemm(HostGemm& host, bool no_workspace = false)
      : g(host), without_workspace(no_workspace), a(host.a), b(host.b), d(host.d_bytes()) {
    bias = DeviceQuantized::upload(g.bias.data(), g.bias.size());
    d.upload(g.d_init.data());
  }
  lowp_gemm_config config() const { return g.config(DeviceQuantized::ptr(bias)); }
  lowp_tensor d_view() { return {d.get(), g.p.d_dtype, g.p.m, g.p.n}; }
  // Queries and allocates the workspace, then runs lowp_gemm on `stream` (not synchronised).
  lowp_status run(cudaStream_t stream = nullptr) {
    lowp_quantized_tensor qa = a.view(), qb = b.view();
    lowp_tensor dt = d_view();
    const lowp_gemm_config cfg = config();
    const lowp_orientation ac = a_copy_of(g.p.product), bc = b_copy_of(g.p.product);
    if (without_workspace) {
      status = lowp_gemm(&qa, ac, &qb, bc, &dt, &cfg, nullptr, 0, stream);
      return record();
    }
    if (!workspace) {
      status = lowp_gemm_workspace_size(&qa, ac, &qb, bc, &dt, &cfg, &workspace_bytes);
      if (status != LOWP_SUCCESS) return record();
      workspace = std::make_unique<DeviceBuffer>(std::max<size_t>(workspace_bytes, 256));
    }
    status = lowp_gemm(&qa, ac, &qb, bc, &dt, &cfg, workspace->get(), workspace_bytes, stream);
    return record();
  }
  lowp_status record() {
    error = lowp_get_last_error();
    return status;
  }
  std::vector<uint8_t> result() {
    cudaDeviceSynchronize();
    return d.download();
  }
};

// The CPU reference of a problem with a FLOAT32 D: r before D's final rounding (same bias, same
// D_old).
inline std::vector<float> reference_r(HostGemm& g) {
  std::vector<uint8_t> r = g.p.accumulate ? g.d_init : std::vector<uint8_t>(static_cast<size_t>(g.p.m * g.p.n) * 4, 0);
  EXPECT_EQ(run_host_gemm(g, r, LOWP_DTYPE_FLOAT32), LOWP_SUCCESS) << lowp_get_last_error();
  return d_values_of(r, LOWP_DTYPE_FLOAT32);
}

// Runs the problem on the device and checks numerics §8's bound against the CPU reference. The
// bound covers the sums; each fp32 addition after them (+ bias, + D_old) may round the device's
// slightly different value the other way, and cuBLASLt (FP8) makes those additions in an order
// of its own: with a bias or accumulate, two fp32 ulps of |r| + |bias| + |D_old| (a bound on
// every intermediate) widen the check.
inline Tally check_device_against_reference(HostGemm& g, bool without_workspace = false) {
  Tally t;
  const std::string what = g.p.describe() + (without_workspace ? " (no workspace)" : "");
  DeviceGemm dev(g, without_workspace);
  if (dev.run() != LOWP_SUCCESS) {
    t.violations = 1;
    t.first = what + ": lowp_gemm failed: " + dev.error;
    return t;
  }
  const std::vector<float> got = d_values_of(dev.result(), g.p.d_dtype);
  const std::vector<float> r = reference_r(g);
  const Fp64Products prod = fp64_products(dequantized(g.a, a_copy_of(g.p.product)),
                                          dequantized(g.b, b_copy_of(g.p.product)), g.p.m, g.p.n, g.p.k);
  std::vector<double> slack(r.size(), 0.0);
  if (g.p.has_bias() || g.p.accumulate) {
    const std::vector<float> bias = g.p.has_bias() ? d_values_of(g.bias, g.p.bias_dtype()) : std::vector<float>(g.p.n, 0.0f);
    const std::vector<float> old = g.p.accumulate ? d_values_of(g.d_init, g.p.d_dtype) : std::vector<float>(r.size(), 0.0f);
    for (size_t at = 0; at < r.size(); ++at) {
      const double sum = std::fabs(static_cast<double>(r[at])) + std::fabs(static_cast<double>(bias[at % g.p.n])) +
                         std::fabs(static_cast<double>(old[at]));
      slack[at] = 2.0 * ulp_of(sum, LOWP_DTYPE_FLOAT32);
    }
  }
  return check_bound(got, r, prod.abs_sum, slack, g.p.m, g.p.n, device_error_factor(g.p.recipe, g.p.k), g.p.d_dtype,
                     what);
}

inline void print_tally(const char* test, int64_t cases, const Tally& t) {
  std::printf("[gemm gpu %s] %lld cases, %lld elements, %lld violations, %lld without a finite bound, worst "
              "|d - r| / sum|ab| %.3g\n",
              test, static_cast<long long>(cases), static_cast<long long>(t.checked),
              static_cast<long long>(t.violations), static_cast<long long>(t.unbounded), t.worst);
}

}  // namespace lowp_test
