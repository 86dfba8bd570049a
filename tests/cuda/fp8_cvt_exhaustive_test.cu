// The hot-path FP8 conversion (cvt.rn.satfinite.{e4m3,e5m2}x2.f32) equals the scalar rule of
// src/numerics on all 2^32 fp32 inputs, run on the GPU itself.
#include <gtest/gtest.h>

#include <cstdio>

#include "cuda/common/common.cuh"
#include "exhaustive.h"

namespace lowp_test {
namespace {

__global__ void count_mismatches(unsigned long long* bad, uint32_t* first_bad) {
  uint32_t local_bad = 0;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < (uint64_t{1} << 32);
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float x = lowp::num::float_of(static_cast<uint32_t>(i));
    const float y = lowp::num::float_of(static_cast<uint32_t>(i) ^ 0x80000000u);
    const uint16_t e4 = lowp::cuda::fp8x2<true>(x, y), e5 = lowp::cuda::fp8x2<false>(x, y);
    const bool ok = (e4 & 0xFF) == lowp::num::encode_e4m3(x) && (e4 >> 8) == lowp::num::encode_e4m3(y) &&
                    (e5 & 0xFF) == lowp::num::encode_e5m2(x) && (e5 >> 8) == lowp::num::encode_e5m2(y);
    if (!ok) {
      ++local_bad;
      atomicMin(first_bad, static_cast<uint32_t>(i));
    }
  }
  if (local_bad) atomicAdd(bad, local_bad);
}

TEST(Fp8CvtGpu, PtxConversionEqualsScalarRuleOnAllInputs) {
  LOWP_REQUIRE_GPU();
  const Mismatches m = run_exhaustive(count_mismatches);
  ASSERT_EQ(m.error, cudaSuccess) << cudaGetErrorString(m.error);
  std::printf("[fp8 cvt ptx==scalar] 2^32 inputs x 2 formats x 2 lanes, %llu mismatches\n", m.count);
  EXPECT_EQ(m.count, 0ull) << "first mismatching input bits 0x" << std::hex << m.first;
}

}  // namespace
}  // namespace lowp_test
