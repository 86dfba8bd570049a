// Grouped FP8 (per-tensor scaling per member): one launch sequence for any number of members.
//
// A one-block prep kernel validates the member layout on the device (the member walk of
// group/member_scan.cuh), turns each member's tile count into prefix sums in the workspace and
// initialises per-member state (empty members get
// their scale_inv here; everything else is written by the member's first tile). The persistent
// tile loop then maps each global tile to its member by a warp-wide 32-ary search of the prefix
// sums, so the work per launch does not depend on N. A bad layout writes nothing: the prep kernel
// records the first bad member and sets the tile count to zero.
#include <algorithm>
#include <climits>

#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "core/group_layout_rules.h"
#include "cuda/fp8/tile_loop.cuh"
#include "cuda/group/member_scan.cuh"
#include "cuda/group/search.cuh"

namespace lowp::cuda {
namespace {

constexpr int kPrepThreads = 1024;

struct Layout {
  int64_t n, total;
  const int64_t *first, *last, *offsets;  // device memory
};

enum class PrepMode { kCastDelayed, kCastCurrent, kAmax, kNone };

struct PrepParams {
  Layout L;
  int64_t* ws;
  PrepMode mode;
  const float* scale;  // delayed
  float* scale_out;    // current
  float* scale_inv;
  float* amax;
  int64_t amax_stride;
  float fp8_max, eps;
  bool pow2;
};

__device__ __forceinline__ int64_t tiles_of(int64_t f, int64_t l) {
  return ((f + kCastTileRows - 1) / kCastTileRows) * ((l + kCastTileCols - 1) / kCastTileCols);
}

// A member as the walk loads it: its tiles (0 when it breaks the rules) and whether it keeps them.
struct LoadedMember {
  long long counts;
  bool ok;
};

__global__ void __launch_bounds__(kPrepThreads) prep_kernel(PrepParams p) {
  const Layout& L = p.L;
  int64_t* prefix = p.ws + kGroupedWsHeader;
  if (threadIdx.x == 0) p.ws[2] = p.ws[3] = 0;  // tile claim counters
  const MemberWalk<long long> w = scan_members_block<kPrepThreads, long long>(
      L.n,
      [&](int64_t t) {
        const bool ok = group_member_ok(L.first, L.last, L.offsets, t, L.total);
        return LoadedMember{ok ? static_cast<long long>(tiles_of(L.first[t], L.last[t])) : 0, ok};
      },
      [&](int64_t t, const LoadedMember& m, long long before) {
        prefix[t] = before;
        return m.ok;
      });
  const bool bad = w.first_bad != ULLONG_MAX;
  if (threadIdx.x == 0) {
    prefix[L.n] = w.sum;
    p.ws[0] = bad ? static_cast<int64_t>(w.first_bad) + 1 : 0;  // the layout status
    p.ws[1] = bad ? 0 : w.sum;                                   // total tiles
  }
  if (bad) return;
  for (int64_t t = threadIdx.x; t < L.n; t += kPrepThreads) {
    const bool empty = L.first[t] == 0 || L.last[t] == 0;
    float* amax = p.amax + t * p.amax_stride;
    switch (p.mode) {
      case PrepMode::kCastDelayed:
        if (empty) p.scale_inv[t] = num::reciprocal_rn(p.scale[t]);
        break;
      case PrepMode::kCastCurrent:
        *amax = 0.0f;
        if (empty) {
          const float s = num::fp8_scale_from_amax(0.0f, p.fp8_max, p.eps, p.pow2);
          p.scale_out[t] = s;
          p.scale_inv[t] = num::reciprocal_rn(s);
        }
        break;
      case PrepMode::kAmax:
        *amax = 0.0f;
        break;
      case PrepMode::kNone:
        break;
    }
  }
}

// Tile source over the members of a group. Blocks claim tiles from a counter (dynamic
// balance: the tile count is only known on the device, so the grid is persistent).
struct GroupSource {
  static constexpr bool kClaimsTiles = true;
  Layout L;
  const int64_t* prefix;
  const int64_t* total_tiles;
  unsigned long long* claim_counter;
  const uint8_t* x;
  const uint8_t* act;
  int64_t elem_bytes;
  uint8_t* row_codes;
  uint8_t* col_codes;
  lowp_scaling scaling;
  const float* scale;
  float* scale_out;
  float* scale_inv;
  float* amax;
  int64_t amax_stride;
  float fp8_max, eps;
  bool pow2;
  bool amax_pass;

  __device__ int64_t tiles() const { return *total_tiles; }
  __device__ TileJob job(int64_t tile) const {
    const int64_t t = find_member(prefix, L.n, tile);
    const int64_t f = L.first[t], l = L.last[t], o = L.offsets[t];
    const int64_t local = tile - prefix[t];
    const int64_t col_tiles = (l + kCastTileCols - 1) / kCastTileCols;
    TileJob j;
    j.m = {x + o * elem_bytes, act ? act + o * elem_bytes : nullptr, f, l,
           row_codes ? row_codes + o : nullptr, col_codes ? col_codes + o : nullptr};
    j.s = {0.0f, nullptr, nullptr, nullptr, nullptr, fp8_max, eps, pow2};
    float* member_amax = amax + t * amax_stride;
    if (scaling == LOWP_SCALING_DELAYED) j.s.tensor_scale = scale[t];
    else if (!amax_pass) j.s.tensor_scale = j.s.from(*member_amax);
    j.tr = local / col_tiles;
    j.tc = local % col_tiles;
    j.matrix = t;
    j.amax_out = (amax_pass || scaling == LOWP_SCALING_DELAYED) ? member_amax : nullptr;
    j.owner = local == 0;
    j.scale_out = scaling == LOWP_SCALING_CURRENT ? scale_out + t : nullptr;
    j.scale_inv_out = scale_inv + t;
    return j;
  }
};

// Device pointers to the layout arrays: the caller's, or copies of host arrays in the workspace.
lowp_status device_layout(const GroupLayout& g, int64_t* ws, cudaStream_t s, Layout* out) {
  *out = {g.n, g.total_elements, g.first, g.last, g.offsets};
  if (g.on_device) return LOWP_SUCCESS;
  int64_t* copy = ws + kGroupedWsHeader + (g.n + 1);
  const size_t bytes = sizeof(int64_t) * g.n;
  LOWP_TRY(check_cuda(cudaMemcpyAsync(copy, g.first, bytes, cudaMemcpyHostToDevice, s), "grouped: copy first_dims"));
  LOWP_TRY(check_cuda(cudaMemcpyAsync(copy + g.n, g.last, bytes, cudaMemcpyHostToDevice, s), "grouped: copy last_dims"));
  LOWP_TRY(check_cuda(cudaMemcpyAsync(copy + 2 * g.n, g.offsets, bytes, cudaMemcpyHostToDevice, s), "grouped: copy offsets"));
  *out = {g.n, g.total_elements, copy, copy + g.n, copy + 2 * g.n};
  return LOWP_SUCCESS;
}

lowp_status prep(const PrepParams& p, cudaStream_t s) {
  prep_kernel<<<1, kPrepThreads, 0, s>>>(p);
  return check_launch("grouped prep kernel");
}

// Upper bound of the group's tile count for sizing the persistent grid (the loop reads the
// exact count from the workspace): a full GPU's worth.
constexpr int64_t kManyTiles = int64_t{1} << 30;

template <typename T, bool kE4M3, int kAct>
lowp_status quantize(const GroupedFp8Args& a, cudaStream_t s) {
  auto* ws = static_cast<int64_t*>(a.workspace);
  Layout L;
  LOWP_TRY(device_layout(a.layout, ws, s, &L));
  const float fp8_max = fp8_max_of(a.out_dtype);
  const bool current = a.scaling == LOWP_SCALING_CURRENT;
  LOWP_TRY(prep({L, ws, current ? PrepMode::kCastCurrent : PrepMode::kCastDelayed, a.scale, a.scale, a.scale_inv,
                 a.amax, a.amax_stride, fp8_max, a.amax_epsilon, a.power_of_two_scale},
                s));
  auto* counters = reinterpret_cast<unsigned long long*>(ws + 2);
  GroupSource src{L, ws + kGroupedWsHeader, ws + 1, counters + 1, static_cast<const uint8_t*>(a.x),
                  static_cast<const uint8_t*>(a.act_input), dtype_bytes(a.in_dtype), a.row_codes, a.col_codes,
                  a.scaling, a.scale, a.scale, a.scale_inv, a.amax, a.amax_stride, fp8_max, a.amax_epsilon,
                  a.power_of_two_scale, false};
  if (current) {
    GroupSource pass = src;
    pass.claim_counter = counters;
    pass.amax_pass = true;
    LOWP_TRY((launch_tile_loop<T, kE4M3, kAct, LoopMode::kAmax>(pass, kManyTiles, false, s, "grouped amax pass")));
  }
  return launch_tile_loop<T, kE4M3, kAct, LoopMode::kCast>(src, kManyTiles, false, s, "grouped fp8 cast");
}

template <typename T, bool kE4M3>
lowp_status quantize_act(const GroupedFp8Args& a, cudaStream_t s) {
  switch (a.act) {
    case kActGelu: return quantize<T, kE4M3, kActGelu>(a, s);
    case kActSilu: return quantize<T, kE4M3, kActSilu>(a, s);
    case kActRelu: return quantize<T, kE4M3, kActRelu>(a, s);
    default: return quantize<T, kE4M3, kActNone>(a, s);
  }
}

template <typename T>
lowp_status quantize_fmt(const GroupedFp8Args& a, cudaStream_t s) {
  return a.out_dtype == LOWP_DTYPE_E4M3 ? quantize_act<T, true>(a, s) : quantize_act<T, false>(a, s);
}

template <typename T>
lowp_status amax_op(const GroupedFp8Args& a, cudaStream_t s) {
  auto* ws = static_cast<int64_t*>(a.workspace);
  Layout L;
  LOWP_TRY(device_layout(a.layout, ws, s, &L));
  LOWP_TRY(prep({L, ws, PrepMode::kAmax, nullptr, nullptr, nullptr, a.amax, a.amax_stride, 448.0f, 0.0f, false}, s));
  GroupSource src{L, ws + kGroupedWsHeader, ws + 1, reinterpret_cast<unsigned long long*>(ws + 2),
                  static_cast<const uint8_t*>(a.x), nullptr, dtype_bytes(a.in_dtype), nullptr,
                  nullptr, LOWP_SCALING_CURRENT, nullptr, nullptr, nullptr, a.amax, a.amax_stride, 448.0f, 0.0f,
                  false, true};
  return launch_tile_loop<T, true, kActNone, LoopMode::kAmax>(src, kManyTiles, false, s, "grouped amax");
}

// Grouped dequantize: elementwise per member (one scale each), over the same tile index space:
// member t's chunk c covers its elements [c * kChunk, (c + 1) * kChunk), which never needs more
// chunks than the member has tiles.
constexpr int64_t kChunk = kCastTileRows * kCastTileCols;

template <typename OutRaw, bool kE4M3>
__global__ void __launch_bounds__(256) grouped_dequantize_kernel(GroupedDequantizeArgs a, Layout L, const int64_t* prefix,
                                                                 const int64_t* total_tiles) {
  const int64_t tiles = *total_tiles;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t t = find_member(prefix, L.n, tile);
    const int64_t size = L.first[t] * L.last[t];
    const int64_t begin = (tile - prefix[t]) * kChunk;
    if (begin >= size) continue;
    const int64_t end = min(size, begin + kChunk);
    const float s = a.scale_inv[t];
    const uint8_t* q = a.codes + L.offsets[t];
    OutRaw* out = static_cast<OutRaw*>(a.out) + L.offsets[t];
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      const float v = num::fp8_dequantize_element<kE4M3>(q[i], s);
      if constexpr (sizeof(OutRaw) == 4) out[i] = v;
      else if (a.out_dtype == LOWP_DTYPE_BFLOAT16) out[i] = num::f32_to_bf16(v);
      else out[i] = num::f32_to_f16(v);
    }
  }
}

template <typename OutRaw, bool kE4M3>
lowp_status dequantize_launch(const GroupedDequantizeArgs& a, const Layout& L, int64_t* ws, cudaStream_t s) {
  const int grid = sm_count() * 8;
  grouped_dequantize_kernel<OutRaw, kE4M3><<<grid, 256, 0, s>>>(a, L, ws + kGroupedWsHeader, ws + 1);
  return check_launch("grouped dequantize kernel");
}

}  // namespace

lowp_status grouped_fp8_quantize(const GroupedFp8Args& a, void* stream) {
  cudaStream_t s = as_stream(stream);
  return with_input_type(a.in_dtype, [&](auto t) { return quantize_fmt<decltype(t)>(a, s); });
}

lowp_status grouped_amax(const GroupedFp8Args& a, void* stream) {
  cudaStream_t s = as_stream(stream);
  return with_input_type(a.in_dtype, [&](auto t) { return amax_op<decltype(t)>(a, s); });
}

lowp_status grouped_fp8_dequantize(const GroupedDequantizeArgs& a, void* stream) {
  cudaStream_t s = as_stream(stream);
  auto* ws = static_cast<int64_t*>(a.workspace);
  Layout L;
  LOWP_TRY(device_layout(a.layout, ws, s, &L));
  LOWP_TRY(prep({L, ws, PrepMode::kNone, nullptr, nullptr, nullptr, nullptr, 1, 448.0f, 0.0f, false}, s));
  const bool e4m3 = a.code_dtype == LOWP_DTYPE_E4M3;
  if (a.out_dtype == LOWP_DTYPE_FLOAT32)
    return e4m3 ? dequantize_launch<float, true>(a, L, ws, s) : dequantize_launch<float, false>(a, L, ws, s);
  return e4m3 ? dequantize_launch<uint16_t, true>(a, L, ws, s) : dequantize_launch<uint16_t, false>(a, L, ws, s);
}

lowp_status grouped_layout_error(const void* workspace, int64_t* bad_plus_one, void* stream) {
  cudaStream_t s = as_stream(stream);
  LOWP_TRY(check_cuda(cudaMemcpyAsync(bad_plus_one, workspace, sizeof(int64_t), cudaMemcpyDeviceToHost, s),
                      "grouped layout status: copy"));
  return check_cuda(cudaStreamSynchronize(s), "grouped layout status: synchronize");
}

}  // namespace lowp::cuda
