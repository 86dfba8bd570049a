// CUDA per-row NVFP4 recipes, per-token (numerics §5) and row-scaled (§5b, with 4over6 §5c): K1
// (outer amaxes, one read of x), K2 (the encode of both orientations, one read), the composite,
// and their grouped forms: a prep launch (the
// member map, checked on the device, and the amax zeroing; host rows of up to 32 members: the
// zeroing alone), then one K1 and one K2 launch over all members, whatever their number (or, where
// token_strips_ok, the fused first pass and the columnwise K2). Groups whose shape or pointers do
// not allow the tile path take a member-by-member walk when member_rows is on the host.
#include "core/backends.h"
#include "core/nvfp4_members.h"
#include "cuda/group/nvfp4_prep.h"

namespace lowp::cuda {
namespace {

nvfp4::TileArgs tile_args(const Nvfp4PerTokenArgs& a) {
  return nvfp4::tile_args(a.x, a.row, a.col, a.scale_layout, a.rht_sign_mask, a.rng_state, a.four_over_six);
}

// The K1 view of a: the amax arrays of the parts that are produced, no codes.
nvfp4::TileArgs amax_view(const nvfp4::TileArgs& t) {
  nvfp4::TileArgs k = t;
  k.row_amax = t.row_codes != nullptr ? t.row_amax : nullptr;
  k.col_amax = t.col_codes != nullptr ? t.col_amax : nullptr;
  k.row_codes = k.col_codes = nullptr;
  return k;
}

// K2 follows K1 on the stream unless the amaxes are given.
nvfp4::EncodeRecipe recipe(const Nvfp4PerTokenArgs& a) {
  return {a.x.dtype, !a.row_scaled, a.rht, a.stochastic_rounding, !a.amax_given, a.row_scaled, a.four_over_six.on};
}

// The amax arrays K1 (amax_view k) folds into: R row floats, [n][K] column floats (n members).
nvfp4::GroupAmaxes amax_arrays(const nvfp4::TileArgs& k, int64_t n) {
  return {k.row_amax, k.row_amax != nullptr ? k.rows : 0, k.col_amax, k.col_amax != nullptr ? n * k.cols : 0};
}

// K1 of one matrix into the zeroed-here outputs of k (amax_view); row_scaled: its RHT column
// amaxes rounded to bf16.
lowp_status single_amax(const nvfp4::TileArgs& k, lowp_dtype in, bool rht, bool row_scaled, cudaStream_t st) {
  LOWP_TRY(nvfp4::zero_amaxes(amax_arrays(k, 1), st));
  return nvfp4::token_amax(k, in, rht, st, {}, row_scaled);
}

// The fused first pass makes the amaxes and the rowwise copy; K2 then makes the columnwise one.
// Only the column amaxes need zeroing (n members': by the group's prep): every row amax is
// stored whole.
nvfp4::GroupAmaxes strips_zeroing(const nvfp4::TileArgs& t, int64_t n) { return {nullptr, 0, t.col_amax, n * t.cols}; }

lowp_status strips_quantize(nvfp4::TileArgs t, const Nvfp4PerTokenArgs& a, cudaStream_t st, const nvfp4::GroupLaunch& g = {}) {
  LOWP_TRY(nvfp4::token_strips(t, a.x.dtype, st, g));
  t.row_codes = nullptr;
  return nvfp4::encode(t, recipe(a), st, g);
}

lowp_status single_quantize(const Nvfp4PerTokenArgs& a, uint64_t sr_base, cudaStream_t st) {
  nvfp4::TileArgs t = tile_args(a);
  t.sr_base = sr_base;
  if (!a.amax_given && nvfp4::token_strips_ok(t, recipe(a))) {
    LOWP_TRY(nvfp4::zero_amaxes(strips_zeroing(t, 1), st));
    return strips_quantize(t, a, st);
  }
  if (!a.amax_given) LOWP_TRY(single_amax(amax_view(t), a.x.dtype, a.rht, a.row_scaled, st));
  return nvfp4::encode(t, recipe(a), st);
}

// K1 alone: no codes, the caller's amax arrays.
nvfp4::TileArgs amax_args(const Nvfp4PerTokenAmaxArgs& a) {
  nvfp4::TileArgs k = nvfp4::tile_args(a.x, {}, {}, LOWP_SCALE_LAYOUT_COMPACT, a.rht_sign_mask, nullptr);
  k.row_amax = a.row_amax;
  k.col_amax = a.col_amax;
  return k;
}

lowp_status single_amax_call(const Nvfp4PerTokenAmaxArgs& a, cudaStream_t st) {
  return single_amax(amax_args(a), a.x.dtype, a.rht, a.row_scaled, st);
}

lowp_status member_by_member_only(const Nvfp4GroupRows& g) {
  if (!g.rows_on_device) return LOWP_SUCCESS;
  return fail(LOWP_ERROR_UNSUPPORTED,
              "NVFP4 grouped per-token on CUDA with member_rows in device memory needs the one-launch path's "
              "alignment and shape limits (lowp.h, lowp_nvfp4_grouped_quantize); pass member_rows in host memory "
              "otherwise");
}

}  // namespace

lowp_status nvfp4_per_token_quantize(const Nvfp4PerTokenArgs& a, void* stream) {
  return single_quantize(a, 0, as_stream(stream));
}

lowp_status nvfp4_per_token_amax(const Nvfp4PerTokenAmaxArgs& a, void* stream) {
  return single_amax_call(a, as_stream(stream));
}

lowp_status nvfp4_grouped_quantize(const Nvfp4GroupedArgs& a, void* stream) {
  const cudaStream_t st = as_stream(stream);
  const nvfp4::TileArgs t = tile_args(a.t);
  // One launch each over the group when the shape and every pointer allow the tile path (each
  // member's slices are then aligned too: K % 16 == 0, and M_t % 16 == 0 for columnwise).
  if (!nvfp4::tile_path_ok(t)) {
    LOWP_TRY(member_by_member_only(a.group));
    if (!a.t.amax_given && a.t.col.codes != nullptr) LOWP_TRY(nvfp4::zero_amaxes({nullptr, 0, a.t.col.amax, a.group.n * a.t.x.cols}, st));
    lowp_status s = LOWP_SUCCESS;
    for_each_nvfp4_member(a.group, a.t.x.cols, [&](const Nvfp4Member& m) {
      if (s == LOWP_SUCCESS && m.rows > 0) s = single_quantize(member_args(a.t, m), member_sr_base(m, a.t.x.cols), st);
    });
    return s;
  }
  // prepare_group zeroes the amaxes K1 folds into (the prep launch, or for inline host rows the
  // zeroing launch; a bad layout: untouched).
  nvfp4::GroupLaunch g;
  if (!a.t.amax_given && nvfp4::token_strips_ok(t, recipe(a.t), a.group.n)) {
    LOWP_TRY(nvfp4::prepare_group(a.group, a.t.x.rows, strips_zeroing(t, a.group.n), st, &g));
    return strips_quantize(t, a.t, st, g);
  }
  const nvfp4::TileArgs k = amax_view(t);
  LOWP_TRY(nvfp4::prepare_group(a.group, a.t.x.rows, a.t.amax_given ? nvfp4::GroupAmaxes{} : amax_arrays(k, a.group.n),
                                st, &g));
  if (!a.t.amax_given) LOWP_TRY(nvfp4::token_amax(k, a.t.x.dtype, a.t.rht, st, g, a.t.row_scaled));
  return nvfp4::encode(t, recipe(a.t), st, g);
}

lowp_status nvfp4_grouped_amax(const Nvfp4GroupedAmaxArgs& a, void* stream) {
  const cudaStream_t st = as_stream(stream);
  if (!nvfp4::token_amax_tile_path_ok(a.t.x.data, a.t.x.cols, a.t.x.dtype)) {
    LOWP_TRY(member_by_member_only(a.group));
    // Empty members' column amaxes are 0 (none to zero when only row amaxes are asked for).
    if (a.t.col_amax != nullptr) LOWP_TRY(nvfp4::zero_amaxes({nullptr, 0, a.t.col_amax, a.group.n * a.t.x.cols}, st));
    lowp_status s = LOWP_SUCCESS;
    for_each_nvfp4_member(a.group, a.t.x.cols, [&](const Nvfp4Member& m) {
      if (s == LOWP_SUCCESS && m.rows > 0) s = single_amax_call(member_args(a.t, m), st);
    });
    return s;
  }
  const nvfp4::TileArgs k = amax_args(a.t);
  nvfp4::GroupLaunch g;
  LOWP_TRY(nvfp4::prepare_group(a.group, a.t.x.rows, amax_arrays(k, a.group.n), st, &g));
  return nvfp4::token_amax(k, a.t.x.dtype, a.t.rht, st, g, a.t.row_scaled);
}

}  // namespace lowp::cuda
