// C entry points that lay a quantized tensor's buffers out in one allocation (lowp.h,
// lowp_quantized_layout): the recipe's buffer sizes (its row of the recipe table, as
// lowp_quantized_sizes_query), each at an offset aligned to LOWP_LAYOUT_ALIGNMENT, and the
// tensor's pointers filled from a base address.
#include <cstdint>
#include <string>

#include "api/dispatch.h"
#include "core/entry.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/growable.h"
#include "core/validate.h"

namespace lowp {
namespace {

constexpr size_t kAlignment = LOWP_LAYOUT_ALIGNMENT;

size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// How messages name the layout's arguments: the query's parameters, or the members of a layout
// handed back to lowp_quantized_tensor_from_layout.
struct ArgNames {
  const char *dtype, *scaling, *shape, *parts;
};
constexpr ArgNames kQueryArgs = {"dtype", "scaling", "rows x cols", "parts"};
constexpr ArgNames kLayoutArgs = {"layout->dtype", "layout->scaling", "layout->rows x layout->cols", "layout->parts"};

// The layout of a quantized tensor: every argument checked as lowp_quantized_sizes_query checks
// it, the sizes of the parts not requested set to 0, then each buffer placed in the order of
// lowp_quantized_layout's members.
lowp_status compute_layout(const lowp_dtype& dtype, const lowp_scaling& scaling, int64_t rows, int64_t cols,
                           const lowp_parts& parts, const ArgNames& names, lowp_quantized_layout* out) {
  const Recipe* r;
  LOWP_TRY(find_recipe(raw(dtype), raw(scaling), names.dtype, names.scaling, &r));
  LOWP_TRY(check_shape(rows, cols, names.shape));
  const int p = raw(parts);
  if (!known<lowp_parts>(p))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s is %s; expected LOWP_PARTS_ROWWISE, LOWP_PARTS_COLUMNWISE or LOWP_PARTS_BOTH", names.parts,
                enum_text<lowp_parts>(p).text);
  lowp_quantized_sizes s;
  if (const lowp_status st = r->sizes(rows, cols, &s); st != LOWP_SUCCESS) {
    // The recipe's shape rule (NVFP4: cols % 16) names "cols"; say whose (layout->cols for a layout).
    const std::string rule = last_error_message();
    return fail(st, "%s is %lld x %lld: %s", names.shape, static_cast<long long>(rows), static_cast<long long>(cols),
                rule.c_str());
  }
  const bool want[2] = {(p & LOWP_PARTS_ROWWISE) != 0, (p & LOWP_PARTS_COLUMNWISE) != 0};
  if (want[1] && s.data_bytes[1] == 0)
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "%s %s requests the columnwise copy, but %s makes none for %lld rows (NVFP4 needs rows %% 16 == 0); "
                "lay out LOWP_PARTS_ROWWISE",
                names.parts, enum_text<lowp_parts>(p).text, r->name, static_cast<long long>(rows));
  for (int i = 0; i < 2; ++i)
    if (!want[i]) s.data_bytes[i] = s.scale_inv_bytes[i] = s.amax_bytes[i] = 0;

  lowp_quantized_layout L = default_quantized_layout();
  L.dtype = dtype;  // checked above, so loaded as enums from here on
  L.scaling = scaling;
  L.rows = rows;
  L.cols = cols;
  L.parts = parts;
  L.sizes = s;
  size_t at = 0;
  const auto place = [&](size_t bytes, size_t* offset) {
    *offset = bytes != 0 ? at : 0;
    at += aligned(bytes);
  };
  for (int i = 0; i < 2; ++i) place(s.data_bytes[i], &L.data_offset[i]);
  for (int i = 0; i < 2; ++i) place(s.scale_inv_bytes[i], &L.scale_inv_offset[i]);
  for (int i = 0; i < 2; ++i) place(s.amax_bytes[i], &L.amax_offset[i]);
  place(s.tensor_scale_bytes, &L.tensor_scale_offset);
  place(s.tensor_scale_bytes, &L.tensor_scale_inv_offset);
  place(s.tensor_scale_bytes, &L.tensor_amax_offset);
  L.total_bytes = at;
  *out = L;
  return LOWP_SUCCESS;
}

bool same_sizes(const lowp_quantized_sizes& a, const lowp_quantized_sizes& b) {
  for (int i = 0; i < 2; ++i)
    if (a.data_bytes[i] != b.data_bytes[i] || a.scale_inv_bytes[i] != b.scale_inv_bytes[i] ||
        a.amax_bytes[i] != b.amax_bytes[i])
      return false;
  return a.tensor_scale_bytes == b.tensor_scale_bytes;
}

// Member by member (padding bytes may differ): the total, the sizes and every offset.
bool same_placement(const lowp_quantized_layout& a, const lowp_quantized_layout& b) {
  for (int i = 0; i < 2; ++i)
    if (a.data_offset[i] != b.data_offset[i] || a.scale_inv_offset[i] != b.scale_inv_offset[i] ||
        a.amax_offset[i] != b.amax_offset[i])
      return false;
  return a.total_bytes == b.total_bytes && same_sizes(a.sizes, b.sizes) &&
         a.tensor_scale_offset == b.tensor_scale_offset && a.tensor_scale_inv_offset == b.tensor_scale_inv_offset &&
         a.tensor_amax_offset == b.tensor_amax_offset;
}

lowp_status query(const lowp_dtype& dtype, const lowp_scaling& scaling, int64_t rows, int64_t cols,
                  const lowp_parts& parts, lowp_quantized_layout* caller_layout) {
  LOWP_TRY(check_not_null(caller_layout, "layout"));
  lowp_quantized_layout unused;
  LOWP_TRY(read_quantized_layout(caller_layout, "layout", &unused));  // its struct_size, before anything else
  lowp_quantized_layout L;
  LOWP_TRY(compute_layout(dtype, scaling, rows, cols, parts, kQueryArgs, &L));
  write_growable(caller_layout, L);
  return succeed();
}

lowp_status from_layout(const lowp_quantized_layout* caller_layout, void* base, lowp_quantized_tensor* caller_q) {
  LOWP_TRY(check_not_null(caller_layout, "layout"));
  lowp_quantized_layout given;
  LOWP_TRY(read_quantized_layout(caller_layout, "layout", &given));
  lowp_quantized_layout L;
  LOWP_TRY(compute_layout(given.dtype, given.scaling, given.rows, given.cols, given.parts, kLayoutArgs, &L));
  if (!same_placement(given, L))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "layout's sizes or offsets differ from lowp_quantized_layout_query's for its dtype, scaling, rows, "
                "cols and parts; pass the layout as the query filled it");
  LOWP_TRY(check_not_null(base, "base"));
  LOWP_TRY(check_aligned(base, kAlignment, "base"));
  // Each buffer's pointer is base + offset: the allocation must not wrap around the address space.
  if (L.total_bytes > UINTPTR_MAX - reinterpret_cast<uintptr_t>(base))
    return fail(LOWP_ERROR_INVALID_ARGUMENT,
                "base is %p: an allocation of layout->total_bytes = %zu bytes there runs past the end of the "
                "address space",
                base, L.total_bytes);
  LOWP_TRY(check_not_null(caller_q, "q"));
  lowp_quantized_tensor q;
  LOWP_TRY(read_quantized_tensor(caller_q, &q));
  auto* const b = static_cast<uint8_t*>(base);
  const auto at = [&](size_t bytes, size_t offset) -> void* { return bytes != 0 ? b + offset : nullptr; };
  const lowp_quantized_sizes& s = L.sizes;
  q.dtype = L.dtype;
  q.scaling = L.scaling;
  q.rows = L.rows;
  q.cols = L.cols;
  lowp_quantized_part* parts[2] = {&q.rowwise, &q.columnwise};
  for (int i = 0; i < 2; ++i)
    *parts[i] = {at(s.data_bytes[i], L.data_offset[i]), at(s.scale_inv_bytes[i], L.scale_inv_offset[i]),
                 static_cast<float*>(at(s.amax_bytes[i], L.amax_offset[i]))};
  q.scale = static_cast<float*>(at(s.tensor_scale_bytes, L.tensor_scale_offset));
  q.scale_inv = static_cast<float*>(at(s.tensor_scale_bytes, L.tensor_scale_inv_offset));
  q.amax = static_cast<float*>(at(s.tensor_scale_bytes, L.tensor_amax_offset));
  write_growable(caller_q, q);
  return succeed();
}

}  // namespace
}  // namespace lowp

using namespace lowp;

extern "C" {

lowp_status lowp_quantized_layout_query(lowp_dtype dtype, lowp_scaling scaling, int64_t rows, int64_t cols,
                                        lowp_parts parts, lowp_quantized_layout* layout) {
  return guarded("lowp_quantized_layout_query", [&] { return query(dtype, scaling, rows, cols, parts, layout); });
}

lowp_status lowp_quantized_tensor_from_layout(const lowp_quantized_layout* layout, void* base, lowp_quantized_tensor* q) {
  return guarded("lowp_quantized_tensor_from_layout", [&] { return from_layout(layout, base, q); });
}

}  // extern "C"
