// C entry points of the NVFP4 helper ops: the per-row recipes' K1 alone (per-token, row-scaled), the
// standalone scale swizzle and the stochastic-rounding state advance.
#include "core/aliasing.h"
#include "core/backends.h"
#include "core/entry.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/growable.h"
#include "core/validate.h"
#include "recipes/nvfp4_per_token.h"
#include "recipes/nvfp4_rules.h"

using namespace lowp;

namespace {

// K1 of per-row recipe `scaling` (read as an int: a C caller may pass any value).
lowp_status nvfp4_amax_per_row(const char* entry, const lowp_tensor* x, int scaling, float* row_amax,
                               float* col_amax, const lowp_quant_config* cfg, void* stream) {
  return guarded(entry, [&] {
    LOWP_TRY(check_tensor(x, "x"));
    lowp_quant_config c;
    LOWP_TRY(read_config(cfg, &c));
    Nvfp4PerTokenAmaxArgs a;
    LOWP_TRY(check_nvfp4_amax_call(*x, scaling, row_amax, col_amax, c, &a));
    LOWP_TRY(check_no_overlap({{x->data, dense_bytes(*x), "x->data", false},
                               {row_amax, float_bytes(x->rows), "row_amax", true},
                               {col_amax, float_bytes(x->cols), "col_amax", true}}));
    MemorySpace space;
    LOWP_TRY(check_same_space({{x->data, "x->data"}, {row_amax, "row_amax"}, {col_amax, "col_amax"}}, &space));
    LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_per_token_amax(a, stream) : cpu::nvfp4_per_token_amax(a));
    return succeed();
  });
}

}  // namespace

extern "C" {

lowp_status lowp_nvfp4_amax_per_token(const lowp_tensor* x, float* row_amax, float* col_amax,
                                      const lowp_quant_config* cfg, void* stream) {
  return nvfp4_amax_per_row("lowp_nvfp4_amax_per_token", x, LOWP_SCALING_NVFP4_PER_TOKEN, row_amax, col_amax, cfg,
                            stream);
}

lowp_status lowp_nvfp4_amax_per_row(const lowp_tensor* x, lowp_scaling scaling, float* row_amax, float* col_amax,
                                    const lowp_quant_config* cfg, void* stream) {
  return nvfp4_amax_per_row("lowp_nvfp4_amax_per_row", x, raw(scaling), row_amax, col_amax, cfg, stream);
}

lowp_status lowp_nvfp4_swizzle_scales(const void* compact, void* swizzled, int64_t rows, int64_t blocks,
                                      void* stream) {
  return guarded("lowp_nvfp4_swizzle_scales", [&] {
    LOWP_TRY(check_not_null(compact, "compact"));
    LOWP_TRY(check_not_null(swizzled, "swizzled"));
    LOWP_TRY(check_scale_array(rows, blocks, "rows x blocks"));
    const size_t n = nvfp4_scale_array_bytes(rows, blocks);
    LOWP_TRY(check_no_overlap({{compact, n, "compact", false}, {swizzled, n, "swizzled", true}}));
    MemorySpace space;
    LOWP_TRY(check_same_space({{compact, "compact"}, {swizzled, "swizzled"}}, &space));
    const Nvfp4SwizzleArgs a{static_cast<const uint8_t*>(compact), static_cast<uint8_t*>(swizzled), rows, blocks};
    LOWP_TRY(space == MemorySpace::kDevice ? cuda::nvfp4_swizzle_scales(a, stream) : cpu::nvfp4_swizzle_scales(a));
    return succeed();
  });
}

lowp_status lowp_rng_advance(uint64_t* rng_state, uint64_t increment, void* stream) {
  return guarded("lowp_rng_advance", [&] {
    LOWP_TRY(check_not_null(rng_state, "rng_state"));
    LOWP_TRY(check_aligned(rng_state, 8, "rng_state"));
    MemorySpace space;
    LOWP_TRY(check_same_space({{rng_state, "rng_state"}}, &space));
    LOWP_TRY(space == MemorySpace::kDevice ? cuda::rng_advance(rng_state, increment, stream)
                                           : cpu::rng_advance(rng_state, increment));
    return succeed();
  });
}

}  // extern "C"
