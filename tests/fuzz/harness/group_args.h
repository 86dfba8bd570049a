// lowp_grouped_tensor: draws of member layouts (valid ones with empty members, gaps and huge dims
// of empty members; faults: overlaps, negative dims or offsets, members past total_elements,
// products that overflow), the builder, and lowp.h's layout rules.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/call.h"
#include "harness/draw.h"

namespace lowp_fuzz {

struct GroupDraw {
  bool null = false;
  int dtype = LOWP_DTYPE_FLOAT32;
  int64_t num_tensors = 1;
  int64_t total_elements = 0;
  std::vector<int64_t> first, last, offsets;  // max(num_tensors, 0) entries each
  PtrDraw data, first_p, last_p, offsets_p;
};

GroupDraw draw_group(Draw& d, int max_members = 6);
// The same layout with another dtype (grouped dequantize's out, dact's act_input).
uint64_t group_data_bytes(const GroupDraw& g, uint64_t element_bytes);
// The struct (host), its data (`role`) and its layout arrays (In, host memory unless `arrays`).
lowp_grouped_tensor* make_group(Call& c, Draw& d, const std::string& name, const GroupDraw& g, Role role,
                                Memory* arrays = nullptr);

// lowp.h's rules of a group `name` (lowp_grouped_tensor), host layout arrays read member by member.
void group_rules(Expect& e, const std::string& name, const lowp_grouped_tensor* g);

// The workspace of a grouped call: NULL, or lowp_grouped_workspace_size(n) bytes (a fault: 8
// short), in the call's memory.
struct Workspace {
  void* ptr = nullptr;
  size_t bytes = 0;  // workspace_bytes passed
  size_t need = 0;
};
Workspace make_group_workspace(Call& c, Draw& d, int64_t n, const PtrDraw& how);
// CUDA: not NULL, 8-byte aligned, at least `need` bytes. Host: every grouped call needs none and
// ignores it (lowp.h).
void group_workspace_rules(Expect& e, const Call& c, const Workspace& ws);

}  // namespace lowp_fuzz
