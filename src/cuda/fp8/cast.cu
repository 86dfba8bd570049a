// Single-tensor FP8 cast (DELAYED, CURRENT, PER_TOKEN; optionally fused with an activation
// gradient): x -> rowwise and/or columnwise codes in one read of x, through the shared tile loop.
// CURRENT runs an amax pass first; PER_TOKEN the per-row/per-column amax pass.
#include <algorithm>

#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "cuda/fp8/heuristics.h"
#include "cuda/fp8/tile_loop.cuh"

namespace lowp::cuda {
namespace {

constexpr int64_t kTileRows = kCastTileRows, kTileCols = kCastTileCols;

// One matrix, tiles numbered row-major over the tile grid.
struct SingleSource {
  static constexpr bool kClaimsTiles = false;  // one block per tile
  TileMatrix m;
  TileScales s;
  lowp_scaling scaling;
  const float* scale_in;  // DELAYED
  float* amax;            // DELAYED: fold; CURRENT: the amax pass result
  float* scale_out;       // CURRENT
  float* scale_inv_out;   // per-tensor
  int64_t col_tiles, n_tiles;
  bool amax_pass;  // this launch is the amax pass of CURRENT scaling

  __device__ int64_t tiles() const { return n_tiles; }
  __device__ TileJob job(int64_t tile) const {
    TileJob j;
    j.m = m;
    j.s = s;
    if (scaling == LOWP_SCALING_DELAYED) j.s.tensor_scale = *scale_in;
    else if (scaling == LOWP_SCALING_CURRENT && !amax_pass) j.s.tensor_scale = s.from(*amax);
    j.tr = tile / col_tiles;
    j.tc = tile % col_tiles;
    j.matrix = 0;
    j.amax_out = (amax_pass || scaling == LOWP_SCALING_DELAYED) ? amax : nullptr;
    j.owner = tile == 0;
    j.scale_out = scaling == LOWP_SCALING_CURRENT ? scale_out : nullptr;
    j.scale_inv_out = scaling == LOWP_SCALING_PER_TOKEN ? nullptr : scale_inv_out;
    return j;
  }
};

template <typename T, bool kE4M3, int kAct>
lowp_status run(const Fp8QuantizeArgs& a, cudaStream_t st) {
  SingleSource src{};
  src.m = {a.x.data, a.act_input, a.x.rows, a.x.cols, a.row_codes, a.col_codes};
  src.s = {0.0f, nullptr, nullptr, a.row_scale_inv, a.col_scale_inv, fp8_max_of(a.out_dtype), a.amax_epsilon, a.power_of_two_scale};
  if (a.scaling == LOWP_SCALING_PER_TOKEN) {
    src.s.row_amax = a.row_codes ? a.row_amax : nullptr;
    src.s.col_amax = a.col_codes ? a.col_amax : nullptr;
  }
  src.scaling = a.scaling;
  src.scale_in = a.scale;
  src.amax = a.amax;
  src.scale_out = a.scale;
  src.scale_inv_out = a.scale_inv;
  src.col_tiles = (a.x.cols + kTileCols - 1) / kTileCols;
  src.n_tiles = ((a.x.rows + kTileRows - 1) / kTileRows) * src.col_tiles;
  if (src.n_tiles > 0x7FFFFFFF) return fail(LOWP_ERROR_UNSUPPORTED, "fp8 cast: more than 2^31 tiles in one tensor");
  if (a.scaling == LOWP_SCALING_CURRENT) {
    if (kAct == kActNone && fp8::heuristics::kCurrentAmaxFlatPass) {
      LOWP_TRY(amax(a.x, a.amax, st));
    } else {
      LOWP_TRY(check_cuda(cudaMemsetAsync(a.amax, 0, sizeof(float), st), "fp8 cast: memset amax"));
      SingleSource pass = src;
      pass.amax_pass = true;
      LOWP_TRY((launch_tile_loop<T, kE4M3, kAct, LoopMode::kAmax>(pass, pass.n_tiles, true, st, "fp8 dact amax pass")));
    }
  }
  if (a.scaling == LOWP_SCALING_PER_TOKEN)
    LOWP_TRY(amax_per_token(a.x, src.s.row_amax ? a.row_amax : nullptr, src.s.col_amax ? a.col_amax : nullptr, st));
  return launch_tile_loop<T, kE4M3, kAct, LoopMode::kCast>(src, src.n_tiles, true, st, "fp8 cast");
}

template <typename T, bool kE4M3>
lowp_status run_act(const Fp8QuantizeArgs& a, cudaStream_t s) {
  switch (a.act) {
    case kActGelu: return run<T, kE4M3, kActGelu>(a, s);
    case kActSilu: return run<T, kE4M3, kActSilu>(a, s);
    case kActRelu: return run<T, kE4M3, kActRelu>(a, s);
    default: return run<T, kE4M3, kActNone>(a, s);
  }
}

template <typename T>
lowp_status run_fmt(const Fp8QuantizeArgs& a, cudaStream_t s) {
  return a.out_dtype == LOWP_DTYPE_E4M3 ? run_act<T, true>(a, s) : run_act<T, false>(a, s);
}

}  // namespace

lowp_status fp8_quantize(const Fp8QuantizeArgs& a, void* stream) {
  cudaStream_t s = as_stream(stream);
  return with_input_type(a.x.dtype, [&](auto t) { return run_fmt<decltype(t)>(a, s); });
}

}  // namespace lowp::cuda
