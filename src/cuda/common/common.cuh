// Shared device helpers for the CUDA backend: element loads, NaN-propagating amax reductions,
// the programmatic-dependent-launch waits. Scalar rules come from src/numerics; nothing here
// re-derives them. The host side of a launch is launch.h.
#pragma once
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/common/launch.h"
#include "numerics/convert.h"
#include "numerics/minifloat.h"

namespace lowp::cuda {

// Programmatic dependent launch (sm_90). A kernel launched with `early` (launch_kernel) may
// start while the previous kernel in its stream still runs, as soon as that kernel's blocks have
// all called allow_dependents() or exited. Before wait_for_predecessor() it may only read what no
// earlier work still writes (x: the early launches that load it follow our own amax kernels,
// never the producer of x; a call's first kernel, which may follow anything, waits before it
// lets its dependents start); after it, the predecessor has finished and its writes are visible.
// Both are no-ops in a kernel launched without the attribute.
__device__ __forceinline__ void wait_for_predecessor() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void allow_dependents() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

// The shared-memory address of p (a pointer into shared memory), as PTX's .shared operands take it.
__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// prmt.b32 with the sign-replicating selectors (bit 3 of a selector nibble) __byte_perm lacks.
__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t selector) {
  uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(selector));
  return d;
}

template <typename T>
__device__ __forceinline__ float to_f32(typename T::Raw r);
template <>
__device__ __forceinline__ float to_f32<Bf16>(uint16_t r) { return num::bf16_to_f32(r); }
template <>
__device__ __forceinline__ float to_f32<F16>(uint16_t r) { return num::f16_to_f32(r); }
template <>
__device__ __forceinline__ float to_f32<F32>(float r) { return r; }

// fp32 -> an output element's raw storage (round to nearest even; shared numerics).
template <typename T>
__device__ __forceinline__ typename T::Raw from_f32(float v);
template <>
__device__ __forceinline__ uint16_t from_f32<Bf16>(float v) { return num::f32_to_bf16(v); }
template <>
__device__ __forceinline__ uint16_t from_f32<F16>(float v) { return num::f32_to_f16(v); }
template <>
__device__ __forceinline__ float from_f32<F32>(float v) { return v; }

// Two fp32 values -> packed bf16x2 / f16x2 (first in the low half) by the hardware conversion
// (cvt.rn.{bf16x2,f16x2}.f32), which equals from_f32 on every input but NaN (NaN payloads
// differ): tests/cuda/half_cvt_exhaustive_test.cu checks all 2^32.
template <typename T>
__device__ __forceinline__ uint32_t pack2_not_nan(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t pack2_not_nan<Bf16>(float lo, float hi) {
  uint32_t d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
template <>
__device__ __forceinline__ uint32_t pack2_not_nan<F16>(float lo, float hi) {
  uint32_t d;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}

// Element i of a bf16 / fp16 / fp32 output, from fp32 (round to nearest even).
__device__ __forceinline__ void store_as(void* out, lowp_dtype t, int64_t i, float v) {
  switch (t) {
    case LOWP_DTYPE_BFLOAT16: static_cast<uint16_t*>(out)[i] = num::f32_to_bf16(v); break;
    case LOWP_DTYPE_FLOAT16: static_cast<uint16_t*>(out)[i] = num::f32_to_f16(v); break;
    default: static_cast<float*>(out)[i] = v; break;
  }
}

template <typename T>
constexpr int kVec = 16 / static_cast<int>(sizeof(typename T::Raw));  // elements per 16-byte load

// Loads kVec elements (16 bytes, aligned) and widens them to fp32.
template <typename T>
__device__ __forceinline__ void load_vec(const typename T::Raw* p, float (&v)[kVec<T>]) {
  union {
    uint4 u;
    typename T::Raw r[kVec<T>];
  } b;
  b.u = __ldg(reinterpret_cast<const uint4*>(p));
#pragma unroll
  for (int i = 0; i < kVec<T>; ++i) v[i] = to_f32<T>(b.r[i]);
}

// Amax of raw 16-byte vectors without widening: |x| as sign-cleared bits orders like |x| for
// bf16, fp16 and fp32 alike (NaNs above inf), so 16-bit lanes fold with one SIMD max per word.
// The packed accumulator widens to fp32 amax bits once, at the end (the widenings are monotonic,
// so the result equals folding the widened values).
template <typename T>
__device__ __forceinline__ uint32_t fold_raw(uint32_t acc, uint32_t word) {
  if constexpr (sizeof(typename T::Raw) == 2) return __vmaxu2(acc, word & 0x7FFF7FFFu);
  else return max(acc, word & 0x7FFFFFFFu);
}
// A per-word fold over the four words of a 16-byte vector.
template <typename FoldWord>
__device__ __forceinline__ uint32_t fold_words(uint32_t acc, const uint4& v, FoldWord fold_word) {
  return fold_word(fold_word(fold_word(fold_word(acc, v.x), v.y), v.z), v.w);
}
template <typename T>
__device__ __forceinline__ uint32_t fold_raw(uint32_t acc, const uint4& v) {
  return fold_words(acc, v, [](uint32_t a, uint32_t w) { return fold_raw<T>(a, w); });
}
// fold_raw for amaxes whose NaN payload never matters (an encode's block amax: every NaN gives
// the saturated scale): 16-bit lanes fold with one abs-max per word instead of a mask and half a
// 3-way max. The result's sign bits are junk (the instruction XORs the signs); clear_folded_signs
// before widening.
template <typename T>
__device__ __forceinline__ uint32_t fold_abs(uint32_t acc, uint32_t word) {
  if constexpr (std::is_same_v<T, Bf16>) asm("max.NaN.xorsign.abs.bf16x2 %0, %0, %1;" : "+r"(acc) : "r"(word));
  else if constexpr (std::is_same_v<T, F16>) asm("max.NaN.xorsign.abs.f16x2 %0, %0, %1;" : "+r"(acc) : "r"(word));
  else acc = fold_raw<T>(acc, word);
  return acc;
}
template <typename T>
__device__ __forceinline__ uint32_t fold_abs(uint32_t acc, const uint4& v) {
  return fold_words(acc, v, [](uint32_t a, uint32_t w) { return fold_abs<T>(a, w); });
}
template <typename T>
__device__ __forceinline__ uint32_t clear_folded_signs(uint32_t acc) {
  return sizeof(typename T::Raw) == 2 ? acc & 0x7FFF7FFFu : acc;
}
template <typename T>
__device__ __forceinline__ uint32_t widen_folded(uint32_t acc) {
  if constexpr (sizeof(typename T::Raw) == 2) {
    const uint16_t h = static_cast<uint16_t>(max(acc & 0xFFFFu, acc >> 16));
    return num::bits_of(to_f32<T>(h));
  } else {
    return acc;
  }
}

// Folds |x| into an amax held as bits (see num::amax_bits_fold).
__device__ __forceinline__ uint32_t fold(uint32_t acc, float x) { return num::amax_bits_fold(acc, x); }

__device__ __forceinline__ uint32_t warp_max(uint32_t v) { return __reduce_max_sync(0xFFFFFFFFu, v); }

// Block-wide max of `v`; every thread gets the result. `scratch` holds one word per warp.
__device__ __forceinline__ uint32_t block_max(uint32_t v, uint32_t* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = warp_max(v);
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  uint32_t r = 0;
  for (int w = 0; w < warps; ++w) r = scratch[w] > r ? scratch[w] : r;
  return r;
}

// Float amax buffers are folded as uint32 bit patterns (non-negative floats order as integers).
__device__ __forceinline__ void atomic_fold(float* dst, uint32_t bits) {
  if (bits != 0) atomicMax(reinterpret_cast<unsigned int*>(dst), bits);
}

// Hot-path FP8 encode of two values: cvt.rn.satfinite.{e4m3,e5m2}x2.f32 on sm_89+, which equals
// num::encode_e4m3/e5m2 on all 2^32 inputs (tests/cuda/fp8_cvt_exhaustive_test.cu checks it).
template <bool kE4M3>
__device__ __forceinline__ uint16_t fp8x2(float lo, float hi) {
  return static_cast<uint16_t>(__nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, kE4M3 ? __NV_E4M3 : __NV_E5M2));
}

}  // namespace lowp::cuda
