// Launchers of the NVFP4 encode kernels, shared by the per-tensor and per-token recipes' host code.
#pragma once
#include <cuda_runtime.h>

#include "lowp/lowp.h"
#include "nvfp4_tile.cuh"

namespace lowp::cuda::nvfp4 {

struct EncodeRecipe {
  lowp_dtype in;
  bool per_token, rht, sr;
};

// Codes and scales of every requested orientation of a.x, given its outer amaxes. The tile path
// when the pointers allow it, else one thread per block (any alignment, same bytes).
lowp_status encode(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st);

// Per-tensor exact post-RHT amax of the columnwise copy into *out (zeroed first).
lowp_status rht_amax(const TileArgs& a, lowp_dtype in, float* out, cudaStream_t st);

// The one-thread-per-block kernels behind encode() and rht_amax() for misaligned pointers.
lowp_status encode_blocks(const TileArgs& a, const EncodeRecipe& r, cudaStream_t st);
lowp_status rht_amax_blocks(const TileArgs& a, lowp_dtype in, float* out, cudaStream_t st);

inline int64_t tile_count(int64_t n) { return (n + kTile - 1) / kTile; }

}  // namespace lowp::cuda::nvfp4
