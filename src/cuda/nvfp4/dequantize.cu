// CUDA NVFP4 dequantize of one orientation (numerics §3): out = e2m1(q) * (float(s) * A * (1/6E)),
// A the orientation's one amax (per-tensor), its row's amax floored at 1e-12 (per-token, §5) or
// raw (row-scaled, §5b); 6E = 2688, or 1536 after 4over6 with E = 256 (§5c).
// The same kernel serves every recipe and copy: an RHT-domain columnwise copy dequantizes in the
// RHT domain, like the CPU backend.
//
// The op moves 0.5 + 1/16 bytes in and 2 or 4 bytes out per element, so the stores decide its
// speed: a warp takes 512 code bytes (1024 elements) per step, one 16-byte load per lane into
// shared memory, then writes the outputs as 16-byte stores with consecutive lanes on consecutive
// 16 bytes (every store instruction one contiguous 512 bytes). The next step's codes are loaded
// before this step's stores. Block scales decode through a shared table built with the scalar
// rule; the elements see dequantize16.
#include <cuda_fp16.h>

#include <algorithm>

#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "cuda/gemm/nvfp4_decode.cuh"  // the register decode of E2M1 codes the GEMM uses
#include "numerics/nvfp4_scaling.h"
#include "numerics/swizzle.h"

namespace lowp::cuda {
namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kStepBytes = 512;  // code bytes per warp and step: 32 lanes x 16 bytes
// Blocks per SM of the grid-stride launch: enough warps in flight to cover the load latency
// (lowp_bench_nvfp4's dequant ops measure it).
constexpr int kBlocksPerSm = 8;

__device__ __forceinline__ uint4 load_codes(const uint8_t* codes, uint64_t at, uint64_t code_bytes) {
  if (at + 16 <= code_bytes) return __ldg(reinterpret_cast<const uint4*>(codes + at));
  if (at < code_bytes) {  // the last 8 bytes (code_bytes % 8 == 0: rows of cols / 2 bytes, cols % 16 == 0)
    const uint2 h = __ldg(reinterpret_cast<const uint2*>(codes + at));
    return make_uint4(h.x, h.y, 0, 0);
  }
  return make_uint4(0, 0, 0, 0);
}

// kPerStore codes (element i in bits 4i..4i+3) of one block with dequantize factor f, as the
// 16 bytes of Out they dequantize to. Fast path, when f * 64 is finite: the hardware decodes the
// codes to e2m1(q) / 64 in fp16 (exact), so e2m1(q) * f = (e2m1(q) / 64) * (f * 64) is one fp32
// product rounded once as the scalar rule rounds it, never NaN, and the hardware converts it.
// Otherwise (f NaN, infinite or above FLT_MAX / 64) the scalar rules, element by element.
template <typename Out, int kPerStore>
__device__ __forceinline__ uint4 dequantize16(uint32_t q, float f) {
  union {
    uint4 u;
    typename Out::Raw r[kPerStore];
    uint32_t w[4];
  } o;
  const float f64 = num::mul_rn(f, 64.0f);
  if (fabsf(f64) <= num::kFltMax) {
    uint32_t h[4];  // f16x2 pairs of e2m1(q) / 64, in element order
    gemm_sm90::decode_e2m1x8_div64(q, h);
#pragma unroll
    for (int i = 0; i < kPerStore / 2; ++i) {
      const float2 p = __half22float2(*reinterpret_cast<const __half2*>(&h[i]));
      const float lo = num::mul_rn(p.x, f64), hi = num::mul_rn(p.y, f64);
      if constexpr (kPerStore == 8) {
        o.w[i] = pack2_not_nan<Out>(lo, hi);
      } else {
        o.r[2 * i] = lo;
        o.r[2 * i + 1] = hi;
      }
    }
    return o.u;
  }
#pragma unroll
  for (int i = 0; i < kPerStore; ++i)
    o.r[i] = from_f32<Out>(num::canonical_nan(num::mul_rn(num::decode_e2m1(static_cast<uint8_t>(q >> (4 * i))), f)));
  return o.u;
}

// The amax of orientation row r (nvfp4_dequantize_amax, with the recipe's kind fixed at compile
// time); tensor_amax is *a.amax, read once.
template <Nvfp4OuterAmax kKind>
__device__ __forceinline__ float amax_of_row(const Nvfp4DequantizeArgs& a, int64_t r, float tensor_amax) {
  if constexpr (kKind == Nvfp4OuterAmax::kPerTensor) return tensor_amax;
  else if constexpr (kKind == Nvfp4OuterAmax::kPerRowFloored) return num::nvfp4_per_token_amax(a.amax[r]);
  else return a.amax[r];
}

// Index: uint32_t when every element index fits (its division by cols is then cheap).
template <typename Out, Nvfp4OuterAmax kKind, typename Index>
__global__ void __launch_bounds__(kThreads) dequantize_kernel(Nvfp4DequantizeArgs a, Index n, Index cols) {
  __shared__ float e4m3[256];
  __shared__ uint4 step_codes[kWarps][32];
  for (int i = threadIdx.x; i < 256; i += kThreads) e4m3[i] = num::decode_e4m3(static_cast<uint8_t>(i));
  __syncthreads();

  constexpr int kPerStore = 16 / sizeof(typename Out::Raw);  // elements per 16-byte store: 8 or 4
  constexpr int kLaneStride = 32 * kPerStore;                // elements between a lane's stores
  constexpr int kStores = 2 * kStepBytes / kLaneStride;      // per lane and step
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t padded_cols = num::scale_cols_padded(static_cast<int64_t>(cols / 16));
  const bool swizzled = a.scale_layout == LOWP_SCALE_LAYOUT_SWIZZLED;
  const float tensor_amax = kKind == Nvfp4OuterAmax::kPerTensor ? *a.amax : 0.0f;
  const float inv_outer = num::nvfp4_outer_reciprocal(a.outer_max);
  const uint64_t code_bytes = static_cast<uint64_t>(n) / 2;
  const uint64_t stride = uint64_t{gridDim.x} * kWarps * kStepBytes;
  const uint8_t* staged = reinterpret_cast<const uint8_t*>(step_codes[warp]);
  auto* out = static_cast<typename Out::Raw*>(a.out);

  uint64_t step = (uint64_t{blockIdx.x} * kWarps + warp) * kStepBytes;
  uint4 next = load_codes(a.codes, step + 16 * lane, code_bytes);
  for (; step < code_bytes; step += stride) {
    step_codes[warp][lane] = next;
    next = load_codes(a.codes, step + stride + 16 * lane, code_bytes);
    __syncwarp();
    // This lane's first element of the step and its (row, column); later stores move on by
    // kLaneStride elements (one division per step).
    Index e = static_cast<Index>(2 * step) + lane * kPerStore;
    Index r = e / cols, c = e - r * cols;
#pragma unroll
    for (int j = 0; j < kStores; ++j) {
      if (e < n) {
        const uint8_t s = a.scales[num::scale_offset(r, c / 16, padded_cols, swizzled)];
        const float amax = amax_of_row<kKind>(a, r, tensor_amax);
        const int first = j * kLaneStride + lane * kPerStore;  // element of this step
        uint32_t q;
        if constexpr (kPerStore == 8) q = *reinterpret_cast<const uint32_t*>(staged + first / 2);
        else q = *reinterpret_cast<const uint16_t*>(staged + first / 2);
        *reinterpret_cast<uint4*>(out + e) =
            dequantize16<Out, kPerStore>(q, num::nvfp4_dequantize_factor(e4m3[s], amax, inv_outer));
      }
      e += kLaneStride;
      for (c += kLaneStride; c >= cols; c -= cols) ++r;
    }
    __syncwarp();
  }
}

// Any alignment: one thread per 16-element block, element stores.
__global__ void __launch_bounds__(kThreads) dequantize_blocks_kernel(Nvfp4DequantizeArgs a) {
  const int64_t blocks = a.cols / 16, n = a.rows * blocks;
  const float inv_outer = num::nvfp4_outer_reciprocal(a.outer_max);
  const int64_t padded_cols = num::scale_cols_padded(blocks);
  const bool swizzled = a.scale_layout == LOWP_SCALE_LAYOUT_SWIZZLED;
  for (int64_t idx = blockIdx.x * int64_t{kThreads} + threadIdx.x; idx < n; idx += int64_t{gridDim.x} * kThreads) {
    const int64_t r = idx / blocks, jb = idx % blocks;
    const uint8_t s = a.scales[num::scale_offset(r, jb, padded_cols, swizzled)];
    const float amax = nvfp4_dequantize_amax(a, r);
    for (int t = 0; t < 16; t += 2) {
      const uint8_t byte = a.codes[r * (a.cols / 2) + jb * 8 + t / 2];
      store_as(a.out, a.out_dtype, r * a.cols + jb * 16 + t,
               num::canonical_nan(num::nvfp4_dequantize(byte & 0xF, s, amax, inv_outer)));
      store_as(a.out, a.out_dtype, r * a.cols + jb * 16 + t + 1,
               num::canonical_nan(num::nvfp4_dequantize(byte >> 4, s, amax, inv_outer)));
    }
  }
}

unsigned grid_for(int64_t work_items, int64_t per_block) {
  const int64_t blocks = (work_items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, int64_t{sm_count()} * kBlocksPerSm)));
}

template <Nvfp4OuterAmax kKind>
lowp_status dequantize(const Nvfp4DequantizeArgs& a, cudaStream_t st) {
  const int64_t n = a.rows * a.cols;
  const unsigned grid = grid_for(n / 2, int64_t{kWarps} * kStepBytes);
  const bool narrow = n < (int64_t{1} << 31);  // every index, and 2 * (step + stride), fits 32 bits
  return with_input_type(a.out_dtype, [&](auto out) {
    using Out = decltype(out);
    if (narrow)
      dequantize_kernel<Out, kKind, uint32_t><<<grid, kThreads, 0, st>>>(a, static_cast<uint32_t>(n),
                                                                          static_cast<uint32_t>(a.cols));
    else
      dequantize_kernel<Out, kKind, uint64_t><<<grid, kThreads, 0, st>>>(a, static_cast<uint64_t>(n),
                                                                          static_cast<uint64_t>(a.cols));
    return check_launch("nvfp4 dequantize kernel");
  });
}

}  // namespace

lowp_status nvfp4_dequantize(const Nvfp4DequantizeArgs& a, void* stream) {
  const int64_t n = a.rows * a.cols;
  if (n == 0) return LOWP_SUCCESS;
  const cudaStream_t st = as_stream(stream);
  if (!aligned16(a.codes) || !aligned16(a.out)) {
    dequantize_blocks_kernel<<<grid_for(n / 16, kThreads), kThreads, 0, st>>>(a);
    return check_launch("nvfp4 dequantize kernel (any alignment)");
  }
  switch (a.outer_amax) {
    case Nvfp4OuterAmax::kPerTensor: return dequantize<Nvfp4OuterAmax::kPerTensor>(a, st);
    case Nvfp4OuterAmax::kPerRowFloored: return dequantize<Nvfp4OuterAmax::kPerRowFloored>(a, st);
    case Nvfp4OuterAmax::kPerRowRaw: break;
  }
  return dequantize<Nvfp4OuterAmax::kPerRowRaw>(a, st);
}

}  // namespace lowp::cuda
