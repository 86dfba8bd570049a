// A dense 2-D tensor in host memory, in one of the dtypes the library quantizes (F32/F16/BF16).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lowp/lowp.h"

namespace lowp_cli {

struct HostTensor {
  std::string name;
  lowp_dtype dtype = LOWP_DTYPE_BFLOAT16;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<std::byte> bytes;  // rows * cols elements, row-major, little-endian

  int64_t numel() const { return rows * cols; }
};

size_t dtype_size(lowp_dtype t);
const char* dtype_name(lowp_dtype t);  // "f32", "f16", "bf16", "e4m3", ...

// bf16 from fp32, round to nearest even (NaN stays NaN).
uint16_t bf16_from_float(float f);
// Widens every element to fp32; exact for all three dtypes.
std::vector<float> to_float(const HostTensor& t);

}  // namespace lowp_cli
