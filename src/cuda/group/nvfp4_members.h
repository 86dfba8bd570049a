// A grouped NVFP4 per-token launch as the host passes it to the kernels: the member map the group
// prep builds in the workspace (cuda/group/nvfp4_prep.cu), or a small group's rows by value. Plain
// data, no device code: the kernels' lookups are in nvfp4_member_lookup.cuh.
#pragma once
#include <cstdint>

namespace lowp::cuda::nvfp4 {

// Groups of at most this many members are scanned by one warp (one member per lane,
// nvfp4_member_scan.cuh): the prep builds their map that way, and K1 and the encode's lookup may scan
// them without the map.
constexpr int64_t kWarpScanMembers = 32;

// Prefix sums over the members, in device memory (cuda/group/nvfp4_prep.cu fills them).
struct MemberMap {
  int64_t n;                  // 0: not a group; the TileArgs are the whole matrix
  const int64_t* row0;        // [n + 1] first row of each member
  const int64_t* tile0;       // [n + 1] first row-tile slot: sum of ceil(M_u / 128), u < t
  const int64_t* col_quads0;  // [n + 1] sum of ceil(M_u / 64), u < t (columnwise scale columns / 4)
  const int64_t* live_tiles;  // row-tile slots to run: tile0[n], or 0 when the layout is bad
  int64_t slot_bound;         // host: row-tile slots to launch: exact for host member rows, else
                              // >= *live_tiles for any valid split
  // What the map is built from: member_rows in device memory (written before the prep launch),
  // the rows they must sum to, the rows' declared multiple (>= 1).
  const int64_t* rows;
  int64_t total_rows, row_multiple;
};

// A group of up to 32 members whose rows the host holds (and the API has checked): the rows by
// value, the kernels' parameter in place of a MemberMap alone (whose map pointers are then null).
// The call needs no copy of the rows, no prep launch and no map lookup. A separate type, so that
// the single tensor's MemberMap parameter stays small (rows in every MemberMap cost its composite).
struct InlineMembers {
  MemberMap map;
  int64_t rows[kWarpScanMembers];
};

// A group launch as the host passes it down: inline rows, or the prep's map (n = 0: no group).
struct GroupLaunch {
  InlineMembers members{};
  bool rows_inline = false;
  bool worst_split_sized = false;  // device rows: map().slot_bound exceeds the fewest slots a split has
  const MemberMap& map() const { return members.map; }
};

__host__ __device__ inline const MemberMap& map_of(const MemberMap& g) { return g; }
__host__ __device__ inline const MemberMap& map_of(const InlineMembers& g) { return g.map; }

}  // namespace lowp::cuda::nvfp4
