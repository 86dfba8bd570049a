// Set-up of an NVFP4 per-token call on the device (nvfp4_prep.cu): the amax zeroing, and for
// a group the member map.
#pragma once
#include "core/nvfp4_args.h"
#include "cuda/nvfp4/launch.h"

namespace lowp::cuda::nvfp4 {

// The amax arrays K1 folds into (row_n / col_n floats; 0: none), zeroed by prepare_group.
struct GroupAmaxes {
  float* row;
  int64_t row_n;
  float* col;
  int64_t col_n;
};

// The member map of a group of `total_rows` rows, built in g.workspace, and `zero` zeroed; every
// member needs rows % g.row_multiple == 0. One launch, enqueued only: a bad
// layout is found on the device (lowp_grouped_layout_error reads it), zeroes nothing and turns
// every later kernel of the call into a no-op. Host rows of up to 32 members (checked by the
// API) go by value instead (InlineMembers): no workspace, only the zeroing launch.
lowp_status prepare_group(const Nvfp4GroupRows& g, int64_t total_rows, const GroupAmaxes& zero, cudaStream_t st,
                          GroupLaunch* out);

// Zeroes both arrays of z in one launch (one graph node where two memsets are two).
lowp_status zero_amaxes(const GroupAmaxes& z, cudaStream_t st);

}  // namespace lowp::cuda::nvfp4
