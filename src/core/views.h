// Plain views the layers pass each other: a dense high-precision matrix, and element sizes.
#pragma once
#include <cstdint>

#include "lowp/lowp.h"

namespace lowp {

struct DenseView {
  const void* data;
  lowp_dtype dtype;
  int64_t rows;
  int64_t cols;
};

inline int64_t dtype_bytes(lowp_dtype t) {
  switch (t) {
    case LOWP_DTYPE_FLOAT32: return 4;
    case LOWP_DTYPE_FLOAT16:
    case LOWP_DTYPE_BFLOAT16: return 2;
    default: return 1;
  }
}

}  // namespace lowp
