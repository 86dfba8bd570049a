#include "harness/group_args.h"

#include "harness/model.h"

namespace lowp_fuzz {

GroupDraw draw_group(Draw& d, int max_members) {
  GroupDraw g;
  g.null = d.bad(3);
  g.dtype = d.enum_among({LOWP_DTYPE_FLOAT32, LOWP_DTYPE_FLOAT16, LOWP_DTYPE_BFLOAT16}, 6);
  const int64_t n = 1 + d.rng.below(static_cast<uint32_t>(max_members));
  int64_t at = d.percent(20) ? d.rng.below(4) : 0;
  for (int64_t t = 0; t < n; ++t) {
    int64_t f = 1 + d.rng.below(12), l = 1 + d.rng.below(12);
    if (d.percent(20)) {  // an empty member, its other dim anything (lowp.h allows empty members)
      const int64_t other = d.percent(30) ? d.pick({int64_t{1} << 20, int64_t{1} << 40, int64_t{1} << 62}) : f;
      if (d.percent(50))
        f = 0, l = other;
      else
        f = other, l = 0;
    }
    if (d.bad(5)) (d.percent(50) ? f : l) = d.pick({-1, INT64_MIN, int64_t{1} << 40});
    int64_t o = at + (d.percent(25) ? d.rng.below(4) : 0);
    if (t > 0 && d.bad(5)) o = at - 1;  // overlaps the previous member
    if (d.bad(3)) o = d.pick({-1, INT64_MIN, INT64_MAX});
    g.first.push_back(f), g.last.push_back(l), g.offsets.push_back(o);
    const uint64_t size = f > 0 && l > 0 ? mul_sat(static_cast<uint64_t>(f), static_cast<uint64_t>(l)) : 0;
    at = o >= 0 && o < (int64_t{1} << 60) && size < (uint64_t{1} << 40) ? o + static_cast<int64_t>(size) : at;
  }
  g.num_tensors = n;
  if (d.bad(5)) {
    g.num_tensors = d.pick({0, -1, INT64_MIN});
    g.first.clear(), g.last.clear(), g.offsets.clear();
  }
  g.total_elements = at + (d.percent(30) ? d.rng.below(5) : 0);
  if (d.bad(5)) g.total_elements = d.pick({at - 1, -1, INT64_MIN, (int64_t{1} << 56) + 1, INT64_MAX});
  g.data = d.ptr();
  g.first_p = d.ptr(), g.last_p = d.ptr(), g.offsets_p = d.ptr();
  return g;
}

uint64_t group_data_bytes(const GroupDraw& g, uint64_t element_bytes) {
  return bytes_of(g.total_elements, element_bytes);
}

lowp_grouped_tensor* make_group(Call& c, Draw& d, const std::string& name, const GroupDraw& g, Role role,
                                Memory* arrays) {
  (void)d;
  Memory& am = arrays != nullptr ? *arrays : host_memory();
  lowp_grouped_tensor v{};
  v.data = c.buffer(name + "->data", group_data_bytes(g, element_bytes(g.dtype)), role, g.data);
  set_int(v.dtype, g.dtype);
  v.num_tensors = g.num_tensors;
  v.total_elements = g.total_elements;
  const uint64_t n = 8 * g.first.size();
  v.first_dims =
      static_cast<const int64_t*>(c.buffer_with(name + "->first_dims", g.first.data(), n, Role::kIn, g.first_p, &am));
  v.last_dims =
      static_cast<const int64_t*>(c.buffer_with(name + "->last_dims", g.last.data(), n, Role::kIn, g.last_p, &am));
  v.offsets =
      static_cast<const int64_t*>(c.buffer_with(name + "->offsets", g.offsets.data(), n, Role::kIn, g.offsets_p, &am));
  return c.object(name, v, g.null);
}

void group_rules(Expect& e, const std::string& name, const lowp_grouped_tensor* g) {
  if (!e.require(g != nullptr, {name})) return;
  e.require(is_high_precision(as_int(g->dtype)), {name + "->dtype", name});
  const bool n_ok = e.require(g->num_tensors >= 1, {name + "->num_tensors"});
  const bool total_ok =
      e.require(g->total_elements >= 0 && g->total_elements <= kMaxElements, {name + "->total_elements"});
  e.require(g->data != nullptr, {name + "->data"});
  if (is_high_precision(as_int(g->dtype)))
    e.require(aligned_to(g->data, element_bytes(as_int(g->dtype))), {name + "->data"});
  bool arrays_ok = true;
  for (const auto& [p, field] :
       {std::pair{g->first_dims, "->first_dims"}, {g->last_dims, "->last_dims"}, {g->offsets, "->offsets"}}) {
    const std::string a = name + field;
    arrays_ok &= e.require(p != nullptr, {a, std::string(field + 2)}) &&
                 e.require(aligned_to(p, 8), {a, std::string(field + 2)});
  }
  if (!n_ok || !total_ok || !arrays_ok) return;
  // Members in order without overlap, inside the buffer (lowp.h: lowp_grouped_tensor), computed
  // in 128 bits so that no product of dims can wrap.
  const std::initializer_list<std::string> names = {name + " member", name + "->first_dims", name + "->last_dims",
                                                    name + "->offsets"};
  __int128 prev_end = 0;
  for (int64_t t = 0; t < g->num_tensors; ++t) {
    const int64_t f = g->first_dims[t], l = g->last_dims[t], o = g->offsets[t];
    if (!e.require(f >= 0 && l >= 0, names)) return;
    if (!e.require(o >= 0, names)) return;
    if (!e.require(static_cast<__int128>(o) >= prev_end, names)) return;
    const __int128 end = static_cast<__int128>(o) + static_cast<__int128>(f) * l;
    if (!e.require(end <= g->total_elements, names)) return;
    prev_end = end;
  }
}

Workspace make_group_workspace(Call& c, Draw& d, int64_t n, const PtrDraw& how) {
  Workspace w;
  if (n < 1 || lowp_grouped_workspace_size(n, &w.need) != LOWP_SUCCESS) w.need = 64;
  // The CPU backend leaves a workspace alone: not one of the call's buffers there (lowp.h: "the
  // CUDA workspace" is what the aliasing rules name).
  w.ptr = c.buffer("workspace", w.need, c.data.device() ? Role::kOutPartial : Role::kUnused, how);
  w.bytes = w.ptr == nullptr ? 0 : d.bad(5) ? w.need - 8 : w.need;
  return w;
}

void group_workspace_rules(Expect& e, const Call& c, const Workspace& w) {
  if (c.data.device()) {
    if (e.require(w.ptr != nullptr, {"workspace"})) e.require(aligned_to(w.ptr, 8), {"workspace"});
    e.require(w.bytes >= w.need, {"workspace_bytes"});
  }
}

}  // namespace lowp_fuzz
