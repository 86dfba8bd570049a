// CUDA NVFP4 per-tensor quantize (numerics §4, with 4over6 §5c): outer amaxes (flat amax pass,
// exact post-RHT amax pass or estimation), then one encode launch for both orientations.
#include "core/backends.h"
#include "cuda/nvfp4/launch.h"

namespace lowp::cuda {
namespace {

// nvfp4::derived_col_amax in one thread; may run in place (A_row left in the columnwise amax
// when rowwise is not produced).
__global__ void derive_col_amax_kernel(const float* a_row, float* a_col, float factor, bool estimate) {
  *a_col = nvfp4::derived_col_amax(*a_row, estimate, factor);
}

nvfp4::TileArgs tile_args(const Nvfp4QuantizeArgs& a) {
  nvfp4::TileArgs t = nvfp4::tile_args(a.x, a.row, a.col, a.scale_layout, a.rht_sign_mask, a.rng_state, a.four_over_six);
  t.block_2d = a.block_2d;
  return t;
}

}  // namespace

lowp_status nvfp4_quantize(const Nvfp4QuantizeArgs& a, void* stream) {
  const cudaStream_t st = as_stream(stream);
  nvfp4::TileArgs t = tile_args(a);
  const bool want_row = a.row.codes != nullptr, want_col = a.col.codes != nullptr;
  if (!a.amax_given) {
    const bool exact_rht = want_col && a.rht && !a.amax_estimation;
    float* a_row = want_row ? a.row.amax : a.col.amax;  // A_row's home when rowwise is not produced
    if (want_row || !exact_rht) LOWP_TRY(amax(a.x, a_row, st));
    if (exact_rht) {
      LOWP_TRY(nvfp4::rht_amax(t, a.x.dtype, a.col.amax, st));
    } else if (want_col && (a.rht || want_row)) {
      // The tile encode derives A_col itself (one launch less) when A_row has a buffer of its own
      // (block 0 stores A_col while every block reads A_row) and the encode launches a block.
      const bool fuse = want_row && a.row.amax != a.col.amax && a.x.rows > 0 && a.x.cols > 0 &&
                        nvfp4::tile_path_ok(t);
      if (fuse) {
        t.col_amax_from_row = true;
        t.col_amax_estimate = a.rht;
        t.col_amax_factor = a.amax_estimation_factor;
      } else {
        derive_col_amax_kernel<<<1, 1, 0, st>>>(a_row, a.col.amax, a.amax_estimation_factor, a.rht);
        LOWP_TRY(check_launch("nvfp4 derive columnwise amax"));
      }
    }
  }
  // Without given amaxes, an amax kernel of ours precedes the encode.
  return nvfp4::encode(t, {a.x.dtype, false, a.rht, a.stochastic_rounding, !a.amax_given, false, a.four_over_six.on}, st);
}

}  // namespace lowp::cuda
