// FP8 dequantize: out = decode(q) * scale_inv (one scale per tensor or per row), rounded to the
// output dtype with the shared numerics conversions.
#include <algorithm>

#include "common.cuh"
#include "common/backends.h"
#include "numerics/fp8_cast.h"

namespace lowp::cuda {
namespace {

struct OutF32 { static __device__ __forceinline__ void put(void* o, int64_t i, float v) { static_cast<float*>(o)[i] = v; } };
struct OutBf16 { static __device__ __forceinline__ void put(void* o, int64_t i, float v) { static_cast<uint16_t*>(o)[i] = num::f32_to_bf16(v); } };
struct OutF16 { static __device__ __forceinline__ void put(void* o, int64_t i, float v) { static_cast<uint16_t*>(o)[i] = num::f32_to_f16(v); } };

// Each thread handles 16 consecutive codes (one 16-byte load) when kVectorized; the vector never
// straddles a row because cols % 16 == 0 on that path.
template <typename Out, bool kE4M3, bool kVectorized>
__global__ void __launch_bounds__(256) dequantize_kernel(Fp8DequantizeArgs a) {
  const int64_t n = a.rows * a.cols;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  if constexpr (kVectorized) {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i * 16 < n; i += stride) {
      const int64_t base = i * 16;
      const float s = a.scale_per_row ? a.scale_inv[base / a.cols] : a.scale_inv[0];
      union { uint4 u; uint8_t b[16]; } q;
      q.u = __ldg(reinterpret_cast<const uint4*>(a.codes + base));
#pragma unroll
      for (int e = 0; e < 16; ++e) Out::put(a.out, base + e, num::fp8_dequantize_element<kE4M3>(q.b[e], s));
    }
  } else {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
      const float s = a.scale_per_row ? a.scale_inv[i / a.cols] : a.scale_inv[0];
      Out::put(a.out, i, num::fp8_dequantize_element<kE4M3>(a.codes[i], s));
    }
  }
}

template <typename Out, bool kE4M3>
lowp_status launch(const Fp8DequantizeArgs& a, cudaStream_t s) {
  const int64_t n = a.rows * a.cols;
  const bool vec = aligned16(a.codes) && aligned16(a.out) && a.cols % 16 == 0;
  const int64_t work = vec ? n / 16 : n;
  const int grid = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((work + 255) / 256, int64_t{sm_count()} * 16)));
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
