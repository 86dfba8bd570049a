// Host walk over the members of a grouped NVFP4 per-token call (host member_rows): each member
// as a single-tensor call of its own, with its slice of the group's arrays (layout: lowp.h,
// lowp_nvfp4_grouped_quantize) and the SR index of its first block. Shared by the CPU backend
// and the CUDA backend's any-alignment path.
#pragma once
#include "core/group_layout_rules.h"
#include "core/nvfp4_args.h"

namespace lowp {

// Member t of a group: rows [row0, row0 + rows) of x; where its scale arrays start (bytes).
struct Nvfp4Member {
  int64_t t, row0, rows, row_scale_offset, col_scale_offset;
};

// Calls fn(member) for every member in order.
template <typename Fn>
void for_each_nvfp4_member(const Nvfp4GroupRows& g, int64_t k, Fn fn) {
  Nvfp4Member m{0, 0, 0, 0, 0};
  for (m.t = 0; m.t < g.n; ++m.t) {
    m.rows = g.member_rows[m.t];
    fn(m);
    m.row0 += m.rows;
    m.row_scale_offset += nvfp4_member_row_scale_bytes(m.rows, k);
    m.col_scale_offset += nvfp4_member_col_scale_bytes(m.rows, k);
  }
}

inline DenseView member_view(const DenseView& x, const Nvfp4Member& m) {
  return {static_cast<const uint8_t*>(x.data) + m.row0 * x.cols * dtype_bytes(x.dtype), x.dtype, m.rows, x.cols};
}

// The group's per-token arguments narrowed to member m.
inline Nvfp4PerTokenArgs member_args(const Nvfp4PerTokenArgs& a, const Nvfp4Member& m) {
  const int64_t k = a.x.cols;
  Nvfp4PerTokenArgs mt = a;
  mt.x = member_view(a.x, m);
  if (mt.row.codes) mt.row = {a.row.codes + m.row0 * k / 2, a.row.scales + m.row_scale_offset, a.row.amax + m.row0};
  if (mt.col.codes) mt.col = {a.col.codes + m.row0 * k / 2, a.col.scales + m.col_scale_offset, a.col.amax + m.t * k};
  return mt;
}

inline Nvfp4PerTokenAmaxArgs member_args(const Nvfp4PerTokenAmaxArgs& a, const Nvfp4Member& m) {
  Nvfp4PerTokenAmaxArgs mt = a;
  mt.x = member_view(a.x, m);
  if (mt.row_amax) mt.row_amax += m.row0;
  if (mt.col_amax) mt.col_amax += m.t * a.x.cols;  // an empty member's column amaxes are 0
  return mt;
}

// SR index of member m's first block: the blocks of all earlier members (numerics §7).
inline uint64_t member_sr_base(const Nvfp4Member& m, int64_t k) { return static_cast<uint64_t>(m.row0 * k / 16); }

}  // namespace lowp
