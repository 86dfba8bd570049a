// The NVFP4 encode of one 128 x 128 tile of x into rowwise and columnwise codes and block scales,
// shared by the per-tensor recipe (kPerToken false), the per-token recipe (true) and row-scaled
// NVFP4 (kRowScaled: per-token's per-row amaxes with the per-tensor math), with 4over6 (k4over6:
// each block, or 16x16 tile, keeps the better of two candidate scales) on per-tensor and
// row-scaled.
//
// A thread owns 16 rows x one 16-byte vector of columns (V = 8 bf16/fp16 or 4 fp32 elements).
// Lanes run along the columns (whole 128-byte lines per warp load). The encode stages the tile in
// shared memory with asynchronous copies: the loads in flight hold no registers, and both passes
// run as rolled loops over it (the unrolled kernel outgrew the instruction cache). Rowwise, the
// 16/V lanes that loaded a row's 16-element block split the 16 rows, and each encodes its rows'
// blocks whole (one amax fold, one scale, one 8-byte store per block). Columnwise, the thread's
// 16 rows of one column are exactly one block along M, so it encodes V column blocks alone, one
// 32-bit word of columns per step; their codes go through shared memory (chunks XOR-swizzled by
// lane so the writes spread over the banks) and leave as 8-byte stores of each column's 64
// contiguous bytes. Block scales of both orientations leave as 4-byte words, which are
// contiguous in the compact and the swizzled layout alike. Tiles cover the scale arrays' 128-row
// padding: padding blocks read as zeros, whose scale is 0, the padding value.
#pragma once
#include <type_traits>

#include "numerics/stochastic_rounding.h"
#include "numerics/swizzle.h"
#include "cuda/nvfp4/four_over_six.cuh"
#include "cuda/nvfp4/tile_thread.cuh"

namespace lowp::cuda::nvfp4 {

// Where the encode of eight values takes their signs: bytes(t0, y) for SR, bits(t0, y) for RN
// (t0: the first value's index in its block, 0 or 8). Here from the values themselves.
struct SignsOfValues {
  __device__ SignBytes bytes(int, const float (&y)[8]) const { return sign_bytes(y); }
  __device__ uint32_t bits(int, const float (&y)[8]) const { return e2m1_sign_bits_x8(y); }
};

// From the block's values as 16-bit pairs (value 2i in the low half of pairs[i]), when they carry
// the encoded values' signs.
struct SignsOfPairs {
  const uint32_t* pairs;
  __device__ SignBytes bytes(int t0, const float (&)[8]) const {
    return sign_bytes_of_pairs(pairs[t0 / 2], pairs[t0 / 2 + 1], pairs[t0 / 2 + 2], pairs[t0 / 2 + 3]);
  }
  __device__ uint32_t bits(int t0, const float (&y)[8]) const { return e2m1_sign_bits_x8(bytes(t0, y)); }
};

// Eight values value_at(i) * m -> their packed codes, element i in nibble i; t0: the first
// element's index in its block (0 or 8), which picks its random bytes; signs: SignsOfValues or
// SignsOfPairs.
template <bool kSr, bool kClamp, typename ValueAt, typename Signs = SignsOfValues>
__device__ __forceinline__ uint32_t encode_values_as(float m, const uint4& rnd, int t0, ValueAt value_at, Signs signs = {}) {
  float y[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) y[i] = num::mul_rn(value_at(i), m);
  if constexpr (kSr) {
    return e2m1_sr_codes_x8(y, word_of(rnd, t0 / 4), word_of(rnd, t0 / 4 + 1), signs.bytes(t0, y));
  } else {
    uint32_t k[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) k[i] = kClamp ? e2m1_rn_magnitude(y[i]) : e2m1_rn_magnitude_unclamped(y[i]);
    return pack_e2m1x8(k, signs.bits(t0, y));
  }
}

// encode_values_as, RN with or without the clamp to 6 (Nvfp4Tile::skips_clamp).
template <bool kSr, typename ValueAt, typename Signs>
__device__ __forceinline__ uint32_t encode_values(float m, const uint4& rnd, int t0, bool unclamped, ValueAt value_at,
                                                  Signs signs) {
  if (!kSr && unclamped) return encode_values_as<kSr, false>(m, rnd, t0, value_at, signs);
  return encode_values_as<kSr, true>(m, rnd, t0, value_at, signs);
}

// p advanced by a * b bytes, a 32 x 32 -> 64-bit product. Written in C with the 64-bit strides,
// every address of the tile's copies and stores cost a 64-bit multiply of its own.
template <typename P>
__device__ __forceinline__ P* advance(P* p, uint32_t a, uint32_t b) {
  uint64_t d;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(d) : "r"(a), "r"(b), "l"(reinterpret_cast<uint64_t>(p)));
  return reinterpret_cast<P*>(d);
}

// An L2 policy that marks the lines it touches evict-first.
__device__ __forceinline__ uint64_t evict_first_policy() {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// cp.async of 16 bytes, zero-filled when !live (then nothing is read); kEvictFirst: under
// evict_first_policy().
template <bool kEvictFirst>
__device__ __forceinline__ void copy_async16(void* dst, const void* src, bool live = true) {
  const uint32_t d = shared_address(dst);
  const int n = live ? 16 : 0;
  if constexpr (kEvictFirst) {
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;" ::"r"(d), "l"(src), "r"(n),
                 "l"(evict_first_policy())
                 : "memory");
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(n) : "memory");
  }
}

// kDefaultSigns (RHT only): the sign mask is num::kDefaultRhtSignMask, known at compile time, so
// the flips become the butterflies' operand negations instead of an integer op per element.
// kEvictFirst: the loads of x and the stores are marked evict-first in L2 (chosen in
// tile_kernels.cu). Nothing is ever marked evict-last: such lines outlive the call and
// shrink the L2 for every later kernel (docs/perf/nvfp4-per-token.md).
// kRowScaled (not with kPerToken): row-scaled NVFP4, the outer scale of every tile row and
// column staged like per-token's, everything else the per-tensor recipe's. k4over6 (per-tensor or
// row-scaled, never with RHT or SR).
template <typename T, bool kPerToken, bool kRht, bool kSr, bool kDefaultSigns = false, bool kEvictFirst = false,
          bool kRowScaled = false, bool k4over6 = false>
struct Nvfp4Tile : TileThread<T> {
  using Base = TileThread<T>;
  using G = Geometry<T>;
  using Base::c0, Base::cl, Base::live_rows, Base::r0, Base::rg, Base::tc, Base::tr;
  static constexpr int V = G::V;
  static constexpr int kScaleCodes = kTokenScaleCodes;
  static_assert(!(kPerToken && (kRowScaled || k4over6)) && !(k4over6 && (kRht || kSr)), "no such recipe");
  static constexpr bool kRowOuter = kPerToken || kRowScaled;           // an outer amax per row and column
  static constexpr bool k2dPossible = !kRowOuter && !kRht && !kSr;  // validation forbids the rest
  // Per-token (and row-scaled) RN encodes every block without the clamp to 6 (one instruction per
  // element fewer) and reports the passes that had a block needing it (not normal_unsaturated: a
  // subnormal or saturated scale, NaN or inf); the kernel then encodes those passes again,
  // clamped, which is cheaper than a per-block choice between two copies of the encode (the
  // per-tensor way).
  static constexpr bool kClampLater = kRowOuter && !kSr;
  // Per-tensor 4over6 stages each scale code's candidate, its multiplier included, instead of
  // the multiplier alone.
  static constexpr bool kPerTensorCandidates = k4over6 && !kRowOuter;

  // Dynamic shared memory (the fp32 tile alone is 64 KiB).
  struct BaseSmem {
    uint4 x[kTile][G::kColLanes];         // the tile as loaded, zeros outside the matrix
    uint2 col_codes[kTile][kTileBlocks];  // [tile column][16-row chunk, swizzled]: 16 codes each
    union {
      struct {
        float mult[2][kPerTensorCandidates ? 1 : kScaleCodes];  // multiplier of each scale code, row / col
        // 4over6: each scale code's candidate {multiplier, bases, exact} as bits, row / col.
        uint4 candidate[2][kPerTensorCandidates ? kScaleCodes : 1];
      } pt;  // per-tensor
      struct {
        float scale[2][kTile];             // S_enc * 2^64 of each tile row / column
        float2 reciprocal[kScaleCodes];    // {y, b} of each scale code
      } token;                             // per-token: nvfp4_multiplier_per_token_prepared's operands
    };
    uint8_t col_scales[kTile][kTileBlocks];
    uint8_t row_scales[kTile][kTileBlocks];
  };
  // The variants' additions (the recipes before them keep their footprint): row-scaled's outer
  // scale of each tile row / column; 4over6 2D's kept scale of each 16x16 tile, per orientation.
  struct VariantSmem : BaseSmem {
    OuterScale row_outer[2][kRowScaled ? kTile : 1];
    float row_amax[2][kRowScaled ? kTile : 1];  // 4over6's A of each tile row / column
    uint8_t tile_scale[2][kTileBlocks][kTileBlocks];
    FourOverSixThreadTables<k4over6 ? G::kThreads : 1> xhat;  // 4over6's x^ lookups
  };
  using Smem = std::conditional_t<kRowScaled || k4over6, VariantSmem, BaseSmem>;

  // The rowwise pass deals each 16-element block whole to one of the kLanesPerBlock lanes that
  // hold it, kRowShare of their 16 rows each.
  static constexpr int kRowShare = kBlock / G::kLanesPerBlock;

  // Where vector c of tile row r sits in sm.x: XOR-swizzled by the row's share within its 16-row
  // group, so the lanes of a rowwise block, which read one row each, hit different banks (the
  // columnwise reads of one row stay a permutation of the lanes).
  __device__ static int slot(int r, int c) { return c ^ ((r % kBlock) / kRowShare); }

  // Per-tensor: the outer scale of each orientation (zero amax when not produced), derived once;
  // with 4over6 also the amaxes themselves.
  OuterScale row_outer{}, col_outer{};
  float row_a{}, col_a{};

  // 4over6: the thread's x^ tables (sm.xhat).
  using Xhat = FourOverSixThreadXhat<k4over6 ? G::kThreads : 1>;
  struct NoXhat {};
  std::conditional_t<k4over6, Xhat, NoXhat> xhat;

  // Starts copying the thread's 16 vectors into sm.x; wait_loads() and a barrier before reading.
  __device__ Nvfp4Tile(const TileArgs& a, int64_t tile, Smem& sm) : Base(a, tile), xhat(make_xhat(sm)) {
    const char* p = reinterpret_cast<const char*>(this->first_vector(a));
    const uint32_t stride = static_cast<uint32_t>(a.cols) * sizeof(typename T::Raw);  // < 2^32: tile_path_ok
    const auto row = [&](int j) { return advance(p, stride, j); };
    const auto dst = [&](int j) { return &sm.x[rg * kBlock + j][slot(j, cl)]; };
    if (live_rows == kBlock) {  // all 16 rows exist (every tile row but a partial last one): no selects
#pragma unroll
      for (int j = 0; j < kBlock; ++j) copy_async16<kEvictFirst>(dst(j), row(j));
    } else {
#pragma unroll
      for (int j = 0; j < kBlock; ++j) copy_async16<kEvictFirst>(dst(j), j < live_rows ? row(j) : a.x, j < live_rows);
    }
    if constexpr (kPerToken) prepare_reciprocals(sm);  // needs no amax: before the wait
    wait_for_predecessor();  // launched early: the amaxes below and in prepare() are its output
    if constexpr (kPerTensorCandidates) {
      row_a = a.row_codes != nullptr ? *a.row_amax : 0.0f;
      col_a = a.col_codes != nullptr ? col_amax(a) : 0.0f;
      row_outer = outer_scale<false>(row_a, outer_max(a));
      col_outer = outer_scale<false>(col_a, outer_max(a));
    } else if constexpr (!kRowOuter) {
      row_outer = outer_scale<false>(a.row_codes != nullptr ? *a.row_amax : 0.0f);
      col_outer = outer_scale<false>(a.col_codes != nullptr ? col_amax(a) : 0.0f);
    }
  }

  __device__ static auto make_xhat(Smem& sm) {
    if constexpr (k4over6) return Xhat(sm.xhat);
    else return NoXhat{};
  }

  // 6E of the encode: 4over6's, else the standard 2688.
  __device__ static float outer_max(const TileArgs& a) { return k4over6 ? four_over_six_outer_max(a) : num::kNvfp4OuterMax; }

  // Per-tensor A_col (derived: every block computes it, block 0 also stores it).
  __device__ static float col_amax(const TileArgs& a) {
    if (!a.col_amax_from_row) return *a.col_amax;
    const float v = derived_col_amax(*a.row_amax, a.col_amax_estimate, a.col_amax_factor);
    if (blockIdx.x == 0 && threadIdx.x == 0) *a.col_amax = v;
    return v;
  }

  // Per-token: each scale code's reciprocal operands of the multiplier (see prepare()).
  __device__ static void prepare_reciprocals(Smem& sm) {
    static_assert(kScaleCodes <= G::kThreads, "one scale code per thread");
    prepare_token_reciprocals(sm.token.reciprocal);
  }

  __device__ static void wait_loads() { asm volatile("cp.async.wait_all;" ::: "memory"); }

  // A store of codes or scales.
  template <typename W>
  __device__ __forceinline__ static void store(W* p, W v) {
    if constexpr (kEvictFirst) __stcs(p, v);
    else *p = v;
  }

  // This thread's vector of its row j.
  __device__ const uint4& vector(const Smem& sm, int j) const { return sm.x[rg * kBlock + j][slot(j, cl)]; }

  // 2D: amax of the 16 x 16 tile this thread's block belongs to.
  __device__ uint32_t tile16_amax(const Smem& sm) const {
    uint32_t acc = 0;
#pragma unroll
    for (int j = 0; j < kBlock; ++j) acc = fold_raw<T>(acc, vector(sm, j));
    return Base::block_lanes_max(widen_folded<T>(acc));
  }

  // Per-tensor: the element multiplier of every scale code, per orientation (the division once
  // per launch block instead of once per 16 elements). Per-token: the outer scale of each of the
  // tile's rows and columns (with the constructor's reciprocals, a block's multiplier takes three
  // flops instead of a division). Call before a barrier.
  __device__ void prepare(const TileArgs& a, Smem& sm) const {
    if constexpr (kPerToken) {
      // A tile row and a tile column per thread: both amax loads in flight at once.
      static_assert(kTile <= G::kThreads, "one tile row and column per thread");
      if (const int i = threadIdx.x; i < kTile) {
        const int64_t r = tr * kTile + i, c = tc * kTile + i;
        const float row_amax = a.row_codes != nullptr && r < a.rows ? a.row_amax[r] : 0.0f;
        const float col_amax = a.col_codes != nullptr && c < a.cols ? a.col_amax[c] : 0.0f;
        // Only a produced orientation's (a launch of one: the fused K1 made the rowwise copy).
        if (a.row_codes != nullptr) sm.token.scale[0][i] = token_scale_staged(row_amax);
        if (a.col_codes != nullptr) sm.token.scale[1][i] = token_scale_staged(col_amax);
      }
    } else if constexpr (kRowScaled) {  // as per-token, the whole outer scale (a division per block follows)
      if (const int i = threadIdx.x; i < kTile) {
        const int64_t r = tr * kTile + i, c = tc * kTile + i;
        const float row_amax = a.row_codes != nullptr && r < a.rows ? a.row_amax[r] : 0.0f;
        const float col_amax = a.col_codes != nullptr && c < a.cols ? a.col_amax[c] : 0.0f;
        sm.row_outer[0][i] = outer_scale<false>(row_amax, outer_max(a));
        sm.row_outer[1][i] = outer_scale<false>(col_amax, outer_max(a));
        sm.row_amax[0][i] = row_amax;
        sm.row_amax[1][i] = col_amax;
      }
    } else {
#pragma unroll 1
      for (int i = threadIdx.x; i < 2 * kScaleCodes; i += G::kThreads) {
        const bool row = i < kScaleCodes;
        const OuterScale o{0.0f, 0.0f, row ? row_outer.s_dec : col_outer.s_dec};  // (a select of structs spills)
        const float m = multiplier<false>(i % kScaleCodes, o);
        if constexpr (!kPerTensorCandidates) {
          sm.pt.mult[row ? 0 : 1][i % kScaleCodes] = m;
        } else {
          const float fs = decode_ue4m3(i % kScaleCodes);
          const num::Nvfp4FourOverSixBases b = num::nvfp4_four_over_six_bases(fs, row ? row_a : col_a, outer_max(a));
          sm.pt.candidate[row ? 0 : 1][i % kScaleCodes] =
              make_uint4(__float_as_uint(m), __float_as_uint(b.one), __float_as_uint(b.one_and_half), b.exact);
        }
      }
    }
  }

  // The 16 codes of one block (value_at(0..15) * m, signs as in encode_values_as) as two words;
  // all zero for a per-token block whose scale decodes to 0.
  template <typename ValueAt, typename Signs = SignsOfValues>
  __device__ static uint2 block_codes(float m, const uint4& rnd, bool unclamped, bool zero_block, ValueAt value_at,
                                      Signs signs = {}) {
    uint32_t lo = encode_values<kSr>(m, rnd, 0, unclamped, value_at, signs);
    uint32_t hi = encode_values<kSr>(m, rnd, 8, unclamped, [&](int j) { return value_at(j + 8); }, signs);
    if (zero_block) lo = hi = 0;
    return make_uint2(lo, hi);
  }

  // Whether a block's RN encode skips the clamp to 6. Per-tensor: when normal_unsaturated or
  // all-zero. kClampLater: always in the first pass (kRedo false), setting redo when the block
  // needed it (a per-token zero block's codes are forced to 0 anyway, a row-scaled all-zero
  // block's values are zeros); never in the second.
  template <bool kRedo>
  __device__ static bool skips_clamp(float b, const OuterScale& o, uint32_t s, bool zero_block, bool& redo) {
    if constexpr (!kClampLater) return normal_unsaturated(b, o.s_enc6, s) || b == 0.0f;  // SR ignores it
    // Per-token: b == 0 is a zero block (scale 0).
    redo |= !(normal_unsaturated(b, o.s_enc6, s) || (kPerToken ? zero_block : b == 0.0f));
    return !kRedo;
  }

  // An SR block index, below 2^32 (tile_path_ok).
  __device__ static uint64_t block_index(uint64_t b) { return static_cast<uint32_t>(b); }

  // Per-token: a staged row's or column's outer scale, s_enc as S_enc * 2^64.
  __device__ static OuterScale staged_outer(const Smem& sm, int orientation, int i) {
    return token_outer(sm.token.scale[orientation][i]);
  }

  // Per-token: the multiplier of scale code s in a row or column staged as o.
  __device__ static float token_multiplier(const Smem& sm, uint32_t s, const OuterScale& o) {
    return nvfp4::token_multiplier(sm.token.reciprocal[s], o);
  }

  // The outer scale of tile row (orientation 0) or column (1) i: per-token's or row-scaled's staged
  // one, else the orientation's (o).
  __device__ static OuterScale outer_of(const Smem& sm, int orientation, int i, const OuterScale& o) {
    if constexpr (kPerToken) return staged_outer(sm, orientation, i);
    else if constexpr (kRowScaled) return sm.row_outer[orientation][i];
    else return o;
  }

  // 4over6: what a block's error depends on besides its values, in tile row (orientation 0) or
  // column (1) i with outer scale o.
  __device__ FourOverSixOuter four_over_six_outer(const TileArgs& a, const Smem& sm, int orientation, int i,
                                                  const OuterScale& o) const {
    float amax;
    if constexpr (kRowScaled) amax = sm.row_amax[orientation][i];
    else amax = orientation == 0 ? row_a : col_a;
    return {o, amax, outer_max(a), a.four_over_six_mse};
  }

  // The scale code of a block with amax b (outer scale o); 4over6 2D: the kept scale of 16x16
  // tile (ti, tj) of this tile (choose_tiles; 1D: four_over_six_1d).
  __device__ static uint32_t scale_code(const Smem& sm, int orientation, float b, const OuterScale& o, int ti, int tj) {
    if constexpr (k4over6) return sm.tile_scale[orientation][ti][tj];
    else return block_scale_code(b, o.s_enc6);
  }

  // 4over6: scale code s's candidate in an orientation row with outer scale description f:
  // per-tensor from prepare()'s table, row-scaled by division.
  __device__ static FourOverSixCandidate candidate(const Smem& sm, int orientation, uint32_t s,
                                                   const FourOverSixOuter& f) {
    if constexpr (kRowScaled) {
      return four_over_six_candidate(s, f);
    } else {
      const uint4 c = sm.pt.candidate[orientation][s];
      return {s, __uint_as_float(c.x), __uint_as_float(c.y), __uint_as_float(c.z), c.w != 0};
    }
  }

  // 4over6 1D: the kept scale of a block with amax b and values x in tile row (orientation 0) or
  // column (1) i with outer scale o, and its codes. Per-tensor candidates come from prepare()'s
  // tables, row-scaled ones by division.
  __device__ FourOverSixChoice four_over_six_1d(const TileArgs& a, const Smem& sm, int orientation, int i, float b,
                                                const OuterScale& o, const float (&x)[kBlock]) const {
    const num::Nvfp4ScaleCandidates c = four_over_six_scales<sizeof(typename T::Raw) == 2>(b, o.s_enc);
    const FourOverSixOuter f = four_over_six_outer(a, sm, orientation, i, o);
    if constexpr (!k4over6) {
      return {};  // never called
    } else {
      bool dirty = false;
      const auto c6 = xhat.fill(0, candidate(sm, orientation, c.s6, f), f, dirty);
      const auto c4 = xhat.fill(1, candidate(sm, orientation, c.s4, f), f, dirty);
      const FourOverSixChoice r = four_over_six_choose(c6, c4, f.mse, b, x);
      if (dirty) xhat.clear_zero();
      return r;
    }
  }

  // The element multiplier of scale code s in an orientation row with outer scale o: per-token's
  // from the staged reciprocals, row-scaled's by a division, per-tensor's from the table (4over6's candidates).
  __device__ static float block_multiplier(const Smem& sm, int orientation, uint32_t s, const OuterScale& o) {
    if constexpr (kPerToken) return token_multiplier(sm, s, o);
    else if constexpr (kRowScaled) return multiplier<false>(s, o);
    else if constexpr (kPerTensorCandidates) return __uint_as_float(sm.pt.candidate[orientation][s].x);
    else return sm.pt.mult[orientation][s];
  }

  // 4over6 with 2D blocks (per-tensor only): the kept scale of each of the tile's 8 x 8 16x16
  // tiles, for each produced orientation (its own amax), into sm.tile_scale. Threads 0..127 take
  // tile t / 2 and candidate t % 2 of both orientations (table slot = orientation); each
  // orientation sums the tile in its own rows (rowwise: the tile's rows; columnwise: its columns,
  // xᵀ's rows; numerics §5c); partners exchange their errors. After the loads' barrier; a barrier
  // before the encode reads them.
  __device__ void choose_tiles(const TileArgs& a, Smem& sm) const {
    static_assert(k2dPossible && k4over6, "4over6 2D is per-tensor only");
    constexpr int kPairs = kTileBlocks * kTileBlocks;
    static_assert(2 * kPairs <= G::kThreads, "a thread per tile and candidate");
    const int t = threadIdx.x;
    if (t >= 2 * kPairs) return;  // whole warps
    const int ti = (t / 2) / kTileBlocks, tj = (t / 2) % kTileBlocks;
    const auto value_at = [&](int r, int c) {
      const int row = ti * kBlock + r, col = tj * kBlock + c;
      return element<T>(sm.x[row][slot(row, col / V)], col % V);
    };
    uint32_t bits = 0;
#pragma unroll 1
    for (int r = 0; r < kBlock; ++r)
      for (int c = 0; c < kBlock; ++c) bits = fold(bits, value_at(r, c));
    const float b = __uint_as_float(bits);
    num::Nvfp4ScaleCandidates c[2];
    FourOverSixLookup<Xhat::kShift> mine[2]{};
    bool measured[2], dirty = false;  // measured: produced with two different candidates
#pragma unroll
    for (int orientation = 0; orientation < 2; ++orientation) {
      const OuterScale& o = orientation == 0 ? row_outer : col_outer;
      c[orientation] = num::nvfp4_four_over_six_scales(b, o.s_enc);
      measured[orientation] =
          (orientation == 0 ? a.row_codes : a.col_codes) != nullptr && c[orientation].s4 != c[orientation].s6;
      if (measured[orientation]) {
        const FourOverSixOuter f = four_over_six_outer(a, sm, orientation, 0, o);
        const uint32_t s = t % 2 ? c[orientation].s4 : c[orientation].s6;
        mine[orientation] = xhat.fill(orientation, candidate(sm, orientation, s, f), f, dirty);
      }
    }
    float rows[2][kBlock];
    const auto errors = [&](auto mse_tag) {
      constexpr bool kMse = decltype(mse_tag)::value;
#pragma unroll 1
      for (int r = 0; r < kBlock; ++r) {
#pragma unroll
        for (int orientation = 0; orientation < 2; ++orientation) {
          if (!measured[orientation]) continue;
          float x[kBlock];  // row r of the orientation's tile: x's row r, or x's column r
#pragma unroll
          for (int j = 0; j < kBlock; ++j) x[j] = orientation == 0 ? value_at(r, j) : value_at(j, r);
          rows[orientation][r] = four_over_six_row_error<kMse>(mine[orientation], x);
        }
      }
    };
    if (a.four_over_six_mse) errors(std::true_type{});
    else errors(std::false_type{});
    if (dirty) xhat.clear_zero();
#pragma unroll 1
    for (int orientation = 0; orientation < 2; ++orientation) {
      if ((orientation == 0 ? a.row_codes : a.col_codes) == nullptr) continue;  // uniform
      const float err = measured[orientation] ? num::nvfp4_four_over_six_tile_error(rows[orientation]) : 0.0f;
      const float partner = __shfl_xor_sync(0xFFFFFFFFu, err, 1);
      const num::Nvfp4ScaleCandidates& k = c[orientation];
      if (t % 2 == 0)
        sm.tile_scale[orientation][ti][tj] = measured[orientation] && num::nvfp4_four_over_six_takes_map4(partner, err) ? k.s4 : k.s6;
    }
  }

  // Returns whether the pass must run again with kRedo (skips_clamp).
  template <bool kRedo = false>
  __device__ bool encode_rows(const TileArgs& a, Smem& sm, uint32_t tile16) const {
    constexpr int L = G::kLanesPerBlock;
    OuterScale o = row_outer;
    const int share = cl % L, bi = cl / L;  // its rows' share and its block of the tile row
    const int row0 = rg * kBlock + share * kRowShare;
    const int64_t c = tc * kTile + bi * kBlock;  // the block's first column
    const int64_t first_row = tr * kTile + row0;
    const int live = c < a.cols ? static_cast<int>(min(max(a.rows - first_row, int64_t{0}), int64_t{kRowShare})) : 0;
    const int64_t blocks = a.cols / kBlock;
    uint64_t seed = 0, offset = 0;
    if constexpr (kSr) seed = a.rng_state[0], offset = a.rng_state[1];
    const int64_t code_stride = a.cols / 2;
    uint8_t* dst = a.row_codes + first_row * code_stride + c / 2;
    // The rows lie in one share of a 16-row group, so every one has slot(row, c) == c ^ share:
    // the loop only steps a row pointer.
    const uint4* src = &sm.x[row0][0];
    bool redo = false;
#pragma unroll 1
    for (int i = 0; i < kRowShare; ++i, dst += code_stride, src += G::kColLanes) {
      const int row = row0 + i;
      uint4 v[L];
#pragma unroll
      for (int q = 0; q < L; ++q) v[q] = src[(bi * L + q) ^ share];
      if constexpr (kRowOuter) o = outer_of(sm, 0, row, o);
      uint32_t acc = 0;
#pragma unroll
      for (int q = 0; q < L; ++q) acc = fold_abs<T>(acc, v[q]);
      const uint32_t b = (k2dPossible && a.block_2d) ? tile16 : widen_folded<T>(clear_folded_signs<T>(acc));
      const auto value_at = [&](int e) { return element<T>(v[e / V], e % V); };
      uint32_t s;
      uint2 codes;
      if (k4over6 && !(k2dPossible && a.block_2d)) {
        float x[kBlock];
#pragma unroll
        for (int e = 0; e < kBlock; ++e) x[e] = value_at(e);
        const FourOverSixChoice r = four_over_six_1d(a, sm, 0, row, __uint_as_float(b), o, x);
        s = r.s;
        codes = r.codes;
      } else {
        s = scale_code(sm, 0, __uint_as_float(b), o, rg, bi);
        const float m = block_multiplier(sm, 0, s, o);
        uint4 rnd{};
        if constexpr (kSr)
          rnd = num::sr_block_bits(seed, offset, block_index(a.sr_base + (first_row + i) * blocks + c / kBlock), false);
        const bool zero_block = kPerToken && m == 0.0f;
        const bool unclamped = skips_clamp<kRedo>(__uint_as_float(b), o, s, zero_block, redo);
        codes = block_codes(m, rnd, unclamped, zero_block, value_at);
      }
      if (i < live) store(reinterpret_cast<uint2*>(dst), codes);
      sm.row_scales[row][bi] = static_cast<uint8_t>(s);
    }
    return redo;
  }

  // One 32-bit word of columns per step, rolled. Lanes whose words share a bank start at
  // different words, so the 16 row reads of a step are conflict-free.
  // Returns whether the pass must run again with kRedo (skips_clamp).
  template <bool kRedo = false>
  __device__ bool encode_cols(const TileArgs& a, Smem& sm, uint32_t tile16) const {
    const int64_t blocks = a.rows / kBlock;  // rows % 16 == 0 when columnwise is produced
    uint64_t seed = 0, offset = 0;
    if constexpr (kSr) seed = a.rng_state[0], offset = a.rng_state[1];
    // Row j's vector sits at slot(j, cl): one base per row share.
    const uint32_t* words[G::kLanesPerBlock];
#pragma unroll
    for (int q = 0; q < G::kLanesPerBlock; ++q) words[q] = reinterpret_cast<const uint32_t*>(&vector(sm, q * kRowShare));
    constexpr int kRowWords = G::kColLanes * 4;
    const int first = (threadIdx.x >> 3) & 3;
    bool redo = false;
#pragma unroll 1
    for (int i = 0; i < 4; ++i) {
      const int w = (i + first) & 3;
      uint32_t raw[kBlock];
      uint32_t acc = 0;
#pragma unroll
      for (int j = 0; j < kBlock; ++j) {
        raw[j] = words[j / kRowShare][(j % kRowShare) * kRowWords + w];
        if constexpr (!kRht) acc = fold_abs<T>(acc, raw[j]);
      }
      acc = clear_folded_signs<T>(acc);
      // 4over6: one copy of the column encode (its walks would otherwise crowd the instruction cache).
#pragma unroll(k4over6 ? 1 : kPerWord<T>)
      for (int h = 0; h < kPerWord<T>; ++h) encode_col<kRedo>(a, sm, tile16, blocks, seed, offset, raw, acc, w * kPerWord<T> + h, h, redo);
    }
    return redo;
  }

  // Column e of the thread's vector (element h of its word) from the raw words of its 16 rows.
  template <bool kRedo>
  __device__ void encode_col(const TileArgs& a, Smem& sm, uint32_t tile16, int64_t blocks, uint64_t seed, uint64_t offset,
                             const uint32_t (&raw)[kBlock], uint32_t acc, int e, int h, bool& redo) const {
    const int tcol = cl * V + e;
    const OuterScale o = outer_of(sm, 1, tcol, col_outer);
    // The RHT's sign flips: left to the transform when the mask is known, else applied here.
    constexpr uint32_t kSigns = kDefaultSigns ? num::kDefaultRhtSignMask : 0u;
    float v[kBlock];
#pragma unroll
    for (int j = 0; j < kBlock; ++j)
      v[j] = kRht && !kDefaultSigns ? word_element_flipped<T>(raw[j], h, ((a.sign_mask >> j) & 1u) << 31)
                                    : word_element<T>(raw[j], h);
    uint32_t pairs[kBlock / 2];  // per-tensor RHT: the rounded values as bf16 pairs
    uint32_t bits;
    if constexpr (kRht && !kPerToken) bits = rht_block_bf16<true>(v, kSigns, pairs);
    else bits = kRht ? rht_block<true>(v, kSigns) : folded_column_bits<T>(acc, h);
    float b = __uint_as_float((k2dPossible && a.block_2d) ? tile16 : bits);
    if constexpr (kRht && kPerToken) b = num::mul_rn(b, 0.25f);
    const auto value_at = [&](int j) { return v[j]; };
    if (k4over6 && !(k2dPossible && a.block_2d)) {
      const FourOverSixChoice r = four_over_six_1d(a, sm, 1, tcol, b, o, v);
      sm.col_codes[tcol][rg ^ (cl % kTileBlocks)] = r.codes;
      sm.col_scales[tcol][rg] = static_cast<uint8_t>(r.s);
      return;
    }
    const uint32_t s = scale_code(sm, 1, b, o, rg, tcol / kBlock);
    float m = block_multiplier(sm, 1, s, o);
    const bool zero_block = kPerToken && m == 0.0f;
    if constexpr (kRht && kPerToken) m = num::mul_rn(m, 0.25f);
    uint4 rnd{};
    if constexpr (kSr) rnd = num::sr_block_bits(seed, offset, block_index(a.sr_base + (c0 + e) * blocks + r0 / kBlock), true);
    const bool unclamped = skips_clamp<kRedo>(b, o, s, zero_block, redo);
    uint2 codes;
    // Per-tensor RHT: the pairs carry the values' signs (m > 0; a NaN is positive there too).
    if constexpr (kRht && !kPerToken) codes = block_codes(m, rnd, unclamped, zero_block, value_at, SignsOfPairs{pairs});
    else codes = block_codes(m, rnd, unclamped, zero_block, value_at);
    sm.col_codes[tcol][rg ^ (cl % kTileBlocks)] = codes;
    sm.col_scales[tcol][rg] = static_cast<uint8_t>(s);
  }

  // After a barrier: the staged columnwise codes and both orientations' scale words. A thread
  // keeps one 16-row chunk and steps over tile columns (no per-store index arithmetic).
  __device__ void store_staged(const TileArgs& a, const Smem& sm) const {
    if (a.col_codes != nullptr) {
      constexpr int kColStep = G::kThreads / kTileBlocks;
      const int q = threadIdx.x % kTileBlocks, col = threadIdx.x / kTileBlocks;
      static_assert(kColStep % V == 0, "columns kColStep apart lie whole vectors apart (the staging swizzle)");
      const int64_t r = tr * kTile + q * kBlock, c = tc * kTile + col;
      const uint32_t col_bytes = static_cast<uint32_t>(a.rows / 2);  // < 2^32: tile_path_ok
      uint8_t* dst = a.col_codes + c * col_bytes + r / 2;
      const auto put = [&](int k) {  // the staged codes are read first, the address after
        const uint2 v = sm.col_codes[col + k * kColStep][q ^ ((col / V + k * (kColStep / V)) % kTileBlocks)];
        store(reinterpret_cast<uint2*>(advance(dst, col_bytes, k * kColStep)), v);
      };
      if (r < a.rows) {
        if ((tc + 1) * kTile <= a.cols) {  // every column of the tile exists (block-uniform): no checks
#pragma unroll
          for (int k = 0; k < kTile / kColStep; ++k) put(k);
        } else {
#pragma unroll
          for (int k = 0; k < kTile / kColStep; ++k)
            if (c + k * kColStep < a.cols) put(k);
        }
      }
      store_scale_words(a.col_scales, sm.col_scales, tc, tr, a.col_scale_cols, a.swizzled);
    }
    if (a.row_codes != nullptr) store_scale_words(a.row_scales, sm.row_scales, tr, tc, a.row_scale_cols, a.swizzled);
  }

  // Staged scales [tile row][block] of tile (ti, tj) of an orientation -> 4-byte words (scale
  // rows ti * 128 + row, columns j = tj * 8 + 4 w; see num::swizzled_offset).
  __device__ static void store_scale_words(uint8_t* dst, const uint8_t (&src)[kTile][kTileBlocks], int64_t ti,
                                           int64_t tj, int64_t padded_cols, bool swizzled) {
    constexpr int kWords = kTileBlocks / 4;
    const int w = threadIdx.x % kWords;
    const int64_t j = tj * kTileBlocks + w * 4;
    if (j >= padded_cols) return;
    // Offset of row 0 of the tile (a 128-row tile is one swizzled unit row); rows add their own.
    const int64_t base = swizzled ? num::swizzled_unit_offset(ti, j / 4, padded_cols) : ti * kTile * padded_cols + j;
    constexpr int kRowStep = G::kThreads / kWords;
#pragma unroll
    for (int k = 0; k < kTile / kRowStep; ++k) {
      const int row = threadIdx.x / kWords + k * kRowStep;
      const int64_t off = base + (swizzled ? num::swizzled_row_offset(row) : row * padded_cols);
      const uint32_t v = *reinterpret_cast<const uint32_t*>(&src[row][w * 4]);
      store(reinterpret_cast<uint32_t*>(dst + off), v);
    }
  }
};

}  // namespace lowp::cuda::nvfp4
