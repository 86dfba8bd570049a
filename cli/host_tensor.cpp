#include "host_tensor.h"

#include <bit>
#include <cstring>
#include <stdexcept>

namespace lowp_cli {
namespace {

float float_from_bf16(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

// IEEE binary16 -> binary32, bit by bit, so the result does not depend on compiler support
// for _Float16.
float float_from_f16(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (man << 13);  // inf / NaN (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    uint32_t e = 113;
    while ((man & 0x400u) == 0) {
      man <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((man & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

}  // namespace

size_t dtype_size(lowp_dtype t) {
  switch (t) {
    case LOWP_DTYPE_FLOAT32: return 4;
    case LOWP_DTYPE_FLOAT16:
    case LOWP_DTYPE_BFLOAT16: return 2;
    default: return 1;
  }
}

const char* dtype_name(lowp_dtype t) {
  switch (t) {
    case LOWP_DTYPE_FLOAT32: return "f32";
    case LOWP_DTYPE_FLOAT16: return "f16";
    case LOWP_DTYPE_BFLOAT16: return "bf16";
    case LOWP_DTYPE_E4M3: return "e4m3";
    case LOWP_DTYPE_E5M2: return "e5m2";
    case LOWP_DTYPE_E2M1: return "e2m1";
  }
  return "?";
}

uint16_t bf16_from_float(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

std::vector<float> to_float(const HostTensor& t) {
  const size_t n = static_cast<size_t>(t.numel());
  if (t.bytes.size() != n * dtype_size(t.dtype))
    throw std::logic_error("tensor '" + t.name + "': byte size does not match its shape");
  std::vector<float> out(n);
  const std::byte* p = t.bytes.data();
  switch (t.dtype) {
    case LOWP_DTYPE_FLOAT32: std::memcpy(out.data(), p, n * 4); break;
    case LOWP_DTYPE_FLOAT16:
    case LOWP_DTYPE_BFLOAT16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i] = t.dtype == LOWP_DTYPE_FLOAT16 ? float_from_f16(h) : float_from_bf16(h);
      }
      break;
    default: throw std::logic_error("tensor '" + t.name + "': not a high-precision dtype");
  }
  return out;
}

}  // namespace lowp_cli
