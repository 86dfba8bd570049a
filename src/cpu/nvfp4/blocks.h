// The 16-element block walk shared by the CPU NVFP4 recipes (per-tensor, per-token, row-scaled):
// the walk over an orientation's blocks with its scale array, which input values a block holds,
// the bf16 RHT, its bit-folded amax, and its E2M1 codes (RN or SR) packed two per byte. The
// recipes differ only in the outer/block scale math they run per block.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/nvfp4_args.h"
#include "cpu/elements.h"
#include "numerics/convert.h"
#include "numerics/minifloat.h"
#include "numerics/rht16.h"
#include "numerics/stochastic_rounding.h"
#include "cpu/nvfp4/scales.h"
#include "cpu/parallel.h"

namespace lowp::cpu::nvfp4_blocks {

constexpr int64_t kBlock = 16;

inline float x_at(const DenseView& x, int64_t r, int64_t c) { return load_f32(x.data, x.dtype, r * x.cols + c); }

// Block jb of row i of an orientation: rowwise x[i][16jb + t], columnwise (row i of x^T)
// x[16jb + t][i].
inline void load(const DenseView& x, bool columnwise, int64_t i, int64_t jb, float v[kBlock]) {
  for (int t = 0; t < kBlock; ++t) v[t] = columnwise ? x_at(x, jb * kBlock + t, i) : x_at(x, i, jb * kBlock + t);
}

// The per-tensor recipe's columnwise RHT (numerics §4), also row-scaled's (§5b): bf16(RHT16(g) *
// 0.25), RNE, in place. A NaN out of the transform is canonicalised first so both backends round
// the same NaN.
inline void rht_to_bf16(float v[kBlock], uint32_t sign_mask) {
  num::rht16_unnormalized(v, sign_mask);
  for (int t = 0; t < kBlock; ++t)
    v[t] = num::bf16_to_f32(num::f32_to_bf16(num::canonical_nan(num::mul_rn(v[t], 0.25f))));
}

// max |v| as bits (num::amax_bits_fold: NaN propagates, order-independent).
inline uint32_t fold(const float v[kBlock]) {
  uint32_t acc = 0;
  for (int t = 0; t < kBlock; ++t) acc = num::amax_bits_fold(acc, v[t]);
  return acc;
}

// Codes of v[t] * m packed into out[0..8) (element 2j in bits 3:0): E2M1 RN, or with an
// rng_state {seed, offset} SR with the Philox bits of block `index` of its orientation (numerics §7).
inline void encode(const float v[kBlock], float m, const uint64_t* rng_state, uint64_t index, bool columnwise,
                   uint8_t* out) {
  uint4 bits{};
  if (rng_state) bits = num::sr_block_bits(rng_state[0], rng_state[1], index, columnwise);
  uint8_t code[kBlock];
  for (int t = 0; t < kBlock; ++t) {
    const float y = num::mul_rn(v[t], m);
    code[t] = rng_state ? num::encode_e2m1_sr(y, num::sr_byte(bits, t)) : num::encode_e2m1(y);
  }
  for (int t = 0; t < kBlock; t += 2) out[t / 2] = num::pack_e2m1(code[t], code[t + 1]);
}

// One orientation of x (columnwise: x^T) into part p: every block (i, jb), rows in parallel, is
// encoded by fn(i, jb, codes) -> its UE4M3 scale, which lands at (i, jb) of p's scale array in
// `layout`; the array's padding is zero.
template <typename Fn>
void encode_orientation(const DenseView& x, bool columnwise, lowp_scale_layout layout, const Nvfp4Part& p, Fn fn) {
  const int64_t rows = columnwise ? x.cols : x.rows;
  const int64_t cols = columnwise ? x.rows : x.cols;
  const int64_t blocks = cols / kBlock;
  const ScaleIndex scale_at(blocks, layout);
  std::memset(p.scales, 0, static_cast<size_t>(scale_bytes(rows, blocks)));
  parallel_for(rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t jb = 0; jb < blocks; ++jb) p.scales[scale_at(i, jb)] = fn(i, jb, p.codes + i * (cols / 2) + jb * (kBlock / 2));
  });
}

}  // namespace lowp::cpu::nvfp4_blocks
