// CPU backend: FP8 dequantize (both orientations, every output dtype, RNE on the way out).
// Tensors are built by hand, so dequantize is tested on its own, not through quantize.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "fp8_quant_fixture.h"

using namespace lowp_test;

namespace {

// Dequantizes `which` of q into a rows x cols tensor of dtype `out`; returns the raw bytes.
std::vector<uint8_t> dequant(const lowp_quantized_tensor& q, lowp_orientation which, lowp_dtype out) {
  const int64_t r = which == LOWP_ROWWISE ? q.rows : q.cols, c = which == LOWP_ROWWISE ? q.cols : q.rows;
  std::vector<uint8_t> buf(static_cast<size_t>(r * c) * dtype_size(out) + 16, kPoison);
  lowp_tensor t{buf.data(), out, r, c};
  EXPECT_EQ(lowp_dequantize(&q, which, &t, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_TRUE(untouched(buf.data() + buf.size() - 16, 16, "bytes past the output"));
  buf.resize(buf.size() - 16);
  return buf;
}

std::vector<uint8_t> u16(std::initializer_list<uint16_t> v) {
  std::vector<uint8_t> b(v.size() * 2);
  std::memcpy(b.data(), v.begin(), b.size());
  return b;
}
std::vector<uint8_t> f32(std::initializer_list<float> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.begin(), b.size());
  return b;
}

}  // namespace

TEST(Fp8Dequantize, PerTensorBothOrientationsEveryDtype) {
  // Codes of {1, -2, 3.5; 0.5, 7, -0.25} at scale 64 (E4M3), and their transpose.
  std::vector<uint8_t> row = {0x68, 0xF0, 0x76, 0x60, 0x7E, 0xD8}, col = {0x68, 0x60, 0xF0, 0x7E, 0x76, 0xD8};
  float scale_inv = 0.015625f;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E4M3;
  q.scaling = LOWP_SCALING_CURRENT;
  q.rows = 2;
  q.cols = 3;
  q.rowwise.data = row.data();
  q.columnwise.data = col.data();
  q.scale_inv = &scale_inv;
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_FLOAT32), f32({1, -2, 3.5f, 0.5f, 7, -0.25f}), 2, 3, "fp32", 4));
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_COLUMNWISE, LOWP_DTYPE_FLOAT32), f32({1, 0.5f, -2, 7, 3.5f, -0.25f}), 3, 2, "fp32 col", 4));
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_BFLOAT16),
                          u16({0x3F80, 0xC000, 0x4060, 0x3F00, 0x40E0, 0xBE80}), 2, 3, "bf16", 2));
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_COLUMNWISE, LOWP_DTYPE_FLOAT16),
                          u16({0x3C00, 0x3800, 0xC000, 0x4700, 0x4300, 0xB400}), 3, 2, "fp16 col", 2));
  // Delayed scaling reads the same per-tensor scale_inv.
  q.scaling = LOWP_SCALING_DELAYED;
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_FLOAT16),
                          u16({0x3C00, 0xC000, 0x4300, 0x3800, 0x4700, 0xB400}), 2, 3, "fp16", 2));
}

TEST(Fp8Dequantize, PerTokenUsesEachOrientationsRowScales) {
  // E5M2 codes 1, -2 / 1, 57344; rowwise scale_inv per row of x, columnwise per row of xT.
  std::vector<uint8_t> row = {0x3C, 0xC0, 0x3C, 0x7B}, col = {0x3C, 0x3C, 0xC0, 0x7B};
  std::vector<float> row_si = {0.5f, 4}, col_si = {0.25f, 0.125f};
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E5M2;
  q.scaling = LOWP_SCALING_PER_TOKEN;
  q.rows = q.cols = 2;
  q.rowwise = {row.data(), row_si.data(), nullptr};
  q.columnwise = {col.data(), col_si.data(), nullptr};
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_FLOAT32), f32({0.5f, -1, 4, 229376}), 2, 2, "rowwise", 4));
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_COLUMNWISE, LOWP_DTYPE_FLOAT32), f32({0.25f, 0.25f, -0.25f, 7168}), 2, 2, "columnwise", 4));
  // 229376 overflows fp16 (max 65504) -> inf; bf16 holds it (1.75 * 2^17).
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_FLOAT16), u16({0x3800, 0xBC00, 0x4400, 0x7C00}), 2, 2, "fp16", 2));
  EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_BFLOAT16), u16({0x3F00, 0xBF80, 0x4080, 0x4860}), 2, 2, "bf16", 2));
}

// Dequantize does not read a per-token copy's amax, so the output may overlap it (lowp.h: only
// the buffers it reads may not); before, the call was rejected as aliased.
TEST(Fp8Dequantize, PerTokenOutputMayOverlapTheUnreadAmax) {
  std::vector<uint8_t> row = {0x3C, 0xC0, 0x3C, 0x7B}, col = {0x3C, 0x3C, 0xC0, 0x7B};
  std::vector<float> row_si = {0.5f, 4}, col_si = {0.25f, 0.125f};
  std::vector<float> out(4, -1.0f);
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = LOWP_DTYPE_E5M2;
  q.scaling = LOWP_SCALING_PER_TOKEN;
  q.rows = q.cols = 2;
  q.rowwise = {row.data(), row_si.data(), out.data() + 1};  // 2 amaxes inside out
  q.columnwise = {col.data(), col_si.data(), out.data()};
  lowp_tensor t{out.data(), LOWP_DTYPE_FLOAT32, 2, 2};
  ASSERT_EQ(lowp_dequantize(&q, LOWP_ROWWISE, &t, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_TRUE(bytes_equal(out.data(), f32({0.5f, -1, 4, 229376}).data(), 2, 2, 4, "rowwise"));
  ASSERT_EQ(lowp_dequantize(&q, LOWP_COLUMNWISE, &t, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  EXPECT_TRUE(bytes_equal(out.data(), f32({0.25f, 0.25f, -0.25f, 7168}).data(), 2, 2, 4, "columnwise"));
  // The scale_inv it reads still may not overlap.
  q.rowwise.scale_inv = out.data() + 2;
  EXPECT_EQ(lowp_dequantize(&q, LOWP_ROWWISE, &t, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(lowp_get_last_error(), "q->rowwise.scale_inv"), nullptr) << lowp_get_last_error();
}

TEST(Fp8Dequantize, OutputRoundsToNearestEven) {
  // Code 1.0 times scale_inv lands exactly on a tie (or not) of the output format.
  const float sis[] = {1.00390625f, 1.01171875f, 1.00048828125f, 1.00146484375f, 1.0f / 3};
  const uint16_t want_bf16[] = {0x3F80, 0x3F82, 0x3F80, 0x3F80, 0x3EAB};
  const uint16_t want_f16[] = {0x3C04, 0x3C0C, 0x3C00, 0x3C02, 0x3555};
  std::vector<uint8_t> code = {0x38};  // E4M3 1.0
  for (size_t i = 0; i < 5; ++i) {
    float si = sis[i];
    lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E4M3;
    q.scaling = LOWP_SCALING_CURRENT;
    q.rows = q.cols = 1;
    q.rowwise.data = code.data();
    q.scale_inv = &si;
    EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_BFLOAT16), u16({want_bf16[i]}), 1, 1, "bf16", 2)) << si;
    EXPECT_TRUE(bytes_equal(dequant(q, LOWP_ROWWISE, LOWP_DTYPE_FLOAT16), u16({want_f16[i]}), 1, 1, "fp16", 2)) << si;
  }
}

TEST(Fp8Dequantize, SpecialCodes) {
  // E4M3: 0x7F/0xFF NaN, 0x80 -0, 0x01 smallest subnormal 2^-9. E5M2: 0x7C inf, 0xFC -inf, 0x7D NaN.
  // NaN results are the canonical NaN 0x7FFFFFFF (host_device.h: CPU and GPU must agree), which
  // converts to bf16 0x7FFF and fp16 0x7E00.
  const uint32_t kNaNBits = 0x7FFFFFFFu;
  struct Case { lowp_dtype fmt; uint8_t code; uint32_t want; };
  const Case cases[] = {{LOWP_DTYPE_E4M3, 0x7F, kNaNBits},   {LOWP_DTYPE_E4M3, 0xFF, kNaNBits},
                        {LOWP_DTYPE_E4M3, 0x80, 0x80000000u}, {LOWP_DTYPE_E4M3, 0x01, 0x3B000000u},
                        {LOWP_DTYPE_E5M2, 0x7C, 0x7F800000u}, {LOWP_DTYPE_E5M2, 0xFC, 0xFF800000u},
                        {LOWP_DTYPE_E5M2, 0x7D, kNaNBits},   {LOWP_DTYPE_E5M2, 0x01, 0x37800000u}};
  for (const Case& c : cases) {
    std::vector<uint8_t> code = {c.code};
    float si = 1.0f;
    lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = c.fmt;
    q.scaling = LOWP_SCALING_DELAYED;
    q.rows = q.cols = 1;
    q.columnwise.data = code.data();
    q.scale_inv = &si;
    const bool nan = c.want == kNaNBits;
    const uint16_t bf = nan ? 0x7FFF : static_cast<uint16_t>(c.want >> 16);  // all exact in bf16
    const uint16_t h = nan ? 0x7E00 : float_to_f16(f32_from_bits(c.want));
    SCOPED_TRACE(testing::Message() << "code " << int(c.code));
    EXPECT_TRUE(bytes_equal(dequant(q, LOWP_COLUMNWISE, LOWP_DTYPE_FLOAT32), f32({f32_from_bits(c.want)}), 1, 1, "fp32", 4));
    EXPECT_TRUE(bytes_equal(dequant(q, LOWP_COLUMNWISE, LOWP_DTYPE_BFLOAT16), u16({bf}), 1, 1, "bf16", 2));
    EXPECT_TRUE(bytes_equal(dequant(q, LOWP_COLUMNWISE, LOWP_DTYPE_FLOAT16), u16({h}), 1, 1, "fp16", 2));
  }
}
