// The EVT epilogue of the NVFP4 GEMMs (nvfp4_gemm.h's epilogue, in its order):
//   r = s * (vb[j] * (va[i] * (c * acc))),  s = (p0 * p1) * p2,  then r + bias[j], then D_old + r,
// where c is the mainloop's power-of-two accumulator scale (1 when its operands are the exact
// values; c * acc is exact, so the order is the reference's).
// Per-tensor: va = vb = 1 and s = (A_a * A_b) * inv_denominator; per-token: va, vb the amax
// vectors floored at 1e-12 and s = (1 * 1) * inv_denominator; per-row raw: no floor. Every option
// is a runtime value, so one kernel serves each output type (and one accumulation).
#pragma once
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp>

#include <limits>
#include <type_traits>

#include "cuda/gemm/nvfp4_gemm.h"

namespace lowp::cuda::gemm_sm90 {
namespace fusion = cutlass::epilogue::fusion;

// max(amax, floor) as fmaxf (a NaN amax becomes the floor, numerics §5); a NaN floor means "raw".
template <class T>
struct AmaxFloor {
  CUTLASS_HOST_DEVICE T operator()(T amax, T floor) const { return floor != floor ? amax : fmaxf(amax, floor); }
};
template <int N>
struct AmaxFloor<cutlass::Array<float, N>> {
  CUTLASS_HOST_DEVICE cutlass::Array<float, N> operator()(cutlass::Array<float, N> const& amax,
                                                          cutlass::Array<float, N> const& floor) const {
    cutlass::Array<float, N> r;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) r[i] = AmaxFloor<float>{}(amax[i], floor[i]);
    return r;
  }
};

template <class TileShape>
struct OuterScaleEpilogue {
  static constexpr auto kRN = cutlass::FloatRoundStyle::round_to_nearest;
  template <template <class> class Fn, class Out = float>
  using Op = fusion::Sm90Compute<Fn, Out, float, kRN>;
  using RowVector = fusion::Sm90RowBroadcast<0, TileShape, float, float, cute::Stride<cute::_0, cute::_1, cute::_0>, 1>;
  using ColVector = fusion::Sm90ColBroadcast<0, TileShape, float, float, cute::Stride<cute::_1, cute::_0, cute::_0>, 1>;
  using Scalar = fusion::Sm90ScalarBroadcast<float>;
  using ScalarProduct = fusion::Sm90ScalarBroadcast<float, cute::Stride<cute::_0, cute::_0, cute::_0>, 3>;
  using ScaledAcc =  // s * (vb * (va * acc))
      fusion::Sm90EVT<Op<cutlass::multiplies>, ScalarProduct,
                      fusion::Sm90EVT<Op<cutlass::multiplies>, fusion::Sm90EVT<Op<AmaxFloor>, RowVector, Scalar>,
                                      fusion::Sm90EVT<Op<cutlass::multiplies>,
                                                      fusion::Sm90EVT<Op<AmaxFloor>, ColVector, Scalar>,
                                                      fusion::Sm90EVT<Op<cutlass::multiplies>, Scalar,
                                                                      fusion::Sm90AccFetch>>>>;
  template <class Out>
  using WithBias = fusion::Sm90EVT<Op<cutlass::plus, Out>, ScaledAcc, RowVector>;
  using Accumulated = fusion::Sm90EVT<Op<cutlass::plus>, fusion::Sm90SrcFetch<float>, WithBias<float>>;

  // The fusion tree for D of ElementD, and its arguments for `a`.
  template <class ElementD, bool kAccumulate>
  using Fusion = std::conditional_t<kAccumulate, Accumulated, WithBias<ElementD>>;

  template <class ElementD, bool kAccumulate>
  static typename Fusion<ElementD, kAccumulate>::Arguments arguments(const Nvfp4GemmArgs& a, float acc_scale) {
    const bool per_tensor = a.outer == Nvfp4OuterScale::kPerTensor;
    const float floor = a.outer == Nvfp4OuterScale::kPerTokenFloored ? 1e-12f
                        : a.outer == Nvfp4OuterScale::kPerRowRaw   ? std::numeric_limits<float>::quiet_NaN()
                                                                   : 1.0f;
    typename ScaledAcc::Arguments scaled{
        {{1.0f, 1.0f, a.inv_denominator},
         {per_tensor ? a.a.amax : nullptr, per_tensor ? a.b.amax : nullptr, nullptr}},
        {{{per_tensor ? nullptr : a.b.amax, 1.0f}, {{floor}}, {}},
         {{{per_tensor ? nullptr : a.a.amax, 1.0f}, {{floor}}, {}}, {{{acc_scale}}, {}, {}}, {}},
         {}},
        {}};
    typename WithBias<std::conditional_t<kAccumulate, float, ElementD>>::Arguments biased{
        scaled, {static_cast<const float*>(a.bias), -0.0f}, {}};
    if constexpr (kAccumulate) return {{}, biased, {}};
    else return biased;
  }

  // CUTLASS's TMA epilogue with that tree; C (when accumulating) is D itself.
  template <class ElementD, bool kAccumulate, class ClusterShape>
  using Collective = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, std::conditional_t<kAccumulate, float, void>,
      cutlass::layout::RowMajor, 128 / cutlass::sizeof_bits<ElementD>::value, ElementD, cutlass::layout::RowMajor,
      128 / cutlass::sizeof_bits<ElementD>::value, cutlass::epilogue::TmaWarpSpecializedCooperative,
      Fusion<ElementD, kAccumulate>>::CollectiveOp;

  template <class Kernel, class ElementD, bool kAccumulate>
  static typename Kernel::EpilogueArguments epilogue_arguments(const Nvfp4GemmArgs& a, float acc_scale = 1.0f) {
    using StrideC = typename Kernel::StrideC;
    using StrideD = typename Kernel::StrideD;
    const int64_t m = a.m, n = a.n;
    auto* d = static_cast<ElementD*>(a.d);
    typename Kernel::EpilogueArguments e{arguments<ElementD, kAccumulate>(a, acc_scale), nullptr, StrideC{}, d,
                                         StrideD{n, cute::_1{}, m * n}};
    if constexpr (kAccumulate) {
      e.ptr_C = d;
      e.dC = StrideC{n, cute::_1{}, m * n};
    }
    return e;
  }
};

}  // namespace lowp::cuda::gemm_sm90
