// The NVFP4 helper ops: lowp_nvfp4_swizzle_scales, lowp_rng_advance, lowp_nvfp4_amax_per_token and
// lowp_nvfp4_amax_per_row.
#include <cstring>

#include "harness/args.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

void swizzle_scales(Draw& d, Call& c) {
  const bool huge = d.bad(6);
  const int64_t rows = huge ? d.pick({1, int64_t{1} << 56, INT64_MAX, -1}) : d.dim(1, 3);
  const int64_t blocks = huge ? d.pick({1, int64_t{1} << 56, INT64_MAX, 0}) : d.dim(1, 12);
  const uint64_t bytes = nvfp4_scale_bytes(rows, blocks);
  const PtrDraw cp = d.ptr();
  PtrDraw sp = d.ptr();
  const bool shifted = sp.mode == PtrMode::kAlias && d.percent(50);  // overlapping, not equal
  c.aliasing_decided = true;                                         // lowp.h: "The two buffers must not overlap"
  const uint64_t offset = shifted ? 1 + d.rng.below(static_cast<uint32_t>(bytes > 1 ? bytes - 1 : 1)) : 0;
  void* compact = c.buffer("compact", shifted ? mul_sat(bytes, 2) : bytes, shifted ? Role::kInOut : Role::kIn, cp);
  void* swizzled = shifted ? (compact ? static_cast<uint8_t*>(compact) + offset : nullptr)
                           : c.buffer("swizzled", bytes, Role::kOut, sp);
  Expect& e = c.expect;
  e.require(compact != nullptr, {"compact"});
  e.require(swizzled != nullptr, {"swizzled"});
  const bool dims_ok = e.require(rows >= 0 && blocks >= 0, {"rows", "blocks"}) &&
                       e.open(rows > 0 && blocks > 0, {"rows", "blocks"}, "an empty scale array: lowp.h does not say");
  if (dims_ok) e.require(!too_many(roundup(rows, 128), roundup(blocks, 4)), {"rows", "blocks"});
  if (compact != nullptr && swizzled != nullptr && dims_ok) {
    const auto a = reinterpret_cast<uintptr_t>(compact), b = reinterpret_cast<uintptr_t>(swizzled);
    e.require(a + bytes <= b || b + bytes <= a, {"compact", "swizzled"});
  }
  c.invoke = [=] { return lowp_nvfp4_swizzle_scales(compact, swizzled, rows, blocks, nullptr); };
}

void rng_advance(Draw& d, Call& c) {
  const uint64_t before[2] = {d.rng.next(), d.rng.next()};
  const uint64_t inc = d.percent(20) ? d.pick({0, -1, 1}) : d.rng.next();
  const PtrDraw sp = d.ptr();
  auto* state = static_cast<uint64_t*>(c.buffer_with("rng_state", before, 16, Role::kInOut, sp));
  const bool misaligned = sp.mode == PtrMode::kMisaligned;
  Expect& e = c.expect;
  if (e.require(state != nullptr, {"rng_state"})) e.require(aligned_to(state, 8), {"rng_state"});
  c.invoke = [=] { return lowp_rng_advance(state, inc, nullptr); };
  if (sp.mode == PtrMode::kNormal && !misaligned)
    c.verify = [=, &c]() -> std::string {
      uint64_t got[2];
      const std::vector<uint8_t> v = c.read(state, 16);
      std::memcpy(got, v.data(), 16);
      if (got[0] != before[0] || got[1] != before[1] + inc) return "lowp_rng_advance: not {seed, offset + increment}";
      return "";
    };
}

// lowp_nvfp4_amax_per_token, or with `per_row` lowp_nvfp4_amax_per_row (its `scaling`).
void nvfp4_amax_of(Draw& d, Call& c, bool per_row) {
  const TensorDraw xd = draw_tensor(d, d.dim(16), d.dim(d.percent(70) ? 16 : 1));
  const ConfigDraw kd = draw_config(d, Recipe::kNvfp4PerToken);
  const PtrDraw rp = d.optional(70), cp = d.optional(70);
  const int scaling = per_row ? draw_per_row_scaling(d) : LOWP_SCALING_NVFP4_PER_TOKEN;
  lowp_tensor* x = make_tensor(c, d, "x", xd, Role::kIn);
  float* row = static_cast<float*>(c.buffer("row_amax", bytes_of(xd.rows, 4), Role::kOut, rp));
  float* col = static_cast<float*>(c.buffer("col_amax", bytes_of(xd.cols, 4), Role::kOut, cp));
  lowp_quant_config* cfg = make_config(c, kd, /*reads_rng_state=*/false);
  Expect& e = c.expect;
  tensor_rules(e, "x", x);
  if (per_row) per_row_scaling_rule(e, scaling);
  config_rules(e, cfg);
  // "Reads cfg->rht and cfg->rht_sign_mask only (NULL cfg: the defaults, no RHT); other fields are ignored."
  if (nvfp4_amax_rules(e, row, col, config_as_read(cfg)) && x != nullptr)
    e.require(x->rows % 16 == 0, {"x->rows", "x", "col_amax"});
  if (per_row)
    c.invoke = [=] {
      return lowp_nvfp4_amax_per_row(x, static_cast<lowp_scaling>(scaling), row, col, cfg, nullptr);
    };
  else
    c.invoke = [=] { return lowp_nvfp4_amax_per_token(x, row, col, cfg, nullptr); };
}

void nvfp4_amax_per_token(Draw& d, Call& c) { nvfp4_amax_of(d, c, false); }
void nvfp4_amax_per_row(Draw& d, Call& c) { nvfp4_amax_of(d, c, true); }

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_nvfp4_swizzle_scales, swizzle_scales);
LOWP_FUZZ_ENTRY_POINT(lowp_rng_advance, rng_advance);
LOWP_FUZZ_ENTRY_POINT(lowp_nvfp4_amax_per_token, nvfp4_amax_per_token);
LOWP_FUZZ_ENTRY_POINT(lowp_nvfp4_amax_per_row, nvfp4_amax_per_row);

}  // namespace lowp_fuzz
