// The hardware fp32 -> bf16x2 / f16x2 conversions (cvt.rn.{bf16x2,f16x2}.f32, pack2_not_nan)
// equal the scalar rules of src/numerics (f32_to_bf16, f32_to_f16) on all 2^32 fp32 inputs but
// NaN, run on the GPU itself: the NVFP4 dequantize converts its (never NaN) fast-path products
// with them.
#include <gtest/gtest.h>

#include <cstdio>

#include "cuda/common/common.cuh"
#include "exhaustive.h"

namespace lowp_test {
namespace {

__global__ void count_mismatches(unsigned long long* bad, uint32_t* first_bad) {
  using lowp::cuda::pack2_not_nan;
  uint32_t local_bad = 0;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < (uint64_t{1} << 32);
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float x = lowp::num::float_of(static_cast<uint32_t>(i));
    if (lowp::num::is_nan(x)) continue;
    const float y = -x;
    const uint32_t b = pack2_not_nan<lowp::cuda::Bf16>(x, y), h = pack2_not_nan<lowp::cuda::F16>(x, y);
    const bool ok = (b & 0xFFFF) == lowp::num::f32_to_bf16(x) && (b >> 16) == lowp::num::f32_to_bf16(y) &&
                    (h & 0xFFFF) == lowp::num::f32_to_f16(x) && (h >> 16) == lowp::num::f32_to_f16(y);
    if (!ok) {
      ++local_bad;
      atomicMin(first_bad, static_cast<uint32_t>(i));
    }
  }
  if (local_bad) atomicAdd(bad, local_bad);
}

TEST(HalfCvtGpu, PtxConversionEqualsScalarRuleOnAllNonNanInputs) {
  LOWP_REQUIRE_GPU();
  const Mismatches m = run_exhaustive(count_mismatches);
  ASSERT_EQ(m.error, cudaSuccess) << cudaGetErrorString(m.error);
  std::printf("[bf16/f16 cvt ptx==scalar] 2^32 - NaN inputs x 2 formats x 2 lanes, %llu mismatches\n", m.count);
  EXPECT_EQ(m.count, 0ull) << "first mismatching input bits 0x" << std::hex << m.first;
}

}  // namespace
}  // namespace lowp_test
