// POD arguments of the grouped FP8 operations (validated by src/api, trusted by the backends).
#pragma once
#include <cstddef>
#include <cstdint>

#include "lowp/lowp.h"

namespace lowp {

// Member layout arrays: N int64 each, all in the call's memory space.
struct GroupLayout {
  int64_t n;
  int64_t total_elements;
  const int64_t* first;
  const int64_t* last;
  const int64_t* offsets;
  bool on_device;  // device-memory arrays: validated on the device, never read by the host
};

struct GroupedFp8Args {
  const void* x;
  lowp_dtype in_dtype;
  GroupLayout layout;
  const void* act_input;  // backward cast: dact(act_input) * x; act < 0: none
  int act;
  lowp_dtype out_dtype;   // E4M3 / E5M2
  lowp_scaling scaling;   // DELAYED / CURRENT
  float amax_epsilon;
  bool power_of_two_scale;
  uint8_t* row_codes;
  uint8_t* col_codes;
  float* scale;
  float* scale_inv;
  float* amax;
  int64_t amax_stride;  // >= 1
  void* workspace;      // CUDA backend: lowp_grouped_workspace_size bytes
};

struct GroupedDequantizeArgs {
  const uint8_t* codes;
  lowp_dtype code_dtype;
  GroupLayout layout;
  bool columnwise;  // member t is last x first
  const float* scale_inv;
  void* out;
  lowp_dtype out_dtype;
  void* workspace;
};

// Workspace words: [0] layout status (0 ok, else bad member + 1), [1] total tiles, [2], [3] tile
// claim counters of the FP8 tile loops of one call, then from word 4: FP8: the tile prefix sums
// [N + 1] and 3N words for host layout arrays copied to the device; NVFP4 per-token: three prefix
// sums [N + 1] each and N words for host member_rows (cuda/group/nvfp4_prep.cu). The size fits both.
constexpr int64_t kGroupedWsHeader = 4;
inline size_t grouped_workspace_bytes(int64_t n) {
  return sizeof(int64_t) * static_cast<size_t>(kGroupedWsHeader + 4 * (n + 1));
}

}  // namespace lowp
