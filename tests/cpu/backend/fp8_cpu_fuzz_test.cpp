// CPU backend on fuzzed adversarial inputs (tests/common/fuzz_values.h) against an oracle built
// from numerics §2 and CUDA's host conversion __nv_cvt_float_to_fp8 (numerics §1), not from src/numerics.
// Covers every recipe, both formats, every input dtype, both orientations, and dequantize.
#include <gtest/gtest.h>

#include <cuda_fp8.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fp8_quant_fixture.h"

using namespace lowp_test;

namespace {

// numerics §2 scale from amax with eps = 0, no power-of-two.
float oracle_scale(float amax, float fmax) {
  if (amax == 0.0f || std::isinf(amax) || std::isnan(amax)) return 1.0f;
  const float s = fmax / amax;
  return std::isinf(s) ? FLT_MAX : s;
}

float oracle_amax(const std::vector<float>& x, int64_t start, int64_t count, int64_t stride) {
  float a = 0.0f;
  for (int64_t i = 0; i < count; ++i) {
    const float v = x[start + i * stride];
    if (std::isnan(v)) return v;
    a = std::max(a, std::fabs(v));
  }
  return a;
}

uint8_t oracle_code(float x, float scale, bool e4) {
  return __nv_cvt_float_to_fp8(x * scale, __NV_SATFINITE, e4 ? __NV_E4M3 : __NV_E5M2);
}

bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

struct Shape { int64_t r, c; };
constexpr Shape kShapes[] = {{1, 1}, {3, 5}, {17, 33}, {130, 7}};

// Checks dequantize of one orientation against decode(code) * scale_inv, rounded by the helpers.
void check_dequant(const Fp8Quant& t, lowp_orientation which, bool e4) {
  const bool rw = which == LOWP_ROWWISE;
  const int64_t R = rw ? t.q.rows : t.q.cols, C = rw ? t.q.cols : t.q.rows;
  const std::vector<uint8_t>& codes = rw ? t.row : t.col;
  const bool per_row = t.q.scaling == LOWP_SCALING_PER_TOKEN;
  std::vector<float> want(R * C);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      const float si = per_row ? (rw ? t.row_si : t.col_si)[r] : t.scale_inv;
      const uint8_t b = codes[r * C + c];
      want[r * C + c] = (e4 ? e4m3_value(b) : e5m2_value(b)) * si;
    }
  for (lowp_dtype out : {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16}) {
    std::vector<uint8_t> got(R * C * dtype_size(out), kPoison);
    lowp_tensor o{got.data(), out, R, C};
    ASSERT_EQ(lowp_dequantize(&t.q, which, &o, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    std::vector<uint8_t> w = encode(want, out);
    // NaN results are canonical (host_device.h): fp32 0x7FFFFFFF, bf16 0x7FFF, fp16 0x7E00.
    const uint32_t nan_bits = out == LOWP_DTYPE_FLOAT32 ? 0x7FFFFFFFu : out == LOWP_DTYPE_BFLOAT16 ? 0x7FFFu : 0x7E00u;
    for (size_t i = 0; i < want.size(); ++i)
      if (std::isnan(want[i])) std::memcpy(&w[i * dtype_size(out)], &nan_bits, dtype_size(out));
    EXPECT_TRUE(bytes_equal(got.data(), w.data(), R, C, dtype_size(out), rw ? "dequant rowwise" : "dequant columnwise",
                            [&](int64_t r, int64_t c) { return "code " + hex_bytes(&codes[r * C + c], 1); }))
        << "out dtype " << out;
  }
}

}  // namespace

TEST(Fp8Fuzz, AllRecipesAgainstOracle) {
  int calls = 0;
  for (lowp_dtype fmt : {LOWP_DTYPE_E4M3, LOWP_DTYPE_E5M2}) {
    const bool e4 = fmt == LOWP_DTYPE_E4M3;
    const float fmax = e4 ? 448.0f : 57344.0f;
    for (lowp_dtype in : {LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16})
      for (Fill fill : kAllFills)
        for (const Shape& s : kShapes)
          for (lowp_scaling sc : {LOWP_SCALING_CURRENT, LOWP_SCALING_DELAYED, LOWP_SCALING_PER_TOKEN}) {
            SCOPED_TRACE(testing::Message() << "fmt " << fmt << " in " << in << " fill " << fill_name(fill)
                                            << " shape " << s.r << "x" << s.c << " scaling " << sc);
            const std::vector<uint8_t> bytes = fuzz_tensor(in, s.r, s.c, fill, 1234 + calls);
            std::vector<float> x(s.r * s.c);
            for (size_t i = 0; i < x.size(); ++i) x[i] = load_float(bytes.data(), in, i);
            Fp8Quant t(fmt, sc, s.r, s.c);
            t.scale = 0.75f;  // delayed reads it
            t.amax = 1.0f;    // delayed folds into it
            lowp_tensor xt{const_cast<uint8_t*>(bytes.data()), in, s.r, s.c};
            ASSERT_EQ(lowp_quantize(&xt, &t.q, nullptr, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
            ++calls;
            // Oracle scales per orientation row (per-tensor: the same for all).
            std::vector<float> rs(s.r), cs(s.c);
            const float tensor_amax = oracle_amax(x, 0, s.r * s.c, 1);
            const float tensor_scale = sc == LOWP_SCALING_DELAYED ? 0.75f : oracle_scale(tensor_amax, fmax);
            for (int64_t r = 0; r < s.r; ++r)
              rs[r] = sc == LOWP_SCALING_PER_TOKEN ? oracle_scale(oracle_amax(x, r * s.c, s.c, 1), fmax) : tensor_scale;
            for (int64_t c = 0; c < s.c; ++c)
              cs[c] = sc == LOWP_SCALING_PER_TOKEN ? oracle_scale(oracle_amax(x, c, s.r, s.c), fmax) : tensor_scale;
            std::vector<uint8_t> want_row(s.r * s.c), want_col(s.r * s.c);
            for (int64_t r = 0; r < s.r; ++r)
              for (int64_t c = 0; c < s.c; ++c) {
                want_row[r * s.c + c] = oracle_code(x[r * s.c + c], rs[r], e4);
                want_col[c * s.r + r] = oracle_code(x[r * s.c + c], cs[c], e4);
              }
            auto describe = [&](int64_t r, int64_t c) {
              char v[32];
              std::snprintf(v, sizeof v, "%.9g", static_cast<double>(x[r * s.c + c]));
              return std::string("x=") + v + " bits " + hex_bytes(&bytes[(r * s.c + c) * dtype_size(in)], dtype_size(in));
            };
            EXPECT_TRUE(bytes_equal(t.row.data(), want_row.data(), s.r, s.c, 1, "rowwise", describe));
            EXPECT_TRUE(bytes_equal(t.col.data(), want_col.data(), s.c, s.r, 1, "columnwise",
                                    [&](int64_t c, int64_t r) { return describe(r, c); }));
            if (sc == LOWP_SCALING_PER_TOKEN) {
              for (int64_t r = 0; r < s.r; ++r) {
                EXPECT_EQ(bits(t.row_si[r]), bits(1.0f / rs[r])) << "row " << r;
                EXPECT_TRUE(same_float(t.row_amax[r], oracle_amax(x, r * s.c, s.c, 1))) << "row " << r;
              }
              for (int64_t c = 0; c < s.c; ++c) {
                EXPECT_EQ(bits(t.col_si[c]), bits(1.0f / cs[c])) << "col " << c;
                EXPECT_TRUE(same_float(t.col_amax[c], oracle_amax(x, c, s.r, s.c))) << "col " << c;
              }
            } else {
              EXPECT_EQ(bits(t.scale), bits(tensor_scale));
              EXPECT_EQ(bits(t.scale_inv), bits(1.0f / tensor_scale));
              const float want_amax = sc == LOWP_SCALING_DELAYED && !std::isnan(tensor_amax)
                                          ? std::max(1.0f, tensor_amax) : tensor_amax;
              EXPECT_TRUE(same_float(t.amax, want_amax)) << t.amax << " vs " << want_amax;
            }
            check_dequant(t, LOWP_ROWWISE, e4);
            check_dequant(t, LOWP_COLUMNWISE, e4);
            if (HasFailure()) return;  // one failing configuration is enough to read
          }
  }
  EXPECT_EQ(calls, 2 * 3 * 7 * 4 * 3);
}
