// Tuning of the NVFP4 launches, kept apart from the mechanism it tunes: where several kernels or
// launch shapes give the same bytes, which one a call takes. Each rule names the benchmark op that
// measures it (bench/nvfp4_per_token_bench.cpp, lowp_bench_nvfp4_per_token --ops ...) and the
// design note that says why (docs/perf/). Change a rule only with an A/B run of those ops
// (scripts/gpu-ab.sh).
#pragma once
#include <cstdint>

namespace lowp::cuda::nvfp4::heuristics {

// The fused first pass (K1 with the rowwise encode, token_strips.cu), where the call is one it
// supports: a single tensor from 4096 rows, a group from 8192 rows. With fewer rows a block has
// too few strips to hide its copies behind the encode, and K1 then K2 is faster.
// Ops: token, grouped8 at K = 2048. Note: docs/perf/nvfp4-per-token.md, "The fused first pass"
// (and grouped.md for groups).
inline bool take_token_strips(int64_t rows, int64_t members) { return rows >= (members == 0 ? 4096 : 8192); }

// The per-token encode (K2, and the fused pass's rowwise stores) marks its loads of x and its
// stores evict-first when x fits in L2: the codes then evict the tiles already encoded, not those
// still to come. Past the L2 the hints cost, so stores stay plain; nothing is marked evict-last
// (its lines outlive the call and slow the kernels after it). Row-scaled NVFP4 takes the same
// rule: the same K1 then K2 over x (op rs against token).
// Ops: token, k2 (16M-element shapes: inside L2; 128M: past it), rs, rs_k2. Note:
// nvfp4-per-token.md, "Evict-first when x fits in L2".
inline bool per_token_evict_first(int64_t x_bytes, int64_t l2_bytes) { return x_bytes <= l2_bytes; }

// Blocks per SM a group's encode launch may take, 0 for no cap. A launch sized for the worst split
// (device member rows) runs its live tiles first and its surplus blocks after; with 5 blocks per
// SM the live ones piled up on a few SMs. Capped at 3 when the fewest live tiles any split has fit
// one round of 3 per SM and every split fits two rounds; larger launches lose more from fewer
// blocks per SM than they gain, and a cap of 2 cost the splits with more tiles.
// Ops: grouped8, grouped8_uneven, grouped8_worst at 1024-4096 rows. Note: docs/perf/grouped.md,
// "K2 walks row-tile slots".
inline int group_encode_blocks_per_sm(bool worst_split_sized, int64_t launch_blocks, int64_t fewest_live_tiles,
                                      int64_t sm_count) {
  constexpr int kCap = 3;
  if (!worst_split_sized) return 0;  // every other launch (the single tensor's too) takes no cap
  const int64_t one_round = int64_t{kCap} * sm_count;
  if (launch_blocks > 2 * one_round || fewest_live_tiles > one_round) return 0;
  return kCap;
}

// K1 of a group walks the whole matrix's tiles (the single tensor's launch, members looked up
// while the tile loads) where every 16-row group of x lies in one member; the single tensor keeps
// the member walk's kernel, whose whole-tile form was slower on the same tiles (cause not found).
// Ops: grouped8_k1, grouped8 against k1, token. Note: docs/perf/grouped.md, "K1 walks the whole
// matrix's tiles".
inline bool k1_whole_matrix_tiles(bool group, bool row_groups_in_one_member) { return group && row_groups_in_one_member; }

}  // namespace lowp::cuda::nvfp4::heuristics
