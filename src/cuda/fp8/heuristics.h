// Tuning of the FP8 launches, kept apart from the mechanism it tunes: grid shapes, occupancy and
// the amax pass CURRENT scaling takes. Each rule names the benchmark op that measures it
// (bench/fp8_bench.cpp, lowp_bench_fp8 --ops ...; grouped: bench/grouped_bench.cpp) and the design
// note that says why (docs/perf/fp8.md). Change a rule only with an A/B run of those ops
// (scripts/gpu-ab.sh).
#pragma once
#include <algorithm>
#include <cstdint>

namespace lowp::cuda::fp8::heuristics {

// Blocks per SM the cast / tile-amax loop must fit: 768 threads per SM of occupancy, not
// per-thread prefetching, keep enough loads in flight; the dact forms read two tensors and
// evaluate exp, so they get twice the registers (384 threads).
// Ops: delayed, current, per_token; grouped. Note: fp8.md, "Occupancy, not prefetching".
constexpr int tile_loop_min_blocks(int threads, bool dact) { return (dact ? 384 : 768) / threads; }

// CURRENT scaling's amax pass takes the flat amax kernel (one read of x, no tiles, no per-tile
// scale work) rather than the tile loop's amax mode, where it can: without dact (only the tile
// loop computes dact(act_input) * x).
// Ops: current, amax. Note: fp8.md, "The amax passes".
constexpr bool kCurrentAmaxFlatPass = true;

// The flat amax kernel loads this many 16-byte vectors per thread at once, one chunk per block.
// Op: amax. Note: fp8.md, "The amax passes".
constexpr int kAmaxVectorsPerThread = 16;

// The flat amax kernel for misaligned x: a persistent grid-stride loop, 4 elements per thread at
// least, at most 8 blocks per SM. No benchmark op (the benchmarks' x is aligned); fp8.md, "The
// amax passes".
inline int amax_scalar_grid(int64_t n, int threads, int64_t sm_count) {
  const int64_t want = (n + threads * 4 - 1) / (threads * 4);
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(want, sm_count * 8)));
}

// The per-token amax pass's row blocks: enough blocks to fill the GPU four times over, each
// walking at least 32 rows (one atomic per row and per column per block).
// Ops: amax_tok, per_token. Note: fp8.md, "The amax passes".
inline int64_t amax_per_token_row_blocks(int64_t rows, int64_t col_blocks, int64_t sm_count) {
  const int64_t target_blocks = sm_count * 4;
  return std::max<int64_t>(1, std::min<int64_t>((rows + 31) / 32, (target_blocks + col_blocks - 1) / col_blocks));
}

// The dequantize's grid-stride loop: one thread per 16 codes (or per code), at most 16 blocks of
// 256 per SM. Op: dequant. Note: fp8.md, "Dequantize".
inline int dequantize_grid(int64_t work, int64_t sm_count) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((work + 255) / 256, sm_count * 16)));
}

}  // namespace lowp::cuda::fp8::heuristics
