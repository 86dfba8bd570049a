// Reading and writing high-precision elements by dtype on the CPU.
#pragma once
#include <cstdint>

#include "lowp/lowp.h"
#include "numerics/convert.h"

namespace lowp::cpu {

inline float load_f32(const void* data, lowp_dtype t, int64_t i) {
  switch (t) {
    case LOWP_DTYPE_BFLOAT16: return num::bf16_to_f32(static_cast<const uint16_t*>(data)[i]);
    case LOWP_DTYPE_FLOAT16: return num::f16_to_f32(static_cast<const uint16_t*>(data)[i]);
    default: return static_cast<const float*>(data)[i];
  }
}

inline void store_f32(void* data, lowp_dtype t, int64_t i, float v) {
  switch (t) {
    case LOWP_DTYPE_BFLOAT16: static_cast<uint16_t*>(data)[i] = num::f32_to_bf16(v); break;
    case LOWP_DTYPE_FLOAT16: static_cast<uint16_t*>(data)[i] = num::f32_to_f16(v); break;
    default: static_cast<float*>(data)[i] = v; break;
  }
}

}  // namespace lowp::cpu
