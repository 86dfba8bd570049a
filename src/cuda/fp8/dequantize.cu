// FP8 dequantize: out = decode(q) * scale_inv (one scale per tensor or per row), rounded to the
// output dtype with the shared numerics conversions.
#include <algorithm>

#include "cuda/common/common.cuh"
#include "core/backends.h"
#include "cuda/fp8/heuristics.h"
#include "numerics/fp8_cast.h"

namespace lowp::cuda {
namespace {

// Output element types: raw storage and the rounding from fp32 (shared numerics).
struct OutF32 {
  using Raw = float;
  static __device__ __forceinline__ float from(float v) { return v; }
};
struct OutBf16 {
  using Raw = uint16_t;
  static __device__ __forceinline__ uint16_t from(float v) { return num::f32_to_bf16(v); }
};
struct OutF16 {
  using Raw = uint16_t;
  static __device__ __forceinline__ uint16_t from(float v) { return num::f32_to_f16(v); }
};

// Each thread handles 16 consecutive codes (one 16-byte load) when kVectorized; the vector never
// straddles a row because cols % 16 == 0 on that path.
template <typename Out, bool kE4M3, bool kVectorized>
__global__ void __launch_bounds__(256) dequantize_kernel(Fp8DequantizeArgs a) {
  // The 256 decoded code values, built with the scalar rule: a table load instead of the
  // decode's branches per element.
  __shared__ float decoded[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    decoded[i] = kE4M3 ? num::decode_e4m3(static_cast<uint8_t>(i)) : num::decode_e5m2(static_cast<uint8_t>(i));
  __syncthreads();
  const int64_t n = a.rows * a.cols;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  if constexpr (kVectorized) {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i * 16 < n; i += stride) {
      const int64_t base = i * 16;
      const float s = a.scale_per_row ? a.scale_inv[base / a.cols] : a.scale_inv[0];
      union { uint4 u; uint8_t b[16]; } q;
      q.u = __ldg(reinterpret_cast<const uint4*>(a.codes + base));
      // Pack the 16 outputs and leave in 16-byte stores (32 or 64 contiguous bytes per thread).
      constexpr int kPerStore = 16 / sizeof(typename Out::Raw);
      union { uint4 u[16 / kPerStore]; typename Out::Raw r[16]; } o;
#pragma unroll
      for (int e = 0; e < 16; ++e) o.r[e] = Out::from(num::fp8_dequantize_decoded(decoded[q.b[e]], s));
      auto* dst = reinterpret_cast<uint4*>(static_cast<typename Out::Raw*>(a.out) + base);
#pragma unroll
      for (int k = 0; k < 16 / kPerStore; ++k) dst[k] = o.u[k];
    }
  } else {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
      const float s = a.scale_per_row ? a.scale_inv[i / a.cols] : a.scale_inv[0];
      static_cast<typename Out::Raw*>(a.out)[i] = Out::from(num::fp8_dequantize_decoded(decoded[a.codes[i]], s));
    }
  }
}

template <typename Out, bool kE4M3>
lowp_status launch(const Fp8DequantizeArgs& a, cudaStream_t s) {
  const int64_t n = a.rows * a.cols;
  const bool vec = aligned16(a.codes) && aligned16(a.out) && a.cols % 16 == 0;
  const int64_t work = vec ? n / 16 : n;
  const int grid = fp8::heuristics::dequantize_grid(work, sm_count());
  if (vec) dequantize_kernel<Out, kE4M3, true><<<grid, 256, 0, s>>>(a);
  else dequantize_kernel<Out, kE4M3, false><<<grid, 256, 0, s>>>(a);
  return check_launch("fp8 dequantize kernel");
}

template <typename Out>
lowp_status launch_fmt(const Fp8DequantizeArgs& a, cudaStream_t s) {
  return a.code_dtype == LOWP_DTYPE_E4M3 ? launch<Out, true>(a, s) : launch<Out, false>(a, s);
}

}  // namespace

lowp_status fp8_dequantize(const Fp8DequantizeArgs& a, void* stream) {
  switch (a.out_dtype) {
    case LOWP_DTYPE_BFLOAT16: return launch_fmt<OutBf16>(a, as_stream(stream));
    case LOWP_DTYPE_FLOAT16: return launch_fmt<OutF16>(a, as_stream(stream));
    default: return launch_fmt<OutF32>(a, as_stream(stream));
  }
}

}  // namespace lowp::cuda
