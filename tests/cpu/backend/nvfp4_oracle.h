// An independent NVFP4 per-tensor quantizer written from docs/numerics.md (§3, §4, §6, §7), for
// the CPU backend tests. It shares no code with src/numerics: the scalar conversions are CUDA's
// own host functions (__nv_cvt_float_to_fp4 / __nv_cvt_float_to_fp8, numerics §1), the block
// decode table is numerics §1's, SR bits come straight from cuRAND's Philox4x32-10 as numerics §7 wires
// it, and the RHT is numerics §7's butterfly order with bf16 rounding from tests/common.
// Slow and simple on purpose: one block at a time, in the order docs/numerics.md states.
#pragma once
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#include <vector_functions.h>
#include <vector_types.h>
#if !defined(QUALIFIERS)
#define QUALIFIERS static __forceinline__ __host__ __device__
#endif
#include <curand_philox4x32_x.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#include "fp8_quant_fixture.h"  // e4m3_value: independent E4M3 decoder
#include "common/fuzz_values.h"

namespace nvfp4_oracle {

using lowp_test::e4m3_value;

inline uint8_t e4m3(float x) { return static_cast<uint8_t>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)); }
inline uint8_t e2m1(float x) { return static_cast<uint8_t>(__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest) & 0xF); }
inline float e2m1_value(uint8_t c) {
  static const float kTable[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float v = kTable[c & 7];
  return (c & 8) ? -v : v;
}

// max |v| over a set; any NaN makes it NaN (numerics §0).
inline float amax_of(const float* v, size_t n, size_t stride = 1) {
  float m = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    const float a = std::fabs(v[i * stride]);
    if (std::isnan(a)) return NAN;
    if (a > m) m = a;
  }
  return m;
}

// numerics §3.
inline float encode_scale(float amax) {
  const float s = std::fmin(2688.0f / amax, FLT_MAX);
  return (amax == 0.0f || s == 0.0f) ? 1.0f : s;
}
inline uint8_t block_scale(float b, float s_enc) { return e4m3(std::fmin(b * (s_enc * (1.0f / 6)), FLT_MAX)); }
inline float multiplier(uint8_t s, float s_enc) {
  const float s_dec = 1.0f / s_enc;
  return std::fmin(1.0f / (e4m3_value(s) * s_dec), FLT_MAX);
}
inline float dequantize(uint8_t code, uint8_t s, float amax) {
  return e2m1_value(code) * (e4m3_value(s) * amax * (1.0f / 2688));
}

// numerics §7 SR: Philox4x32-10, key (lo(seed), hi(seed)), counter (lo(b), hi(b) | col << 31,
// lo(offset), hi(offset)); element j takes byte j % 4 of word j / 4.
inline uint32_t sr_random_byte(uint64_t seed, uint64_t offset, uint64_t block, bool columnwise, int j) {
  const uint4 ctr = make_uint4(static_cast<uint32_t>(block),
                               static_cast<uint32_t>(block >> 32) | (columnwise ? 0x80000000u : 0u),
                               static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32));
  const uint4 r = curand_Philox4x32_10(ctr, make_uint2(static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)));
  const uint32_t words[4] = {r.x, r.y, r.z, r.w};
  return (words[j / 4] >> (8 * (j % 4))) & 0xFF;
}
inline uint8_t e2m1_sr(float v, uint32_t r) {
  const float a = std::fabs(v);
  if (std::isnan(a)) return e2m1(v);
  const float step = a < 2.0f ? 0.5f : a < 4.0f ? 1.0f : 2.0f;
  const float t = a + (static_cast<float>(r) / 256.0f) * step;
  uint8_t mag = 0;
  for (uint8_t c = 0; c < 8; ++c)
    if (e2m1_value(c) <= t) mag = c;  // largest E2M1 value <= t; 6 caps it
  return static_cast<uint8_t>((std::signbit(v) ? 8 : 0) | mag);
}

// numerics §7 RHT16, unnormalised: sign flips, then butterflies of stride 1, 2, 4, 8 in fp32.
inline void rht16(float v[16], uint32_t mask) {
  for (int i = 0; i < 16; ++i)
    if ((mask >> i) & 1u) v[i] = -v[i];
  for (int h = 1; h < 16; h *= 2)
    for (int i = 0; i < 16; ++i)
      if ((i & h) == 0) {
        const float a = v[i], b = v[i + h];
        v[i] = a + b;
        v[i + h] = a - b;
      }
}

// The per-tensor recipe's RHT: RHT16, then x 0.25 and bf16 RNE rounding (numerics §4).
inline void rht16_bf16(float v[16], uint32_t mask) {
  rht16(v, mask);
  for (int i = 0; i < 16; ++i) v[i] = lowp_test::bf16_to_float(lowp_test::float_to_bf16(v[i] * 0.25f));
}

struct Config {
  bool columnwise = false;
  bool rht = false;
  uint32_t mask = 0xD7E8u;
  bool block_2d = false;
  bool sr = false;
  uint64_t seed = 0, offset = 0;
  bool estimate = false;
  float factor = 2.0f;
  bool given = false;  // use given_amax as this orientation's outer amax
  float given_amax = 0.0f;
};

struct Result {
  int64_t rows = 0, cols = 0;    // of the orientation
  std::vector<float> values;     // rows x cols values the encoder sees (x, x^T or RHT(x^T))
  float amax = 0.0f;             // this orientation's outer amax
  std::vector<uint8_t> codes;    // rows x cols/2 packed
  std::vector<uint8_t> scales;   // compact [roundup(rows,128)][roundup(cols/16,4)], zero padded
  int64_t scale_cols = 0;        // roundup(cols/16, 4)
};

// One orientation of x (M x K): rows x cols values (x, or x^T when columnwise), zero codes and a
// zero compact scale array [roundup(rows,128)][roundup(cols/16,4)].
inline Result orientation_of(const std::vector<float>& x, int64_t M, int64_t K, bool columnwise) {
  Result r;
  r.rows = columnwise ? K : M;
  r.cols = columnwise ? M : K;
  r.values.resize(static_cast<size_t>(M * K));
  for (int64_t i = 0; i < r.rows; ++i)
    for (int64_t j = 0; j < r.cols; ++j) r.values[i * r.cols + j] = columnwise ? x[j * K + i] : x[i * K + j];
  r.scale_cols = (r.cols / 16 + 3) / 4 * 4;
  r.scales.assign(static_cast<size_t>((r.rows + 127) / 128 * 128 * r.scale_cols), 0);
  r.codes.assign(static_cast<size_t>(r.rows * r.cols / 2), 0);
  return r;
}

// Stores the code of element (i, j): element 2k in bits 3:0 of byte k, 2k+1 in bits 7:4.
inline void put_code(Result& r, int64_t i, int64_t j, uint8_t code) {
  uint8_t& byte = r.codes[(i * r.cols + j) / 2];
  byte = static_cast<uint8_t>(byte | (j % 2 ? code << 4 : code));
}

// x: M x K floats (the decoded input). One orientation of the per-tensor recipe.
inline Result quantize(const std::vector<float>& x, int64_t M, int64_t K, const Config& c) {
  Result r = orientation_of(x, M, K, c.columnwise);
  const float a_row = amax_of(x.data(), x.size());
  if (c.columnwise && c.rht) {
    for (int64_t i = 0; i < r.rows; ++i)
      for (int64_t j = 0; j < r.cols; j += 16) rht16_bf16(&r.values[i * r.cols + j], c.mask);
    r.amax = c.estimate ? a_row * c.factor : amax_of(r.values.data(), r.values.size());
  } else {
    r.amax = a_row;
  }
  if (c.given) r.amax = c.given_amax;
  const float s_enc = encode_scale(r.amax);
  const int64_t blocks = r.cols / 16;
  for (int64_t i = 0; i < r.rows; ++i) {
    for (int64_t jb = 0; jb < blocks; ++jb) {
      const float* v = &r.values[i * r.cols + jb * 16];
      float b;
      if (c.block_2d) {  // the 16x16 tile of x holding this block
        const int64_t tr = (c.columnwise ? jb : i / 16) * 16, tc = (c.columnwise ? i / 16 : jb) * 16;
        b = 0.0f;
        for (int64_t rr = 0; rr < 16; ++rr) {
          const float t = amax_of(&x[(tr + rr) * K + tc], 16);
          b = std::isnan(t) || std::isnan(b) ? NAN : std::fmax(b, t);
        }
      } else {
        b = amax_of(v, 16);
      }
      const uint8_t s = block_scale(b, s_enc);
      const float m = multiplier(s, s_enc);
      r.scales[i * r.scale_cols + jb] = s;
      for (int t = 0; t < 16; ++t) {
        const float y = v[t] * m;
        const uint8_t code =
            c.sr ? e2m1_sr(y, sr_random_byte(c.seed, c.offset, static_cast<uint64_t>(i * blocks + jb), c.columnwise, t))
                 : e2m1(y);
        put_code(r, i, jb * 16 + t, code);
      }
    }
  }
  return r;
}

// numerics §6 swizzled byte of compact entry (i, j), C = padded compact columns.
inline int64_t swizzled_offset(int64_t i, int64_t j, int64_t C) {
  return ((i / 128) * (C / 4) + j / 4) * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + (j % 4);
}

// Code of element (i, j) of a packed rows x cols orientation.
inline uint8_t code_at(const std::vector<uint8_t>& codes, int64_t cols, int64_t i, int64_t j) {
  const uint8_t b = codes[(i * cols + j) / 2];
  return static_cast<uint8_t>(j % 2 ? b >> 4 : b & 0xF);
}

}  // namespace nvfp4_oracle
