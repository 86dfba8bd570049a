// The C structs built from the Python side's plain values (addresses as ints, enum codes), shared
// by the bindings of ops.cpp and gemm.cpp.
#pragma once
#include <lowp/lowp.h>

#include <cstdint>
#include <tuple>

namespace lowp_py {

template <class T = void>
T* ptr(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

lowp_tensor dense(uintptr_t data, int dtype, int64_t rows, int64_t cols);

// (dtype, scaling, scale_layout, rows, cols, rowwise (data, scale_inv, amax),
//  columnwise (data, scale_inv, amax), scale, scale_inv, amax, nvfp4_outer_max): the Python
// side's order.
using QDesc = std::tuple<int, int, int, int64_t, int64_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                         uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, float>;

// Starts from LOWP_QUANTIZED_TENSOR_INIT (struct_size set), then every field of d.
lowp_quantized_tensor quantized(const QDesc& d);

}  // namespace lowp_py
