// Argument checks every layer above the backends shares (numerics §9: all of them run before any
// memory is touched). Each returns LOWP_SUCCESS or a failure whose message names the argument and
// the rule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "core/memory.h"
#include "lowp/lowp.h"

namespace lowp {

lowp_status check_not_null(const void* p, const char* name);
// `p` (if not NULL) is a multiple of `alignment` bytes.
lowp_status check_aligned(const void* p, int64_t alignment, const char* name);
// A float array: 4-byte aligned, and not NULL when `required`.
lowp_status check_floats(const float* p, const char* name, bool required);
// `dtype` (a lowp_dtype as the caller stored it, core/enums.h) is FLOAT32, FLOAT16 or BFLOAT16;
// `name` names it ("x->dtype").
lowp_status check_high_precision_dtype(int dtype, const char* name);
// rows and cols >= 1 and rows * cols within the element rule; `name` names the pair ("q",
// "rows x cols").
lowp_status check_shape(int64_t rows, int64_t cols, const char* name);
// rows * cols elements must fit in int64 and in size_t (at most 2^56).
lowp_status check_element_count(int64_t rows, int64_t cols, const char* name);
// An array of n entries `stride` apart (entry t at t * stride; stride 0 means 1): stride >= 0 and
// its span (n - 1) * stride + 1 within the element rule, before any pointer arithmetic uses it.
lowp_status check_stride(int64_t stride, int64_t n, const char* name);

// A dense high-precision tensor: not NULL, FLOAT32/FLOAT16/BFLOAT16, rows and cols >= 1 (rows
// >= 0 with allow_empty_rows), data not NULL and aligned to its element size. Messages name the
// field ("x->data is NULL").
lowp_status check_tensor(const lowp_tensor* t, const char* name, bool allow_empty_rows = false);

// The lowp_activation and lowp_orientation arguments (as the caller passed them), named `name`.
lowp_status check_activation(const lowp_activation& act, const char* name);
lowp_status check_orientation(const lowp_orientation& which, const char* name);

struct NamedPointer {
  const void* ptr;  // NULL entries are skipped
  const char* name;
};

// All non-null pointers in one memory space; returns it through `space`.
lowp_status check_same_space(std::initializer_list<NamedPointer> ptrs, MemorySpace* space);

// Grouped calls: the backend follows the data; layout arrays in device memory need the CUDA
// backend (`layout` names them), and the CUDA backend needs lowp_grouped_workspace_size(n)
// bytes of 8-byte-aligned workspace in device memory.
lowp_status check_grouped_backend(MemorySpace data, bool layout_on_device, const char* layout, int64_t n,
                                  const void* ws, size_t ws_bytes);

}  // namespace lowp
