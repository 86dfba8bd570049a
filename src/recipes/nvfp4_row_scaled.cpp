// Recipe: row-scaled NVFP4 (numerics §5b, TE main's row-scaled NVFP4): the per-token recipe's
// buffers and K1 (one raw outer amax per row of each copy) with the per-tensor recipe's math row by
// row: S_enc from the raw amax, the per-tensor multiplier, no zero-block rule, the RHT rounded to
// bf16; 4over6 (numerics §5c) on 1D blocks. Its ops are the per-row ones (recipes/nvfp4_per_token.h).
#include "recipes/nvfp4_per_token.h"
#include "recipes/nvfp4_rules.h"

namespace lowp {

extern const Recipe kNvfp4RowScaled = {
    "NVFP4 (E2M1) row-scaled",
    {LOWP_DTYPE_E2M1, LOWP_DTYPE_E2M1},
    {LOWP_SCALING_NVFP4_ROW_SCALED, LOWP_SCALING_NVFP4_ROW_SCALED},
    "LOWP_SCALING_NVFP4_ROW_SCALED",
    /*fuses_dact=*/false,
    /*dequantize_reads_amax=*/true,
    {nvfp4_per_row_validate, nvfp4_per_row_make_args, nvfp4_per_row_quantize_cpu, nvfp4_per_row_quantize_cuda},
    {check_nvfp4_dequantize, nvfp4_dequantize_args, nvfp4_dequantize_cpu, nvfp4_dequantize_cuda},
    nvfp4_per_row_sizes,
};

}  // namespace lowp
