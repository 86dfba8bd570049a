#include "core/validate.h"

#include <cstdio>

#include "core/enums.h"
#include "core/error.h"
#include "core/grouped_args.h"  // grouped_workspace_bytes
#include "core/views.h"         // dtype_bytes

namespace lowp {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 56;  // leaves room for byte offsets of fp32 data

long long ll(int64_t v) { return static_cast<long long>(v); }

// "x->data" from "x" and "data", for messages.
struct Field {
  char text[96];
};
Field field(const char* object, const char* member) {
  Field f;
  std::snprintf(f.text, sizeof f.text, "%s->%s", object, member);
  return f;
}

}  // namespace

lowp_status check_not_null(const void* p, const char* name) {
  if (p == nullptr) return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
  return LOWP_SUCCESS;
}

lowp_status check_high_precision_dtype(int dtype, const char* name) {
  if (dtype == LOWP_DTYPE_FLOAT32 || dtype == LOWP_DTYPE_FLOAT16 || dtype == LOWP_DTYPE_BFLOAT16) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s is %s; expected LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16 or LOWP_DTYPE_BFLOAT16", name,
              enum_text<lowp_dtype>(dtype).text);
}

lowp_status check_shape(int64_t rows, int64_t cols, const char* name) {
  if (rows < 1 || cols < 1)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is %lld x %lld; rows and cols must be >= 1", name, ll(rows),
                ll(cols));
  return check_element_count(rows, cols, name);
}

lowp_status check_tensor(const lowp_tensor* t, const char* name, bool allow_empty_rows) {
  LOWP_TRY(check_not_null(t, name));
  const int dtype = raw(t->dtype);
  LOWP_TRY(check_high_precision_dtype(dtype, field(name, "dtype").text));
  if (allow_empty_rows) {
    if (t->rows < 0 || t->cols < 1)
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is %lld x %lld; rows must be >= 0 and cols >= 1", name,
                  ll(t->rows), ll(t->cols));
    LOWP_TRY(check_element_count(t->rows, t->cols, name));
  } else {
    LOWP_TRY(check_shape(t->rows, t->cols, name));
  }
  const Field data = field(name, "data");
  LOWP_TRY(check_not_null(t->data, data.text));
  return check_aligned(t->data, dtype_bytes(static_cast<lowp_dtype>(dtype)), data.text);
}

lowp_status check_grouped_backend(MemorySpace data, bool layout_on_device, const char* layout, int64_t n,
                                  const void* ws, size_t ws_bytes) {
  if (data == MemorySpace::kHost && layout_on_device)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s in device memory but the data is in host memory", layout);
  if (data == MemorySpace::kDevice) {
    LOWP_TRY(check_not_null(ws, "workspace"));
    LOWP_TRY(check_aligned(ws, 8, "workspace"));
    if (ws_bytes < grouped_workspace_bytes(n))
      return fail(LOWP_ERROR_INVALID_ARGUMENT, "workspace_bytes is %zu; %lld members need %zu (lowp_grouped_workspace_size)",
                  ws_bytes, ll(n), grouped_workspace_bytes(n));
  }
  return LOWP_SUCCESS;
}

lowp_status check_element_count(int64_t rows, int64_t cols, const char* name) {
  if (rows > kMaxElements / cols)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s has %lld x %lld elements; at most 2^56 supported", name, ll(rows),
                ll(cols));
  return LOWP_SUCCESS;
}

lowp_status check_stride(int64_t stride, int64_t n, const char* name) {
  if (stride < 0) return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is %lld; must be >= 0", name, ll(stride));
  const int64_t step = stride == 0 ? 1 : stride;
  if (n > 1 && step > (kMaxElements - 1) / (n - 1))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s is %lld; with %lld entries the array spans (%lld - 1) * %lld + 1 elements, at most 2^56 supported",
                name, ll(stride), ll(n), ll(n), ll(step));
  return LOWP_SUCCESS;
}

lowp_status check_same_space(std::initializer_list<NamedPointer> ptrs, MemorySpace* space) {
  const NamedPointer* first = nullptr;
  for (const NamedPointer& p : ptrs) {
    if (p.ptr == nullptr) continue;
    const MemorySpace s = memory_space_of(p.ptr);
    if (s == MemorySpace::kUnknown)
      return fail(LOWP_ERROR_CUDA, "%s: the CUDA runtime could not tell whether it is host or device memory",
                  p.name);
    if (first == nullptr) {
      first = &p;
      *space = s;
    } else if (s != *space) {
      return fail(LOWP_ERROR_INVALID_ARGUMENT,
                  "%s is in %s memory but %s is in %s memory; all pointers of a call must be in "
                  "one memory space",
                  p.name, s == MemorySpace::kHost ? "host" : "device", first->name,
                  *space == MemorySpace::kHost ? "host" : "device");
    }
  }
  if (first == nullptr) *space = MemorySpace::kHost;
  return LOWP_SUCCESS;
}

lowp_status check_aligned(const void* p, int64_t alignment, const char* name) {
  if (reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(alignment) != 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is not aligned to %lld bytes", name, ll(alignment));
  return LOWP_SUCCESS;
}

lowp_status check_floats(const float* p, const char* name, bool required) {
  if (required) LOWP_TRY(check_not_null(p, name));
  return check_aligned(p, 4, name);
}

lowp_status check_activation(const lowp_activation& act, const char* name) {
  if (known<lowp_activation>(raw(act))) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT,
              "%s is %s; expected LOWP_ACTIVATION_GELU_TANH, LOWP_ACTIVATION_SILU or LOWP_ACTIVATION_RELU", name,
              enum_text(act).text);
}

lowp_status check_orientation(const lowp_orientation& which, const char* name) {
  if (known<lowp_orientation>(raw(which))) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_INVALID_ARGUMENT, "%s is %s; expected LOWP_ROWWISE or LOWP_COLUMNWISE", name,
              enum_text(which).text);
}

}  // namespace lowp
