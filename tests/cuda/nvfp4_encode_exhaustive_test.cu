// The device hot-path NVFP4 encoders (src/cuda/nvfp4/encode.cuh) equal the scalar rules of
// src/numerics: E2M1 round-to-nearest on all 2^32 fp32 inputs, E2M1 stochastic rounding on all
// 2^32 inputs (a hashed random byte each) and on every random byte for 2^24 inputs, the UE4M3
// scale decode on every finite code, the block-scale encode on 2^28 (amax, S_enc) pairs, and the
// packed bf16 round trip of the per-tensor RHT and the signs read from bf16 pairs on all 2^32
// inputs. SR is also swept over every random byte around each multiple of 2^-9 below 8: numerics §3
// rounds a + r/256 * step to fp32 before taking the floor, which moves the code just below 0.5
// (the encoder's 2^-26 correction).
#include <gtest/gtest.h>

#include <cstdio>

#include "cuda/nvfp4/encode.cuh"
#include "device_buffer.h"
#include "numerics/stochastic_rounding.h"

namespace lowp_test {
namespace {

namespace num = lowp::num;
namespace cu = lowp::cuda;

__device__ uint32_t hash32(uint64_t i) {
  uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

__device__ void note_bad(unsigned long long* bad, uint64_t* first, uint64_t i, uint32_t& local) {
  ++local;
  atomicMin(reinterpret_cast<unsigned long long*>(first), static_cast<unsigned long long>(i));
}

// An RN magnitude is kRoundMagicBits + the code's low 3 bits; with y's sign it must give want
// packed in nibble `slot` of eight (pack_e2m1x8, the other seven +0).
__device__ bool code_ok(uint32_t magnitude, float y, uint8_t want, int slot) {
  if ((magnitude & ~7u) != cu::kRoundMagicBits) return false;
  uint32_t k[8];
  float v[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    k[e] = e == slot ? magnitude : cu::kRoundMagicBits;
    v[e] = e == slot ? y : 0.0f;
  }
  return cu::pack_e2m1x8(k, cu::e2m1_sign_bits_x8(v)) == uint32_t{want} << (4 * slot);
}

// The SR encode as the kernels call it, eight values and two words of random bytes: y in every
// slot with random byte r must give want in every nibble; and y in `slot` alone, the other slots
// holding -y, 0.75 and fresh bytes (0xA5C3E17B, 0x3C5A96F0), must leave their codes unchanged.
__device__ bool sr_ok(float y, uint32_t r, uint8_t want, int slot) {
  float v[8];
  for (int e = 0; e < 8; ++e) v[e] = y;
  if (cu::e2m1_sr_codes_x8(v, r * 0x01010101u, r * 0x01010101u) != uint32_t{want} * 0x11111111u) return false;
  const uint32_t w[2] = {0xA5C3E17Bu, 0x3C5A96F0u};
  for (int e = 0; e < 8; ++e) v[e] = e % 2 ? -y : 0.75f;
  const uint32_t base = cu::e2m1_sr_codes_x8(v, w[0], w[1]);
  v[slot] = y;
  uint32_t ws[2] = {w[0], w[1]};
  ws[slot / 4] = (ws[slot / 4] & ~(0xFFu << (8 * (slot % 4)))) | (r << (8 * (slot % 4)));
  const uint32_t mask = 0xFu << (4 * slot);
  return cu::e2m1_sr_codes_x8(v, ws[0], ws[1]) == ((base & ~mask) | (uint32_t{want} << (4 * slot)));
}

// The sign bytes of eight values read from their bf16 pairs equal those of the values widened:
// pair u in word `slot` of four, the other words fixed patterns (signs, zeros, NaN, inf).
__device__ bool pair_signs_ok(uint32_t u, int slot) {
  uint32_t w[4] = {0x80003F80u, 0x7FC0BF80u, 0x00008000u, 0xFF800001u};
  w[slot] = u;
  float v[8];
  for (int e = 0; e < 8; ++e) v[e] = num::float_of(e % 2 ? w[e / 2] & 0xFFFF0000u : w[e / 2] << 16);
  const cu::SignBytes a = cu::sign_bytes_of_pairs(w[0], w[1], w[2], w[3]), b = cu::sign_bytes(v);
  return a.even == b.even && a.odd == b.odd && cu::e2m1_sign_bits_x8(a) == cu::e2m1_sign_bits_x8(v);
}

// mode 0: RN all inputs; 1: SR all inputs, hashed byte; 2: SR 2^24 hashed inputs x 256 bytes;
// 3: decode + block scale on 2^28 hashed (amax, s_enc) pairs; 4: bf16 pair round trip, and the
// signs read from bf16 pairs, all inputs; 5: SR on 512 fp32 neighbours of each k * 2^-9 (k < 4096), both signs x all 256 bytes.
// The hot path encodes products (y = x * m), whose NaNs the GPU makes positive canonical NaNs: the
// encoders see x * one, one = 1 at run time, so x's every bit pattern reaches them as the kernels'.
__global__ void count_mismatches(int mode, float one, unsigned long long* bad, uint64_t* first) {
  uint32_t local = 0;
  const uint64_t n = mode == 3 ? (uint64_t{1} << 28) : mode == 5 ? (uint64_t{1} << 30) : (uint64_t{1} << 32);
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n; i += uint64_t{gridDim.x} * blockDim.x) {
    if (mode == 0) {
      const float x = num::float_of(static_cast<uint32_t>(i)), y = __fmul_rn(x, one);
      const uint8_t want = num::encode_e2m1(x);
      if (!code_ok(cu::e2m1_rn_magnitude(y), y, want, static_cast<int>(i & 7)))
        note_bad(bad, first, i, local);
      else if (fabsf(y) < 7.0f && !code_ok(cu::e2m1_rn_magnitude_unclamped(y), y, want, static_cast<int>(i & 7)))
        note_bad(bad, first, i, local);
    } else if (mode == 1) {
      const float x = num::float_of(static_cast<uint32_t>(i)), y = __fmul_rn(x, one);
      const uint32_t r = hash32(i) & 0xFFu;
      const uint8_t want = num::encode_e2m1_sr(x, r);
      if (!sr_ok(y, r, want, static_cast<int>(i & 7))) note_bad(bad, first, i, local);
    } else if (mode == 4) {
      const float x = num::float_of(static_cast<uint32_t>(i));
      float lo = x, hi = num::float_of(static_cast<uint32_t>(i) ^ 0x80000001u);
      const float want_hi = num::bf16_to_f32(num::f32_to_bf16(num::canonical_nan(hi)));
      cu::round_pair_to_bf16(lo, hi);
      if (num::bits_of(lo) != num::bits_of(num::bf16_to_f32(num::f32_to_bf16(num::canonical_nan(x)))) ||
          num::bits_of(hi) != num::bits_of(want_hi) || !pair_signs_ok(static_cast<uint32_t>(i), static_cast<int>(i >> 30)))
        note_bad(bad, first, i, local);
    } else if (mode == 2) {
      // Inputs concentrated where the grid is: |y| < 16 for 3/4 of them.
      const uint32_t h = hash32(i >> 8);
      const float x = (h & 3) ? num::float_of((h & 0x80000000u) | (0x3C000000u + (h >> 2) % 0x4000000u)) : num::float_of(h);
      const float y = __fmul_rn(x, one);
      const uint32_t r = static_cast<uint32_t>(i & 0xFF);
      const uint8_t want = num::encode_e2m1_sr(x, r);
      if (!sr_ok(y, r, want, static_cast<int>((i >> 8) & 7))) note_bad(bad, first, i, local);
    } else if (mode == 5) {
      const uint32_t r = static_cast<uint32_t>(i & 0xFF), sign = static_cast<uint32_t>(i >> 8 & 1) << 31;
      const int32_t ulps = static_cast<int32_t>(i >> 9 & 0x1FF) - 256;
      const uint32_t k = static_cast<uint32_t>(i >> 18);  // 0..4095
      const float x = num::float_of(sign | static_cast<uint32_t>(static_cast<int32_t>(num::bits_of(k * 0x1p-9f)) + ulps));
      const float y = __fmul_rn(x, one);
      if (!sr_ok(y, r, num::encode_e2m1_sr(x, r), static_cast<int>(i & 7))) note_bad(bad, first, i, local);
    } else {
      const uint32_t h = hash32(i), g = hash32(i ^ 0xABCDEFull);
      const float amax = num::float_of(h & 0x7FFFFFFFu);
      const float s_enc = num::nvfp4_encode_scale(num::float_of(g & 0x7FFFFFFFu));
      const uint32_t code = static_cast<uint32_t>(i & 0x7F);
      const bool ok = cu::block_scale_code(amax, num::mul_rn(s_enc, num::kOneSixth)) == num::nvfp4_block_scale(amax, s_enc) &&
                      (code == 0x7F || cu::decode_ue4m3(code) == num::decode_e4m3(static_cast<uint8_t>(code)));
      if (!ok) note_bad(bad, first, i, local);
    }
  }
  if (local) atomicAdd(bad, local);
}

unsigned long long run_mode(int mode, uint64_t* first_out) {
  DeviceBuffer dbad(8, 0, 0), dfirst(8, 0, 0xFF);
  count_mismatches<<<132 * 8, 256>>>(mode, 1.0f, static_cast<unsigned long long*>(dbad.get()), static_cast<uint64_t*>(dfirst.get()));
  if (cudaDeviceSynchronize() != cudaSuccess) return ~0ull;
  unsigned long long bad = 0;
  cudaMemcpy(&bad, dbad.get(), 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(first_out, dfirst.get(), 8, cudaMemcpyDeviceToHost);
  return bad;
}

TEST(Nvfp4EncodeGpu, HotPathEqualsScalarRules) {
  LOWP_REQUIRE_GPU();
  const char* names[] = {"E2M1 RN, all 2^32 inputs", "E2M1 SR, all 2^32 inputs (hashed byte)",
                         "E2M1 SR, 2^24 inputs x all 256 bytes", "UE4M3 block scale + decode, 2^28 pairs",
                         "bf16 pair round trip + pair signs, all 2^32 inputs",
                         "E2M1 SR, 512 neighbours of each k * 2^-9 x both signs x all 256 bytes"};
  for (int mode = 0; mode < 6; ++mode) {
    uint64_t first = 0;
    const unsigned long long bad = run_mode(mode, &first);
    std::printf("[nvfp4 encode hot path==scalar] %s: %llu mismatches\n", names[mode], bad);
    EXPECT_EQ(bad, 0ull) << names[mode] << ": first mismatching index 0x" << std::hex << first;
  }
}

}  // namespace
}  // namespace lowp_test
