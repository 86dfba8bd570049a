// Set-up of a grouped NVFP4 per-token call on the device (nvfp4_group_prep.cu).
#pragma once
#include "common/nvfp4_args.h"
#include "nvfp4_launch.h"

namespace lowp::cuda::nvfp4 {

// The member map of a group of `total_rows` rows, built in g.workspace; rows16: every member
// needs rows % 16 == 0 (a columnwise copy is made). Enqueued only: a bad layout is found on the
// device (lowp_grouped_layout_error reads it) and turns every later kernel of the call into a
// no-op.
lowp_status prepare_group(const Nvfp4GroupRows& g, int64_t total_rows, bool rows16, cudaStream_t st, MemberMap* out);

// Zeroes n floats at p (null: nothing) unless the group's layout is bad.
lowp_status zero_if_valid(const MemberMap& g, float* p, int64_t n, cudaStream_t st);

}  // namespace lowp::cuda::nvfp4
