// CUTLASS collective mainloop for NVFP4 x NVFP4 on Hopper (numerics §8): the producer warp brings
// packed E2M1 codes (TMA) and swizzled UE4M3 scale chunks (bulk copies) of each K tile into a
// pipeline stage; the two consumer warpgroups decode the stage into fp16 tiles in the layout
// GMMA reads (never a decoded copy in global memory), then run fp16 GMMA with fp32 accumulation.
// Plugs into CUTLASS's cooperative warp-specialized kernel and its epilogues unchanged.
#pragma once
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/pipeline/pipeline.hpp>

#include "cuda/gemm/nvfp4_decode.cuh"

namespace lowp::cuda::gemm_sm90 {
using namespace cute;

template <int Stages_>
struct Nvfp4MainloopPolicy {
  static constexpr int Stages = Stages_;
  using ClusterShape = Shape<_1, _1, _1>;
  using ArchTag = cutlass::arch::Sm90;
  using Schedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
};

// Tile 128 x 256 x 64: two consumer warpgroups of 64 x 256 each. A K tile of a 128-row block has
// exactly one 512-byte chunk of swizzled scales (numerics §6), so the scales of a stage are one
// chunk for A and two for B.
template <int Stages>
struct Nvfp4Mainloop {
  static constexpr int kM = 128, kN = 256, kK = 64;
  static constexpr int kCodeRowBytes = kK / 2;
  static constexpr int kChunkBytes = 512;  // one 128-row x 4-block chunk of swizzled scales
  static constexpr int kCodeStageBytes = (kM + kN) * kCodeRowBytes;
  static constexpr int kScaleStageBytes = (kM + kN) / 128 * kChunkBytes;
  static constexpr int kConsumerThreads = 256;
  static constexpr int kDecodeBuffers = 2;
  static constexpr float kAccumulatorScale = 268435456.0f;  // 2^28: undoes decode_stage's 2^-14 per operand

  using DispatchPolicy = Nvfp4MainloopPolicy<Stages>;
  using TileShape = Shape<Int<kM>, Int<kN>, Int<kK>>;
  using ElementA = uint8_t;  // two E2M1 codes a byte
  using ElementB = uint8_t;
  using StrideA = Stride<int64_t, _1, int64_t>;  // (rows, K/2 bytes, batch)
  using StrideB = Stride<int64_t, _1, int64_t>;
  using ElementMma = cutlass::half_t;
  using TiledMma = decltype(make_tiled_mma(
      SM90_64x256x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>{}, Layout<Shape<_2, _1, _1>>{}));
  using ElementAccumulator = float;
  using ArchTag = cutlass::arch::Sm90;
  using MainloopPipeline = cutlass::PipelineTmaAsync<Stages>;
  using PipelineState = cutlass::PipelineState<Stages>;
  using PipelineParams = typename MainloopPipeline::Params;
  static constexpr int NumProducerThreadEvents = 1;

  // Codes as TMA lands them: per stage A's [128][32] bytes, then B's [256][32].
  using CodeTileA = Layout<Shape<Int<kM>, Int<kCodeRowBytes>>, Stride<Int<kCodeRowBytes>, _1>>;
  using CodeTileB = Layout<Shape<Int<kN>, Int<kCodeRowBytes>>, Stride<Int<kCodeRowBytes>, _1>>;
  using SmemCodesA = Layout<Shape<Int<kM>, Int<kCodeRowBytes>, Int<Stages>>,
                            Stride<Int<kCodeRowBytes>, _1, Int<kCodeStageBytes>>>;
  using SmemCodesB = Layout<Shape<Int<kN>, Int<kCodeRowBytes>, Int<Stages>>,
                            Stride<Int<kCodeRowBytes>, _1, Int<kCodeStageBytes>>>;
  // Decoded operands: K-major, 128-byte swizzle, what SS GMMA reads.
  using SmemLayoutAtom = GMMA::Layout_K_SW128_Atom<ElementMma>;
  using SmemLayoutA = decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kM>, Int<kK>, Int<kDecodeBuffers>>{}));
  using SmemLayoutB = decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kN>, Int<kK>, Int<kDecodeBuffers>>{}));

  struct SharedStorage {
    struct TensorStorage : cute::aligned_struct<1024, _0> {
      cute::array_aligned<ElementMma, cute::cosize_v<SmemLayoutA>, 1024> decoded_a;
      cute::array_aligned<ElementMma, cute::cosize_v<SmemLayoutB>, 1024> decoded_b;
      cute::array_aligned<uint8_t, kCodeStageBytes * Stages, 128> codes;
      cute::array_aligned<uint8_t, kScaleStageBytes * Stages, 128> scales;
    } tensors;
    using PipelineStorage = typename MainloopPipeline::SharedStorage;
    PipelineStorage pipeline;
  };
  using TensorStorage = typename SharedStorage::TensorStorage;
  using PipelineStorage = typename SharedStorage::PipelineStorage;

  struct Arguments {
    const uint8_t* codes_a;   // M x K/2 bytes, row pitch K/2
    const uint8_t* codes_b;   // N x K/2 bytes
    const uint8_t* scales_a;  // swizzled UE4M3, [roundup(M,128)][roundup(K/16,4)]
    const uint8_t* scales_b;
  };

  using TmaA = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                      make_tensor(static_cast<const uint8_t*>(nullptr),
                                                  repeat_like(StrideA{}, int64_t(0)), StrideA{}),
                                      CodeTileA{}));
  using TmaB = decltype(make_tma_copy(SM90_TMA_LOAD{},
                                      make_tensor(static_cast<const uint8_t*>(nullptr),
                                                  repeat_like(StrideB{}, int64_t(0)), StrideB{}),
                                      CodeTileB{}));

  struct Params {
    TmaA tma_a;
    TmaB tma_b;
    const uint8_t* scales_a;
    const uint8_t* scales_b;
    int32_t b_row_chunks;  // roundup(N,128) / 128
    int32_t k_tiles;       // roundup(K/16,4) / 4 = ceil(K/64): chunks per 128-row block
    uint32_t tma_transaction_bytes = kCodeStageBytes + kScaleStageBytes;
  };

  template <class ProblemShape>
  static Params to_underlying_arguments(ProblemShape const& problem_shape, Arguments const& args, void*) {
    auto [M, N, K, L] = append<4>(problem_shape, 1);
    const int64_t row_bytes = K / 2;
    auto tensor_a = make_tensor(args.codes_a, make_layout(make_shape(int64_t(M), row_bytes, int64_t(L)),
                                                          StrideA{row_bytes, _1{}, int64_t(M) * row_bytes}));
    auto tensor_b = make_tensor(args.codes_b, make_layout(make_shape(int64_t(N), row_bytes, int64_t(L)),
                                                          StrideB{row_bytes, _1{}, int64_t(N) * row_bytes}));
    Params p{make_tma_copy(SM90_TMA_LOAD{}, tensor_a, CodeTileA{}),
             make_tma_copy(SM90_TMA_LOAD{}, tensor_b, CodeTileB{}),
             args.scales_a,
             args.scales_b,
             static_cast<int32_t>((N + 127) / 128),
             static_cast<int32_t>((K + 63) / 64)};
    return p;
  }

  template <class ProblemShape>
  static bool can_implement(ProblemShape const& problem_shape, Arguments const& args) {
    auto [M, N, K, L] = append<4>(problem_shape, 1);
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    return K % 32 == 0 && L == 1 && aligned(args.codes_a) && aligned(args.codes_b) &&
           aligned(args.scales_a) && aligned(args.scales_b);
  }

  CUTLASS_DEVICE static void prefetch_tma_descriptors(Params const& p) {
    cute::prefetch_tma_descriptor(p.tma_a.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_b.get_tma_descriptor());
  }

  // (tile rows, K/2 bytes of a K tile, row tiles, K tiles, batch) views of the codes.
  template <class ProblemShape_MNKL>
  CUTLASS_DEVICE auto load_init(ProblemShape_MNKL const& problem_shape, Params const& p) const {
    using X = Underscore;
    auto [M, N, K, L] = problem_shape;
    Tensor m_a = p.tma_a.get_tma_tensor(make_shape(M, K / 2, L));
    Tensor m_b = p.tma_b.get_tma_tensor(make_shape(N, K / 2, L));
    auto tiler = Shape<Int<kM>, Int<kN>, Int<kCodeRowBytes>>{};
    Tensor g_a = local_tile(m_a, tiler, make_coord(_, _, _), Step<_1, X, _1>{});
    Tensor g_b = local_tile(m_b, tiler, make_coord(_, _, _), Step<X, _1, _1>{});
    return cute::make_tuple(g_a, g_b);
  }

  // Producer: one elected thread issues the code tiles and scale chunks of every K tile.
  template <class TensorA, class TensorB, class KTileIterator, class BlockCoord>
  CUTLASS_DEVICE void load(Params const& p, MainloopPipeline pipeline, PipelineState write_state,
                           cute::tuple<TensorA, TensorB> const& load_inputs, BlockCoord const& blk_coord,
                           KTileIterator k_tile_iter, int k_tile_count, int /*thread_idx*/,
                           uint32_t /*block_rank_in_cluster*/, TensorStorage& shared) {
    if (!cute::elect_one_sync()) return;
    Tensor s_a = make_tensor(make_smem_ptr(shared.codes.data()), SmemCodesA{});
    Tensor s_b = make_tensor(make_smem_ptr(shared.codes.data() + kM * kCodeRowBytes), SmemCodesB{});
    auto [m_coord, n_coord, k_coord, l_coord] = blk_coord;
    Tensor g_a = get<0>(load_inputs)(_, _, m_coord, _, l_coord);
    Tensor g_b = get<1>(load_inputs)(_, _, n_coord, _, l_coord);
    auto tma_a = p.tma_a.get_slice(0);
    auto tma_b = p.tma_b.get_slice(0);
    Tensor src_a = tma_a.partition_S(g_a);
    Tensor dst_a = tma_a.partition_D(s_a);
    Tensor src_b = tma_b.partition_S(g_b);
    Tensor dst_b = tma_b.partition_D(s_b);
    // B's second 128-row chunk lies past the padded scale array when N <= 128 * (2n + 1); its rows
    // are then all past N, so any valid chunk will do there.
    const int64_t a_chunk = int64_t(m_coord) * p.k_tiles;
    const int64_t b_chunk0 = int64_t(2 * n_coord) * p.k_tiles;
    const int64_t b_chunk1 = int64_t(min(2 * n_coord + 1, p.b_row_chunks - 1)) * p.k_tiles;
    for (; k_tile_count > 0; --k_tile_count, ++k_tile_iter, ++write_state) {
      pipeline.producer_acquire(write_state);
      auto* bar = pipeline.producer_get_barrier(write_state);
      const int stage = write_state.index();
      const int kt = *k_tile_iter;
      copy(p.tma_a.with(*bar), src_a(_, _, _, kt), dst_a(_, _, _, stage));
      copy(p.tma_b.with(*bar), src_b(_, _, _, kt), dst_b(_, _, _, stage));
      uint8_t* s = shared.scales.data() + stage * kScaleStageBytes;
      SM90_BULK_COPY_G2S::copy(p.scales_a + (a_chunk + kt) * kChunkBytes, bar, s, kChunkBytes);
      SM90_BULK_COPY_G2S::copy(p.scales_b + (b_chunk0 + kt) * kChunkBytes, bar, s + kChunkBytes, kChunkBytes);
      SM90_BULK_COPY_G2S::copy(p.scales_b + (b_chunk1 + kt) * kChunkBytes, bar, s + 2 * kChunkBytes, kChunkBytes);
    }
  }

  CUTLASS_DEVICE void load_tail(MainloopPipeline pipeline, PipelineState write_state) {
    if (cute::elect_one_sync()) pipeline.producer_tail(write_state);
  }

  // Decodes one stage into decoded buffer `buf` as e2m1(q) * s * 2^-14 (decode_e2m1x8_scaled_permuted;
  // the epilogue multiplies the accumulator by kAccumulatorScale = 2^28, exactly). The 384 code
  // rows x 8 words of a stage (A's 128 rows, then B's 256) are 3072 tasks; thread t takes task
  // 256 * i + t for i < 12, i.e. row 32 * i + t / 8, word t % 8: a warp reads 32 consecutive words
  // and writes four whole 128-byte rows, both without bank conflicts, and a thread's row % 8 and
  // word are fixed.
  CUTLASS_DEVICE static void decode_stage(const uint8_t* codes, const uint8_t* scales, uint8_t* dec_a,
                                          uint8_t* dec_b, int thread) {
    const int row8 = thread >> 3, word = thread & 7;
    const uint32_t block = word >> 1;  // 16-element block of the 64-element K tile
    const uint32_t scale_selector = 0x4400u | block | (block << 4);
    const int src = row8 * kCodeRowBytes + word * 4;
    const int dst = row8 * 128 + ((word ^ (row8 & 7)) * 16);  // SW128: 16-byte chunk ^ row % 8
    // Swizzled chunk byte of row r, block j: (r % 32) * 16 + ((r % 128) / 32) * 4 + j.
    uint32_t scale_words[3][4];
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const uint4 v = *reinterpret_cast<const uint4*>(scales + c * kChunkBytes + row8 * 16);
      scale_words[c][0] = v.x;
      scale_words[c][1] = v.y;
      scale_words[c][2] = v.z;
      scale_words[c][3] = v.w;
    }
    // All loads before the first store: the compiler cannot tell the decoded tiles from the codes,
    // so a load after a store would wait for it.
    uint32_t words[12];
#pragma unroll
    for (int i = 0; i < 12; ++i) words[i] = *reinterpret_cast<const uint32_t*>(codes + i * 32 * kCodeRowBytes + src);
#pragma unroll
    for (int i = 0; i < 12; ++i) {
      const uint32_t s = scale_f16x2(scale_words[i / 4][i % 4], scale_selector);
      uint32_t v[4];
      decode_e2m1x8_scaled_permuted(words[i], v);
      uint4 out;
      out.x = hmul2(v[0], s);
      out.y = hmul2(v[1], s);
      out.z = hmul2(v[2], s);
      out.w = hmul2(v[3], s);
      uint8_t* base = i < 4 ? dec_a + i * 32 * 128 : dec_b + (i - 4) * 32 * 128;
      *reinterpret_cast<uint4*>(base + dst) = out;
    }
  }

  // Consumers. Per K tile: wait for the stage; make sure the buffer to decode into is no longer
  // read by any GMMA (two tiles back); decode; publish to the async proxy; release the stage; GMMA.
  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState read_state, FrgTensorC& accum,
                          int k_tile_count, int thread_idx, TensorStorage& shared, Params const&) {
    using Barrier = cutlass::arch::NamedBarrier;
    constexpr uint32_t kFreeBarrier = 0, kReadyBarrier = 1;  // after CUTLASS's reserved ones

    Tensor s_a = make_tensor(make_smem_ptr(shared.decoded_a.data()), SmemLayoutA{});
    Tensor s_b = make_tensor(make_smem_ptr(shared.decoded_b.data()), SmemLayoutB{});
    TiledMma tiled_mma;
    const int warp_group = __shfl_sync(0xFFFFFFFF, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    auto thread_mma = tiled_mma.get_slice(warp_group * cutlass::NumThreadsPerWarpGroup);
    Tensor frag_a = thread_mma.make_fragment_A(thread_mma.partition_A(s_a));  // (MMA, M, K, buf)
    Tensor frag_b = thread_mma.make_fragment_B(thread_mma.partition_B(s_b));

    auto* dec_a = reinterpret_cast<uint8_t*>(shared.decoded_a.data());
    auto* dec_b = reinterpret_cast<uint8_t*>(shared.decoded_b.data());
    constexpr int kBufBytesA = kM * kK * 2, kBufBytesB = kN * kK * 2;

    tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
    warpgroup_fence_operand(accum);
    for (int kt = 0; kt < k_tile_count; ++kt, ++read_state) {
      const int buf = kt % kDecodeBuffers;
      pipeline.consumer_wait(read_state, pipeline.consumer_try_wait(read_state));
      warpgroup_wait<1>();  // this warpgroup's GMMA of tile kt - 2 is done
      Barrier::sync(kConsumerThreads, kFreeBarrier);
      const int stage = read_state.index();
      decode_stage(shared.codes.data() + stage * kCodeStageBytes, shared.scales.data() + stage * kScaleStageBytes,
                   dec_a + buf * kBufBytesA, dec_b + buf * kBufBytesB, thread_idx);
      cutlass::arch::fence_view_async_shared();
      Barrier::sync(kConsumerThreads, kReadyBarrier);
      pipeline.consumer_release(read_state);

      warpgroup_fence_operand(accum);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int kb = 0; kb < size<2>(frag_a); ++kb) {
        cute::gemm(tiled_mma, frag_a(_, _, kb, buf), frag_b(_, _, kb, buf), accum);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(accum);
    }
  }

  CUTLASS_DEVICE void mma_tail(MainloopPipeline, PipelineState, int) { warpgroup_wait<0>(); }
};

}  // namespace lowp::cuda::gemm_sm90
