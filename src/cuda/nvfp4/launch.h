// Launchers of the NVFP4 kernels, shared by the per-tensor and per-token recipes' host code
// (per_tensor.cu, per_token.cu, group/nvfp4_prep.cu). Declarations and host-side data only: the
// kernels live in the files each launcher names.
#pragma once
#include <cuda_runtime.h>

#include "core/error.h"
#include "core/nvfp4_args.h"
#include "cuda/group/nvfp4_members.h"
#include "cuda/nvfp4/tile_args.h"
#include "lowp/lowp.h"

namespace lowp::cuda::nvfp4 {

struct EncodeRecipe {
  lowp_dtype in;
  bool per_token, rht, sr;
  // The launch follows our own amax kernel on the stream (never the producer of x): the tile
  // kernel launches early and loads x while that kernel finishes (common.cuh).
  bool after_amax = false;
  bool row_scaled = false;     // per-row amaxes with the per-tensor math (not with per_token)
  bool four_over_six = false;  // per-tensor or row-scaled, no RHT, no SR (TileArgs: its knobs)
};

// Codes and scales of every requested orientation of a.x, given its outer amaxes. The tile path
// when the pointers allow it, else one thread per block (any alignment, same bytes). With a group
// (g.map().n > 0, per-token only) every member is encoded as a matrix of its own; aligned pointers only.
lowp_status encode(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st, const GroupLaunch& g = {});

// Per-token K1 into a.row_amax / a.col_amax (either may be null; zeroed by the caller): max |x|
// per row, per column, or with rht per column 0.25 * max |RHT16| over its 16-row strips (with
// rht_bf16, row-scaled's: rounded to bf16). Tile kernel when x is 16-byte aligned, else the FP8
// per-token amax pass and a per-block RHT kernel (single matrix only).
lowp_status token_amax(const TileArgs& a, lowp_dtype in, bool rht, cudaStream_t st, const GroupLaunch& g = {},
                       bool rht_bf16 = false);

// Per-token K1 fused with the rowwise encode (token_strips.cu): the row amaxes, the
// rowwise codes and scales, and the column amaxes (zeroed by the caller, or by a group's prep) in
// one read of x; K2 then makes the columnwise copy alone. token_strips_ok: the kernel builds the
// call (16-bit x of 2048 columns, RN without RHT, compact scales, both orientations; a single
// matrix, members = 0, or a group of up to 32 members, g from prepare_group with the column
// amaxes to zero) and heuristics::take_token_strips says it pays.
bool token_strips_ok(const TileArgs& a, const EncodeRecipe& r, int64_t members = 0);
lowp_status token_strips(const TileArgs& a, lowp_dtype in, cudaStream_t st, const GroupLaunch& g = {});

// K1's tile path reads whole 16-byte row vectors: x aligned and every row starting aligned (K1
// alone takes any K; the encode's K % 16 == 0 always qualifies).
inline bool token_amax_tile_path_ok(const void* x, int64_t cols, lowp_dtype in) {
  return aligned16(x) && (cols * dtype_bytes(in)) % 16 == 0;
}
lowp_status token_rht_amax_blocks(const TileArgs& a, lowp_dtype in, bool rht_bf16, cudaStream_t st);

// Per-tensor exact post-RHT amax of the columnwise copy into *out (zeroed first).
lowp_status rht_amax(const TileArgs& a, lowp_dtype in, float* out, cudaStream_t st);

// The one-thread-per-block kernels behind encode() and rht_amax() for misaligned pointers.
lowp_status encode_blocks(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st);
lowp_status rht_amax_blocks(const TileArgs& a, lowp_dtype in, float* out, cudaStream_t st);

// A per-row recipe (per-token, row-scaled): outer amaxes per row and column, groups possible.
inline bool per_row(const EncodeRecipe& r) { return r.per_token || r.row_scaled; }

// Launch blocks of a tile kernel over a (one per tile) or over a group's row-tile slots.
inline lowp_status launch_blocks(const TileArgs& a, const MemberMap& g, const char* op, unsigned* blocks) {
  const int64_t n = (g.n == 0 ? tile_count(a.rows) : g.slot_bound) * a.col_tiles;
  if (n > 0x7FFFFFFF) return fail(LOWP_ERROR_UNSUPPORTED, "%s: more than 2^31 tiles in one launch", op);
  *blocks = static_cast<unsigned>(n);
  return LOWP_SUCCESS;
}

}  // namespace lowp::cuda::nvfp4
