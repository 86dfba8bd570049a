// One allocation for a quantized tensor: lowp_quantized_layout_init, lowp_quantized_layout_query
// (its placement checked exactly against lowp.h's rule) and lowp_quantized_tensor_from_layout.
#include <string>

#include "harness/args.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

constexpr uint64_t kAlign = LOWP_LAYOUT_ALIGNMENT;

struct LayoutArgs {
  int dtype = LOWP_DTYPE_E4M3, scaling = LOWP_SCALING_CURRENT, parts = LOWP_PARTS_ROWWISE;
  int64_t rows = 1, cols = 1;
};

LayoutArgs draw_layout_args(Draw& d) {
  const QDraw q = draw_quantized(d, draw_recipe(d), 0, 0, 1);  // dtype and scaling, with their faults
  LayoutArgs a;
  a.dtype = q.dtype, a.scaling = q.scaling;
  const int64_t m = is_nvfp4(recipe_of(a.dtype, a.scaling)) ? 16 : 1;
  a.rows = d.percent(10) ? 1 + d.rng.below(40) : d.dim(m);
  a.cols = d.dim(m);
  a.parts = d.enum_among({LOWP_PARTS_ROWWISE, LOWP_PARTS_COLUMNWISE, LOWP_PARTS_BOTH}, 4);  // 0 and others: faults
  return a;
}

// lowp_quantized_layout_query's rules: lowp_quantized_sizes_query's, a known `parts`, and an NVFP4
// columnwise copy only for rows % 16 == 0. `prefix`: "" for the query's arguments, "layout->" for
// a layout's members.
void layout_rules(Expect& e, const LayoutArgs& a, const std::string& prefix) {
  const Recipe r = recipe_of(a.dtype, a.scaling);
  e.require(r != Recipe::kNone, {prefix + "dtype", prefix + "scaling"});
  const bool shape = e.require(a.rows >= 1, {prefix + "rows"}) & e.require(a.cols >= 1, {prefix + "cols"});
  if (shape) e.require(!too_many(a.rows, a.cols), {prefix + "rows", prefix + "cols"});
  if (is_nvfp4(r)) e.require(a.cols % 16 == 0, {prefix + "cols"});
  const bool parts_ok = e.require(a.parts >= LOWP_PARTS_ROWWISE && a.parts <= LOWP_PARTS_BOTH, {prefix + "parts"});
  if (parts_ok && is_nvfp4(r) && (a.parts & LOWP_PARTS_COLUMNWISE))
    e.require(a.rows % 16 == 0, {prefix + "parts", prefix + "rows"});
}

uint64_t aligned(uint64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// lowp.h's layout of valid arguments: the sizes (a part not requested: 0), each buffer in member
// order at the next multiple of LOWP_LAYOUT_ALIGNMENT, unused buffers at offset 0.
lowp_quantized_layout expected_layout(const LayoutArgs& a) {
  lowp_quantized_layout l = LOWP_QUANTIZED_LAYOUT_INIT;
  set_int(l.dtype, a.dtype);
  set_int(l.scaling, a.scaling);
  set_int(l.parts, a.parts);
  l.rows = a.rows, l.cols = a.cols;
  const QSizes s = quantized_sizes(recipe_of(a.dtype, a.scaling), a.rows, a.cols);
  uint64_t at = 0;
  const auto place = [&](uint64_t bytes, size_t* size, size_t* offset) {
    *size = bytes, *offset = bytes != 0 ? at : 0;
    at += aligned(bytes);
  };
  for (int i = 0; i < 2; ++i) {
    const bool want = (a.parts >> i) & 1;
    place(want ? s.data[i] : 0, &l.sizes.data_bytes[i], &l.data_offset[i]);
  }
  for (int i = 0; i < 2; ++i)
    place((a.parts >> i) & 1 ? s.scale_inv[i] : 0, &l.sizes.scale_inv_bytes[i], &l.scale_inv_offset[i]);
  for (int i = 0; i < 2; ++i) place((a.parts >> i) & 1 ? s.amax[i] : 0, &l.sizes.amax_bytes[i], &l.amax_offset[i]);
  size_t tensor_scale = 0;
  place(s.tensor_scale, &tensor_scale, &l.tensor_scale_offset);
  place(s.tensor_scale, &tensor_scale, &l.tensor_scale_inv_offset);
  place(s.tensor_scale, &tensor_scale, &l.tensor_amax_offset);
  l.sizes.tensor_scale_bytes = tensor_scale;
  l.total_bytes = at;
  return l;
}

// Member by member (padding bytes are not values).
bool same_layout(const lowp_quantized_layout& g, const lowp_quantized_layout& w) {
  bool same = g.struct_size == w.struct_size && as_int(g.dtype) == as_int(w.dtype) &&
              as_int(g.scaling) == as_int(w.scaling) && as_int(g.parts) == as_int(w.parts) && g.rows == w.rows &&
              g.cols == w.cols && g.total_bytes == w.total_bytes &&
              g.sizes.tensor_scale_bytes == w.sizes.tensor_scale_bytes &&
              g.tensor_scale_offset == w.tensor_scale_offset && g.tensor_scale_inv_offset == w.tensor_scale_inv_offset &&
              g.tensor_amax_offset == w.tensor_amax_offset;
  for (int i = 0; i < 2; ++i)
    same = same && g.sizes.data_bytes[i] == w.sizes.data_bytes[i] &&
           g.sizes.scale_inv_bytes[i] == w.sizes.scale_inv_bytes[i] && g.sizes.amax_bytes[i] == w.sizes.amax_bytes[i] &&
           g.data_offset[i] == w.data_offset[i] && g.scale_inv_offset[i] == w.scale_inv_offset[i] &&
           g.amax_offset[i] == w.amax_offset[i];
  return same;
}

void layout_init(Draw& d, Call& c) {
  c.no_status = true;
  auto* l = static_cast<lowp_quantized_layout*>(c.buffer("layout", sizeof(lowp_quantized_layout), Role::kOutPartial,
                                                         d.percent(10) ? d.null() : d.normal(), &host_memory()));
  c.invoke = [l] {
    lowp_quantized_layout_init(l);
    return LOWP_SUCCESS;
  };
  c.verify = [l]() -> std::string {
    const lowp_quantized_layout zero = LOWP_QUANTIZED_LAYOUT_INIT;
    return l == nullptr || same_layout(*l, zero) ? "" : "lowp_quantized_layout_init: not zeros with struct_size";
  };
}

void layout_query(Draw& d, Call& c) {
  const LayoutArgs a = draw_layout_args(d);
  const size_t ss = d.struct_size(sizeof(lowp_quantized_layout), kLayoutFirst);
  PtrDraw lp = d.ptr();
  if (lp.mode != PtrMode::kNull) lp = d.normal();  // a struct pointer: NULL or valid
  const lowp_quantized_layout init = LOWP_QUANTIZED_LAYOUT_INIT;
  lowp_quantized_layout given = init;
  given.struct_size = ss;
  // The caller's struct: struct_size bytes (at least the member itself), written past struct_size never.
  auto* l = static_cast<lowp_quantized_layout*>(c.buffer_with("layout", &given, ss < 8 ? 8 : ss > sizeof given ? sizeof given : ss,
                                                              Role::kOutPartial, lp, &host_memory()));
  Expect& e = c.expect;
  if (e.require(l != nullptr, {"layout"}))
    struct_size_rules(e, "layout", ss, kLayoutFirst, sizeof(lowp_quantized_layout));
  layout_rules(e, a, "");
  c.invoke = [=] {
    return lowp_quantized_layout_query(static_cast<lowp_dtype>(a.dtype), static_cast<lowp_scaling>(a.scaling), a.rows,
                                       a.cols, static_cast<lowp_parts>(a.parts), l);
  };
  c.verify = [=]() -> std::string {
    lowp_quantized_layout want = expected_layout(a);
    want.struct_size = ss;
    return same_layout(as_read(l), want) ? "" : "lowp_quantized_layout_query: not lowp.h's placement";
  };
}

void tensor_from_layout(Draw& d, Call& c) {
  LayoutArgs a = draw_layout_args(d);
  lowp_quantized_layout l = expected_layout(a);
  l.struct_size = d.struct_size(sizeof l, kLayoutFirst);
  if (d.bad(6)) l.data_offset[d.rng.below(2)] += kAlign;  // not the query's placement
  if (d.bad(6)) l.total_bytes += d.percent(50) ? kAlign : 1;
  if (d.bad(6)) l.sizes.amax_bytes[0] += 4;
  const bool layout_null = d.bad(3);
  // Nothing is read or written at base: an aligned address is enough (faults: NULL, misaligned).
  // The last aligned address: the layout's buffers would wrap around the address space.
  constexpr uintptr_t kTop = UINTPTR_MAX & ~uintptr_t{kAlign - 1};
  const uintptr_t base_at = d.bad(6)   ? d.pick({0, int64_t{1} << 20 | 8, int64_t{1} << 20 | 128})
                            : d.bad(6) ? kTop - (d.percent(50) ? 0 : l.total_bytes & ~uintptr_t{kAlign - 1})
                                       : uintptr_t{1} << 20;
  void* base = reinterpret_cast<void*>(base_at);
  const QDraw qd = draw_quantized(d, draw_recipe(d), 1, 1, 1);
  lowp_quantized_tensor qv = LOWP_QUANTIZED_TENSOR_INIT;
  qv.struct_size = qd.struct_size;
  set_int(qv.scale_layout, qd.scale_layout);
  qv.nvfp4_outer_max = qd.outer_max;
  PtrDraw qp = d.ptr();
  if (qp.mode != PtrMode::kNull) qp = d.normal();
  const size_t q_bytes = qd.struct_size < 8 ? 8 : qd.struct_size > sizeof qv ? sizeof qv : qd.struct_size;
  auto* q = static_cast<lowp_quantized_tensor*>(
      c.buffer_with("q", &qv, q_bytes, Role::kOutPartial, qp, &host_memory()));
  const lowp_quantized_layout* lay = c.object("layout", l, layout_null, l.struct_size);

  Expect& e = c.expect;
  if (e.require(lay != nullptr, {"layout"})) {
    struct_size_rules(e, "layout", lay->struct_size, kLayoutFirst, sizeof l);
    const lowp_quantized_layout L = as_read(lay);
    const LayoutArgs read{as_int(L.dtype), as_int(L.scaling), as_int(L.parts), L.rows, L.cols};
    layout_rules(e, read, "layout->");
    // "its offsets are checked against the query's"
    lowp_quantized_layout want = expected_layout(read);
    want.struct_size = L.struct_size;
    e.require(same_layout(L, want), {"layout"});
  }
  if (e.require(base != nullptr, {"base"}) && e.require(aligned_to(base, kAlign), {"base"}) && lay != nullptr)
    e.require(as_read(lay).total_bytes <= UINTPTR_MAX - base_at, {"base"});  // "within the address space"
  if (e.require(q != nullptr, {"q"}))
    struct_size_rules(e, "q", qd.struct_size, kQuantizedFirst, sizeof(lowp_quantized_tensor));
  c.invoke = [=] { return lowp_quantized_tensor_from_layout(lay, base, q); };
  c.verify = [=]() -> std::string {
    // dtype, scaling, rows, cols and every buffer pointer from the layout; the rest kept.
    lowp_quantized_tensor w = qv;
    set_int(w.dtype, as_int(l.dtype));  // any int the layout holds: never loaded as an enum
    set_int(w.scaling, as_int(l.scaling));
    w.rows = l.rows, w.cols = l.cols;
    auto* b = static_cast<uint8_t*>(base);
    const auto at = [&](size_t bytes, size_t offset) -> void* { return bytes != 0 ? b + offset : nullptr; };
    lowp_quantized_part* wp[2] = {&w.rowwise, &w.columnwise};
    for (int i = 0; i < 2; ++i)
      *wp[i] = {at(l.sizes.data_bytes[i], l.data_offset[i]), at(l.sizes.scale_inv_bytes[i], l.scale_inv_offset[i]),
                static_cast<float*>(at(l.sizes.amax_bytes[i], l.amax_offset[i]))};
    w.scale = static_cast<float*>(at(l.sizes.tensor_scale_bytes, l.tensor_scale_offset));
    w.scale_inv = static_cast<float*>(at(l.sizes.tensor_scale_bytes, l.tensor_scale_inv_offset));
    w.amax = static_cast<float*>(at(l.sizes.tensor_scale_bytes, l.tensor_amax_offset));
    const lowp_quantized_tensor g = as_read(q);
    const bool same = g.struct_size == w.struct_size && as_int(g.dtype) == as_int(w.dtype) &&
                      as_int(g.scaling) == as_int(w.scaling) && as_int(g.scale_layout) == as_int(w.scale_layout) &&
                      g.rows == w.rows && g.cols == w.cols && g.rowwise.data == w.rowwise.data &&
                      g.rowwise.scale_inv == w.rowwise.scale_inv && g.rowwise.amax == w.rowwise.amax &&
                      g.columnwise.data == w.columnwise.data && g.columnwise.scale_inv == w.columnwise.scale_inv &&
                      g.columnwise.amax == w.columnwise.amax && g.scale == w.scale && g.scale_inv == w.scale_inv &&
                      g.amax == w.amax &&
                      (g.struct_size < kOuterMaxEnd || as_int(g.nvfp4_outer_max) == as_int(w.nvfp4_outer_max));
    return same ? "" : "lowp_quantized_tensor_from_layout: q is not the layout's pointers";
  };
}

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_quantized_layout_init, layout_init);
LOWP_FUZZ_ENTRY_POINT(lowp_quantized_layout_query, layout_query);
LOWP_FUZZ_ENTRY_POINT(lowp_quantized_tensor_from_layout, tensor_from_layout);

}  // namespace lowp_fuzz
