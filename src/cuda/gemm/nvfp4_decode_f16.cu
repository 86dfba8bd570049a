// Decodes NVFP4 copies to e2m1(q) * float(s) in fp16 (exact, numerics §8; the outer scale is left
// to the GEMM epilogue), row-major rows x k: the first stage of the two-stage NVFP4 GEMM. The pass
// is bound by memory, so its access pattern is what matters: a warp takes a segment of up to 256
// consecutive code words (8 codes each) of one row, lane l the words l, l + 32, ..., so each of the
// warp's loads (4 bytes a lane) and stores (16 bytes a lane) covers whole contiguous sectors.
#include <cuda_fp16.h>

#include <algorithm>

#include "core/error.h"
#include "cuda/common/common.cuh"
#include "cuda/gemm/nvfp4_decode.cuh"
#include "cuda/gemm/nvfp4_decode_f16.h"
#include "numerics/swizzle.h"

namespace lowp::cuda {
namespace {

constexpr int kWordsPerLane = 8;
constexpr int kSegmentWords = 32 * kWordsPerLane;
constexpr int kThreads = 256;

// A job as the kernel reads it: Index is 32-bit when every word index of both jobs fits.
template <class Index>
struct Copy {
  const uint32_t* codes;
  const uint8_t* scales;
  uint4* out;
  Index words_per_row, segments_per_row, segments;
  int64_t scale_cols;
  bool swizzled;
};

// One of two jobs, chosen field by field: a select (or an index) of the parameter structs copies
// them to the stack.
template <class Index>
__device__ __forceinline__ Copy<Index> pick(const Copy<Index>& a, const Copy<Index>& b, bool first) {
  return {first ? a.codes : b.codes,           first ? a.scales : b.scales,
          first ? a.out : b.out,               first ? a.words_per_row : b.words_per_row,
          first ? a.segments_per_row : b.segments_per_row, first ? a.segments : b.segments,
          first ? a.scale_cols : b.scale_cols, first ? a.swizzled : b.swizzled};
}

template <class Index>
Copy<Index> copy_of(const Nvfp4DecodeF16Job& j) {
  const Index words = Index(j.k / 8), per_row = (words + kSegmentWords - 1) / kSegmentWords;
  return {reinterpret_cast<const uint32_t*>(j.codes), j.scales, static_cast<uint4*>(j.out), words, per_row,
          Index(j.rows) * per_row, num::scale_cols_padded(j.k / 16), j.layout == LOWP_SCALE_LAYOUT_SWIZZLED};
}

template <class Index>
__global__ void __launch_bounds__(kThreads) decode_f16_kernel(Copy<Index> a, Copy<Index> b) {
  using namespace gemm_sm90;
  allow_dependents();  // the GEMM, launched early, waits for this grid's completion before reading
  const int lane = threadIdx.x % 32;
  const Index warps = Index(gridDim.x) * (kThreads / 32);
  for (Index s = Index(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32; s < a.segments + b.segments; s += warps) {
    const bool first = s < a.segments;  // uniform over the warp
    const Copy<Index> c = pick(a, b, first);
    const Index seg = first ? s : s - a.segments;
    const Index r = seg / c.segments_per_row, w0 = (seg - r * c.segments_per_row) * kSegmentWords + lane;
    const Index row_words = r * c.words_per_row;
    uint32_t w[kWordsPerLane], sc[kWordsPerLane];
#pragma unroll
    for (int q = 0; q < kWordsPerLane; ++q) {
      const Index col = w0 + q * 32;
      if (col < c.words_per_row) {
        w[q] = c.codes[row_words + col];
        sc[q] = c.scales[num::scale_offset(r, col / 2, c.scale_cols, c.swizzled)];
      }
    }
#pragma unroll
    for (int q = 0; q < kWordsPerLane; ++q) {
      const Index col = w0 + q * 32;
      if (col < c.words_per_row) {
        uint32_t v[4];
        decode_e2m1x8_div64(w[q], v);
        const uint32_t s2 = scale_times64_f16x2(sc[q]);
        c.out[row_words + col] = make_uint4(hmul2(v[0], s2), hmul2(v[1], s2), hmul2(v[2], s2), hmul2(v[3], s2));
      }
    }
  }
}

template <class Index>
void launch(const Nvfp4DecodeF16Job& a, const Nvfp4DecodeF16Job& b, cudaStream_t stream) {
  const Copy<Index> ca = copy_of<Index>(a), cb = copy_of<Index>(b);
  const int64_t warps = int64_t(ca.segments) + int64_t(cb.segments);
  const int64_t blocks = std::min<int64_t>((warps + kThreads / 32 - 1) / (kThreads / 32), int64_t(1) << 20);
  decode_f16_kernel<Index><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(ca, cb);
}

}  // namespace

lowp_status nvfp4_decode_f16(const Nvfp4DecodeF16Job& a, const Nvfp4DecodeF16Job& b, cudaStream_t stream) {
  if (a.rows * a.k + b.rows * b.k == 0) return LOWP_SUCCESS;
  // Below 2^30 words a copy, word indices, segment counts and their sum fit 32 bits.
  const int64_t words = std::max(a.rows * a.k, b.rows * b.k) / 8;
  if (words < (int64_t(1) << 30)) launch<uint32_t>(a, b, stream);
  else launch<int64_t>(a, b, stream);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return fail(LOWP_ERROR_CUDA, "NVFP4 GEMM decode: kernel launch: %s", cudaGetErrorString(e));
  return LOWP_SUCCESS;
}

}  // namespace lowp::cuda
