// lowp_quantized_layout_query / lowp_quantized_tensor_from_layout (lowp.h): every recipe, each
// part set, odd shapes. The laid-out buffers are the size query's, aligned and disjoint, and a
// tensor pointed into one allocation quantizes and dequantizes to the bytes of separately
// allocated buffers. Also the per-token role defaults (lowp_quant_config_nvfp4_per_token).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/compare.h"
#include "lowp/lowp.h"

using namespace lowp_test;

namespace {

struct Recipe {
  lowp_dtype dtype;
  lowp_scaling scaling;
};
const Recipe kRecipes[] = {
    {LOWP_DTYPE_E4M3, LOWP_SCALING_DELAYED},          {LOWP_DTYPE_E5M2, LOWP_SCALING_CURRENT},
    {LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN},        {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR},
    {LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN},
};
const lowp_parts kParts[] = {LOWP_PARTS_ROWWISE, LOWP_PARTS_COLUMNWISE, LOWP_PARTS_BOTH};

bool nvfp4(const Recipe& r) { return r.dtype == LOWP_DTYPE_E2M1; }

// Odd shapes each recipe takes (NVFP4: K % 16 == 0; the columnwise copy needs M % 16 == 0).
std::vector<std::pair<int64_t, int64_t>> shapes_of(const Recipe& r) {
  if (nvfp4(r)) return {{16, 16}, {48, 80}, {32, 1040}, {7, 32}, {130, 48}};
  return {{1, 1}, {3, 5}, {17, 33}, {129, 7}};
}

bool wants_col(lowp_parts p) { return p != LOWP_PARTS_ROWWISE; }
bool wants_row(lowp_parts p) { return p != LOWP_PARTS_COLUMNWISE; }

// Memory aligned to LOWP_LAYOUT_ALIGNMENT.
struct Aligned {
  void* p;
  explicit Aligned(size_t bytes) : p(std::aligned_alloc(LOWP_LAYOUT_ALIGNMENT, bytes == 0 ? LOWP_LAYOUT_ALIGNMENT : bytes)) {}
  ~Aligned() { std::free(p); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
};

// The buffers of lowp_quantized_sizes_query, each allocated alone.
struct Separate {
  std::vector<uint8_t> data[2], scale_inv[2], amax[2], scale, tensor_scale_inv, tensor_amax;
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  Separate(const Recipe& r, int64_t rows, int64_t cols, lowp_parts parts) {
    lowp_quantized_sizes s;
    EXPECT_EQ(lowp_quantized_sizes_query(r.dtype, r.scaling, rows, cols, &s), LOWP_SUCCESS) << lowp_get_last_error();
    q.dtype = r.dtype;
    q.scaling = r.scaling;
    q.rows = rows;
    q.cols = cols;
    const bool want[2] = {wants_row(parts), wants_col(parts)};
    lowp_quantized_part* p[2] = {&q.rowwise, &q.columnwise};
    for (int i = 0; i < 2; ++i) {
      if (!want[i]) continue;
      data[i].assign(s.data_bytes[i], 0);
      scale_inv[i].assign(s.scale_inv_bytes[i] + 4, 0);  // +4: never an empty vector's NULL data()
      amax[i].assign(s.amax_bytes[i] + 4, 0);
      *p[i] = {data[i].data(), s.scale_inv_bytes[i] ? scale_inv[i].data() : nullptr,
               s.amax_bytes[i] ? reinterpret_cast<float*>(amax[i].data()) : nullptr};
    }
    if (s.tensor_scale_bytes) {
      scale.assign(4, 0);
      tensor_scale_inv.assign(4, 0);
      tensor_amax.assign(4, 0);
      q.scale = reinterpret_cast<float*>(scale.data());
      q.scale_inv = reinterpret_cast<float*>(tensor_scale_inv.data());
      q.amax = reinterpret_cast<float*>(tensor_amax.data());
    }
  }
};

std::vector<float> input(int64_t rows, int64_t cols) {
  std::vector<float> x(static_cast<size_t>(rows * cols));
  uint32_t s = 12345;
  for (float& v : x) {
    s = s * 1664525u + 1013904223u;
    v = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 8.0f;
  }
  return x;
}

lowp_quant_config config_of(const Recipe& r) {
  lowp_quant_config c;
  if (r.scaling == LOWP_SCALING_NVFP4_PER_TENSOR) lowp_quant_config_nvfp4(LOWP_ROLE_INPUT, &c);
  else if (r.scaling == LOWP_SCALING_NVFP4_PER_TOKEN) lowp_quant_config_nvfp4_per_token(LOWP_ROLE_INPUT, &c);
  else lowp_quant_config_default(&c);
  return c;
}

// The buffer of `bytes` at `p` (NULL when bytes is 0) compared with `want`'s first bytes.
::testing::AssertionResult same_buffer(const void* p, const std::vector<uint8_t>& want, size_t bytes, const char* what) {
  if (bytes == 0) return p == nullptr ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << what << " set";
  return bytes_equal(p, want.data(), 1, static_cast<int64_t>(bytes), 1, what);
}

TEST(QuantizedLayout, EveryRecipePartsAndShape) {
  int laid_out = 0;
  for (const Recipe& r : kRecipes) {
    for (const auto& [rows, cols] : shapes_of(r)) {
      for (lowp_parts parts : kParts) {
        SCOPED_TRACE(std::to_string(r.dtype) + "/" + std::to_string(r.scaling) + " " + std::to_string(rows) + " x " +
                     std::to_string(cols) + " parts " + std::to_string(parts));
        lowp_quantized_layout L = LOWP_QUANTIZED_LAYOUT_INIT;
        const lowp_status st = lowp_quantized_layout_query(r.dtype, r.scaling, rows, cols, parts, &L);
        if (nvfp4(r) && wants_col(parts) && rows % 16 != 0) {  // no columnwise NVFP4 copy: rejected, named
          EXPECT_EQ(st, LOWP_ERROR_INVALID_ARGUMENT);
          EXPECT_NE(std::string(lowp_get_last_error()).find("requests the columnwise copy"), std::string::npos)
              << lowp_get_last_error();
          continue;
        }
        ASSERT_EQ(st, LOWP_SUCCESS) << lowp_get_last_error();
        ++laid_out;
        EXPECT_EQ(L.struct_size, sizeof L);
        EXPECT_EQ(L.dtype, r.dtype);
        EXPECT_EQ(L.scaling, r.scaling);
        EXPECT_EQ(L.rows, rows);
        EXPECT_EQ(L.cols, cols);
        EXPECT_EQ(L.parts, parts);

        // Sizes: the size query's for the requested parts, 0 for the others.
        lowp_quantized_sizes s;
        ASSERT_EQ(lowp_quantized_sizes_query(r.dtype, r.scaling, rows, cols, &s), LOWP_SUCCESS);
        const bool want[2] = {wants_row(parts), wants_col(parts)};
        for (int i = 0; i < 2; ++i) {
          EXPECT_EQ(L.sizes.data_bytes[i], want[i] ? s.data_bytes[i] : 0u) << i;
          EXPECT_EQ(L.sizes.scale_inv_bytes[i], want[i] ? s.scale_inv_bytes[i] : 0u) << i;
          EXPECT_EQ(L.sizes.amax_bytes[i], want[i] ? s.amax_bytes[i] : 0u) << i;
        }
        EXPECT_EQ(L.sizes.tensor_scale_bytes, s.tensor_scale_bytes);

        // Offsets: aligned, inside total_bytes, disjoint.
        const size_t sizes[9] = {L.sizes.data_bytes[0],      L.sizes.data_bytes[1],      L.sizes.scale_inv_bytes[0],
                                 L.sizes.scale_inv_bytes[1], L.sizes.amax_bytes[0],      L.sizes.amax_bytes[1],
                                 L.sizes.tensor_scale_bytes, L.sizes.tensor_scale_bytes, L.sizes.tensor_scale_bytes};
        const size_t offsets[9] = {L.data_offset[0],      L.data_offset[1], L.scale_inv_offset[0],
                                   L.scale_inv_offset[1], L.amax_offset[0], L.amax_offset[1],
                                   L.tensor_scale_offset, L.tensor_scale_inv_offset, L.tensor_amax_offset};
        EXPECT_EQ(L.total_bytes % LOWP_LAYOUT_ALIGNMENT, 0u);
        for (int i = 0; i < 9; ++i) {
          if (sizes[i] == 0) {
            EXPECT_EQ(offsets[i], 0u) << i;
            continue;
          }
          EXPECT_EQ(offsets[i] % LOWP_LAYOUT_ALIGNMENT, 0u) << i;
          EXPECT_LE(offsets[i] + sizes[i], L.total_bytes) << i;
          for (int j = 0; j < i; ++j) {
            if (sizes[j] == 0) continue;
            EXPECT_TRUE(offsets[i] >= offsets[j] + sizes[j] || offsets[j] >= offsets[i] + sizes[i]) << i << " " << j;
          }
        }

        // The laid-out tensor: pointers at base + offset, NULL where nothing is laid out.
        Aligned mem(L.total_bytes);
        std::memset(mem.p, 0, L.total_bytes);
        lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
        q.scale_layout = LOWP_SCALE_LAYOUT_SWIZZLED;  // kept
        ASSERT_EQ(lowp_quantized_tensor_from_layout(&L, mem.p, &q), LOWP_SUCCESS) << lowp_get_last_error();
        auto* base = static_cast<uint8_t*>(mem.p);
        const auto at = [&](size_t bytes, size_t offset) -> void* { return bytes ? base + offset : nullptr; };
        EXPECT_EQ(q.struct_size, sizeof q);
        EXPECT_EQ(q.dtype, r.dtype);
        EXPECT_EQ(q.scaling, r.scaling);
        EXPECT_EQ(q.scale_layout, LOWP_SCALE_LAYOUT_SWIZZLED);
        EXPECT_EQ(q.rows, rows);
        EXPECT_EQ(q.cols, cols);
        EXPECT_EQ(q.rowwise.data, at(sizes[0], offsets[0]));
        EXPECT_EQ(q.columnwise.data, at(sizes[1], offsets[1]));
        EXPECT_EQ(q.rowwise.scale_inv, at(sizes[2], offsets[2]));
        EXPECT_EQ(q.columnwise.scale_inv, at(sizes[3], offsets[3]));
        EXPECT_EQ(static_cast<void*>(q.rowwise.amax), at(sizes[4], offsets[4]));
        EXPECT_EQ(static_cast<void*>(q.columnwise.amax), at(sizes[5], offsets[5]));
        EXPECT_EQ(static_cast<void*>(q.scale), at(sizes[6], offsets[6]));
        EXPECT_EQ(static_cast<void*>(q.scale_inv), at(sizes[7], offsets[7]));
        EXPECT_EQ(static_cast<void*>(q.amax), at(sizes[8], offsets[8]));
        q.scale_layout = LOWP_SCALE_LAYOUT_COMPACT;

        // It quantizes and dequantizes as separately allocated buffers do.
        std::vector<float> x = input(rows, cols);
        const lowp_tensor xt = {x.data(), LOWP_DTYPE_FLOAT32, rows, cols};
        const lowp_quant_config cfg = config_of(r);
        Separate sep(r, rows, cols, parts);
        if (q.scale) *q.scale = *sep.q.scale = 2.0f;  // delayed scaling reads it
        ASSERT_EQ(lowp_quantize(&xt, &q, &cfg, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
        ASSERT_EQ(lowp_quantize(&xt, &sep.q, &cfg, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
        for (int i = 0; i < 2; ++i) {
          const lowp_quantized_part& p = i == 0 ? q.rowwise : q.columnwise;
          EXPECT_TRUE(same_buffer(p.data, sep.data[i], sizes[i], "codes"));
          EXPECT_TRUE(same_buffer(p.scale_inv, sep.scale_inv[i], sizes[2 + i], "scale_inv"));
          EXPECT_TRUE(same_buffer(p.amax, sep.amax[i], sizes[4 + i], "amax"));
        }
        EXPECT_TRUE(same_buffer(q.scale_inv, sep.tensor_scale_inv, sizes[7], "tensor scale_inv"));
        EXPECT_TRUE(same_buffer(q.amax, sep.tensor_amax, sizes[8], "tensor amax"));
        for (lowp_orientation w : {LOWP_ROWWISE, LOWP_COLUMNWISE}) {
          if (!want[w]) continue;
          const int64_t orows = w == LOWP_ROWWISE ? rows : cols, ocols = w == LOWP_ROWWISE ? cols : rows;
          std::vector<float> got(x.size()), expect(x.size());
          lowp_tensor g = {got.data(), LOWP_DTYPE_FLOAT32, orows, ocols}, e = {expect.data(), LOWP_DTYPE_FLOAT32, orows, ocols};
          ASSERT_EQ(lowp_dequantize(&q, w, &g, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          ASSERT_EQ(lowp_dequantize(&sep.q, w, &e, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
          EXPECT_TRUE(float_bits_equal(got.data(), expect.data(), got.size(), "dequantized"));
        }
      }
    }
  }
  EXPECT_GE(laid_out, 50);
}

TEST(QuantizedLayout, NvFp4BothPartsOneAllocationExample) {
  // lowp.h's example: NVFP4 per-token, both copies, M x K = 64 x 256.
  lowp_quantized_layout L = LOWP_QUANTIZED_LAYOUT_INIT;
  ASSERT_EQ(lowp_quantized_layout_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, 64, 256, LOWP_PARTS_BOTH, &L),
            LOWP_SUCCESS);
  // codes 8192 each; scales [128][16] and [256][4] = 2048 and 1024; amaxes 256 and 1024 bytes.
  EXPECT_EQ(L.data_offset[0], 0u);
  EXPECT_EQ(L.data_offset[1], 8192u);
  EXPECT_EQ(L.scale_inv_offset[0], 16384u);
  EXPECT_EQ(L.scale_inv_offset[1], 18432u);
  EXPECT_EQ(L.amax_offset[0], 19456u);
  EXPECT_EQ(L.amax_offset[1], 19712u);
  EXPECT_EQ(L.total_bytes, 20736u);
}

TEST(QuantizedLayout, ErrorsNameTheArgumentAndWriteNothing) {
  lowp_quantized_layout L = LOWP_QUANTIZED_LAYOUT_INIT;
  const auto rejects = [&](lowp_status got, const char* mentions) {
    EXPECT_EQ(got, LOWP_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(lowp_get_last_error()).find(mentions), std::string::npos) << lowp_get_last_error();
  };
  poison(&L, sizeof L);
  L.struct_size = sizeof L;
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, 24, 32, LOWP_PARTS_BOTH, &L),
          "parts LOWP_PARTS_BOTH requests the columnwise copy");
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 4, 4, static_cast<lowp_parts>(0), &L),
          "parts is 0 (not a lowp_parts)");
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 4, 4, static_cast<lowp_parts>(4), &L),
          "parts is 4 (not a lowp_parts)");
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E4M3, LOWP_SCALING_NVFP4_PER_TOKEN, 4, 4, LOWP_PARTS_BOTH, &L),
          "scaling LOWP_SCALING_NVFP4_PER_TOKEN does not fit dtype LOWP_DTYPE_E4M3");
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TENSOR, 16, 24, LOWP_PARTS_ROWWISE, &L),
          "K % 16");
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 0, 4, LOWP_PARTS_BOTH, &L),
          "rows x cols is 0 x 4");
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 4, 4, LOWP_PARTS_BOTH, nullptr),
          "layout is NULL");
  L.struct_size = 0;
  rejects(lowp_quantized_layout_query(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, 4, 4, LOWP_PARTS_BOTH, &L),
          "lowp_quantized_layout_init");
  L.struct_size = sizeof L;
  EXPECT_TRUE(untouched(reinterpret_cast<uint8_t*>(&L) + sizeof L.struct_size, sizeof L - sizeof L.struct_size));

  ASSERT_EQ(lowp_quantized_layout_query(LOWP_DTYPE_E4M3, LOWP_SCALING_PER_TOKEN, 5, 7, LOWP_PARTS_BOTH, &L), LOWP_SUCCESS);
  Aligned mem(L.total_bytes + LOWP_LAYOUT_ALIGNMENT);
  lowp_quantized_tensor q;
  poison(&q, sizeof q);
  q.struct_size = sizeof q;
  rejects(lowp_quantized_tensor_from_layout(&L, static_cast<uint8_t*>(mem.p) + 16, &q), "base is not aligned to 256");
  rejects(lowp_quantized_tensor_from_layout(&L, nullptr, &q), "base is NULL");
  rejects(lowp_quantized_tensor_from_layout(nullptr, mem.p, &q), "layout is NULL");
  rejects(lowp_quantized_tensor_from_layout(&L, mem.p, nullptr), "q is NULL");
  lowp_quantized_layout tampered = L;
  tampered.amax_offset[1] += LOWP_LAYOUT_ALIGNMENT;
  rejects(lowp_quantized_tensor_from_layout(&tampered, mem.p, &q), "layout's sizes or offsets differ");
  tampered = L;
  tampered.rows = 6;  // the offsets of 5 rows do not fit 6
  rejects(lowp_quantized_tensor_from_layout(&tampered, mem.p, &q), "layout's sizes or offsets differ");
  tampered = L;
  tampered.parts = static_cast<lowp_parts>(9);
  rejects(lowp_quantized_tensor_from_layout(&tampered, mem.p, &q), "layout->parts is 9 (not a lowp_parts)");
  q.struct_size = 0;
  rejects(lowp_quantized_tensor_from_layout(&L, mem.p, &q), "lowp_quantized_tensor_init");
  q.struct_size = sizeof q;
  EXPECT_TRUE(untouched(reinterpret_cast<uint8_t*>(&q) + sizeof q.struct_size, sizeof q - sizeof q.struct_size));
}

// A base whose allocation would run past the end of the address space is rejected like any other
// bad count (before: success, with pointers wrapped around to low addresses, and UBSan's pointer
// overflow). Nothing is read or written at base, so any address can be tried.
TEST(QuantizedLayout, BaseNearTheEndOfTheAddressSpace) {
  lowp_quantized_layout L = LOWP_QUANTIZED_LAYOUT_INIT;
  ASSERT_EQ(lowp_quantized_layout_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, 64, 64, LOWP_PARTS_BOTH, &L),
            LOWP_SUCCESS);
  ASSERT_GT(L.total_bytes, size_t{LOWP_LAYOUT_ALIGNMENT});
  constexpr uintptr_t kTop = UINTPTR_MAX & ~uintptr_t{LOWP_LAYOUT_ALIGNMENT - 1};  // the last aligned address
  lowp_quantized_tensor q;
  poison(&q, sizeof q);
  q.struct_size = sizeof q;
  for (const uintptr_t at : {kTop, kTop - L.total_bytes + LOWP_LAYOUT_ALIGNMENT}) {
    EXPECT_EQ(lowp_quantized_tensor_from_layout(&L, reinterpret_cast<void*>(at), &q), LOWP_ERROR_INVALID_ARGUMENT);
    const std::string m = lowp_get_last_error();
    EXPECT_NE(m.find("base is"), std::string::npos) << m;
    EXPECT_NE(m.find("runs past the end of the address space"), std::string::npos) << m;
    EXPECT_TRUE(untouched(reinterpret_cast<uint8_t*>(&q) + sizeof q.struct_size, sizeof q - sizeof q.struct_size));
  }
  // The last allocation that fits: it ends at the last aligned address.
  const uintptr_t fits = kTop - L.total_bytes;
  ASSERT_EQ(lowp_quantized_tensor_from_layout(&L, reinterpret_cast<void*>(fits), &q), LOWP_SUCCESS)
      << lowp_get_last_error();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q.rowwise.data), fits + L.data_offset[0]);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q.columnwise.amax), fits + L.amax_offset[1]);
}

TEST(QuantizedLayout, InitialisersSetStructSize) {
  lowp_quantized_layout a;
  poison(&a, sizeof a);
  lowp_quantized_layout_init(&a);
  const lowp_quantized_layout b = LOWP_QUANTIZED_LAYOUT_INIT;
  EXPECT_EQ(a.struct_size, sizeof a);
  EXPECT_EQ(b.struct_size, sizeof b);
  EXPECT_EQ(a.total_bytes, 0u);
  lowp_quantized_layout_init(nullptr);  // no crash
}

// Per-token role defaults (numerics §5): every role gives a config the per-token recipe takes,
// RHT and SR off; lowp_quant_config_nvfp4(LOWP_ROLE_WEIGHT) sets block_2d, which it rejects.
TEST(PerTokenRoleDefaults, EveryRoleIsUsableWithThePerTokenRecipe) {
  constexpr int64_t M = 32, K = 64;
  std::vector<float> x = input(M, K);
  const lowp_tensor xt = {x.data(), LOWP_DTYPE_FLOAT32, M, K};
  lowp_quantized_layout L = LOWP_QUANTIZED_LAYOUT_INIT;
  ASSERT_EQ(lowp_quantized_layout_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, M, K, LOWP_PARTS_BOTH, &L),
            LOWP_SUCCESS);
  Aligned mem(L.total_bytes);
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  ASSERT_EQ(lowp_quantized_tensor_from_layout(&L, mem.p, &q), LOWP_SUCCESS) << lowp_get_last_error();
  lowp_quant_config plain;
  lowp_quant_config_default(&plain);
  for (int role : {int{LOWP_ROLE_INPUT}, int{LOWP_ROLE_WEIGHT}, int{LOWP_ROLE_GRADIENT}, 7}) {  // 7: no lowp_tensor_role
    SCOPED_TRACE(role);
    lowp_quant_config c;
    poison(&c, sizeof c);
    lowp_quant_config_nvfp4_per_token(static_cast<lowp_tensor_role>(role), &c);
    EXPECT_EQ(c.struct_size, sizeof c);
    EXPECT_EQ(c.rht, 0);
    EXPECT_EQ(c.stochastic_rounding, 0);
    EXPECT_EQ(c.block_2d, 0);
    EXPECT_EQ(c.amax_estimation, 0);
    EXPECT_EQ(c.amax_given, 0);
    EXPECT_EQ(c.rng_state, nullptr);
    EXPECT_EQ(c.amax_epsilon, plain.amax_epsilon);  // the plain defaults, as numerics §5 says
    EXPECT_EQ(c.power_of_two_scale, plain.power_of_two_scale);
    EXPECT_EQ(c.rht_sign_mask, plain.rht_sign_mask);
    EXPECT_EQ(c.amax_estimation_factor, plain.amax_estimation_factor);
    EXPECT_EQ(c.group_row_multiple, plain.group_row_multiple);
    EXPECT_EQ(lowp_quantize(&xt, &q, &c, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
    c.rht = 1;  // asked for: accepted as it is
    EXPECT_EQ(lowp_quantize(&xt, &q, &c, nullptr), LOWP_SUCCESS) << lowp_get_last_error();
  }
  lowp_quant_config w;
  lowp_quant_config_nvfp4(LOWP_ROLE_WEIGHT, &w);
  EXPECT_EQ(lowp_quantize(&xt, &q, &w, nullptr), LOWP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lowp_get_last_error()).find("cfg->block_2d"), std::string::npos) << lowp_get_last_error();
  lowp_quant_config_nvfp4_per_token(LOWP_ROLE_INPUT, nullptr);  // no crash
}

}  // namespace
