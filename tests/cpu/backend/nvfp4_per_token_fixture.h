// Host buffers of one NVFP4 per-token quantize call (one amax per orientation row), poisoned so
// a test can tell written bytes from untouched ones, plus the comparison against the per-token
// oracle.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nvfp4_fixture.h"
#include "nvfp4_per_token_oracle.h"

namespace lowp_test {

inline lowp_quant_config default_config() {
  lowp_quant_config c;
  lowp_quant_config_default(&c);
  return c;
}

struct Nvfp4PtQuant {
  int64_t M, K;
  std::vector<uint8_t> row, col, row_scales, col_scales;
  std::vector<float> row_amax, col_amax;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;

  Nvfp4PtQuant(int64_t m, int64_t k, bool want_row, bool want_col,
               lowp_scale_layout layout = LOWP_SCALE_LAYOUT_COMPACT)
      : M(m), K(k), row(m * k / 2, kPoison), col(m * k / 2, kPoison),
        row_scales(padded_scale_bytes(m, k / 16), kPoison),
        col_scales(padded_scale_bytes(k, m / 16 > 0 ? m / 16 : 1), kPoison), row_amax(m), col_amax(k) {
    poison(row_amax.data(), row_amax.size() * 4);
    poison(col_amax.data(), col_amax.size() * 4);
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
    q.scale_layout = layout;
    q.rows = m;
    q.cols = k;
    q.rowwise = {want_row ? row.data() : nullptr, row_scales.data(), row_amax.data()};
    q.columnwise = {want_col ? col.data() : nullptr, col_scales.data(), col_amax.data()};
  }
  Nvfp4PtQuant(const Nvfp4PtQuant&) = delete;
  Nvfp4PtQuant& operator=(const Nvfp4PtQuant&) = delete;

  // x: M*K elements of dtype dt (raw bytes).
  lowp_status run(const std::vector<uint8_t>& x, lowp_dtype dt, const lowp_quant_config* cfg = nullptr) {
    lowp_tensor t{const_cast<uint8_t*>(x.data()), dt, M, K};
    return lowp_quantize(&t, &q, cfg, nullptr);
  }
  lowp_status run(const std::vector<float>& x, const lowp_quant_config* cfg = nullptr) {
    return run(encode(x, LOWP_DTYPE_FLOAT32), LOWP_DTYPE_FLOAT32, cfg);
  }

  // Dequantizes one orientation into fp32.
  std::vector<float> dequantize(lowp_orientation w) const {
    const int64_t rows = w == LOWP_ROWWISE ? M : K, cols = w == LOWP_ROWWISE ? K : M;
    std::vector<float> out(rows * cols);
    lowp_tensor o{out.data(), LOWP_DTYPE_FLOAT32, rows, cols};
    EXPECT_EQ(lowp_dequantize(&q, w, &o, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    return out;
  }
};

inline ::testing::AssertionResult amaxes_equal(const float* got, const std::vector<float>& want, const char* what) {
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string name = std::string(what) + " row " + std::to_string(i);
    auto r = amax_equal(got[i], want[i], name.c_str());
    if (!r) return r;
  }
  return ::testing::AssertionSuccess();
}

// One orientation (codes, compact scales, per-row amaxes) against the per-token oracle.
inline ::testing::AssertionResult matches_pt_oracle(const uint8_t* codes, const std::vector<uint8_t>& scales,
                                                    const float* amax, const nvfp4_per_token_oracle::PtResult& want,
                                                    const char* what) {
  auto r = codes_and_scales_match(codes, scales, want, what);
  if (!r) return r;
  return amaxes_equal(amax, want.amaxes, what);
}

}  // namespace lowp_test
