// CPU reference backend for the FP8 recipes: straightforward loops in the order docs/numerics.md states,
// parallel over rows.
#include <algorithm>
#include <vector>

#include "core/backends.h"
#include "cpu/elements.h"
#include "numerics/activation_grad.h"
#include "numerics/fp8_cast.h"
#include "numerics/fp8_scaling.h"
#include "cpu/parallel.h"

namespace lowp::cpu {
namespace {

constexpr int64_t kRowsPerChunk = 64;

// The value a quantize call encodes at element i: x, or dact(act_input) * x for backward casts.
float value_at(const Fp8QuantizeArgs& a, int64_t i) {
  const float g = load_f32(a.x.data, a.x.dtype, i);
  if (a.act < 0) return g;
  return num::dact_times_grad(a.act, load_f32(a.act_input, a.x.dtype, i), g);
}

// An empty view (a grouped member may be one, with any other dimension) has nothing to read or
// write: the passes below return before sizing anything by its rows.
bool empty(const DenseView& x) { return x.rows == 0 || x.cols == 0; }

// Bit-folded amax: each 64-row chunk writes its own slot, then the slots are merged.
template <typename Load>
uint32_t amax_bits(const DenseView& x, Load load) {
  if (empty(x)) return 0;
  const int64_t chunks = (x.rows + kRowsPerChunk - 1) / kRowsPerChunk;
  std::vector<uint32_t> partial(chunks, 0);
  parallel_for(chunks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      uint32_t acc = 0;
      const int64_t end = std::min(x.rows, (b + 1) * kRowsPerChunk) * x.cols;
      for (int64_t i = b * kRowsPerChunk * x.cols; i < end; ++i) acc = num::amax_bits_fold(acc, load(i));
      partial[b] = acc;
    }
  });
  uint32_t acc = 0;
  for (uint32_t p : partial) acc = p > acc ? p : acc;
  return acc;
}

template <bool kE4M3>
void cast(const Fp8QuantizeArgs& a, const float* row_scale, const float* col_scale, float tensor_scale) {
  const DenseView& x = a.x;
  if (empty(x)) return;
  parallel_for(x.rows, kRowsPerChunk, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t c = 0; c < x.cols; ++c) {
        const float v = value_at(a, r * x.cols + c);
        if (a.row_codes)
          a.row_codes[r * x.cols + c] = num::fp8_quantize_element<kE4M3>(v, row_scale ? row_scale[r] : tensor_scale);
        if (a.col_codes)
          a.col_codes[c * x.rows + r] = num::fp8_quantize_element<kE4M3>(v, col_scale ? col_scale[c] : tensor_scale);
      }
    }
  });
}

void cast_dispatch(const Fp8QuantizeArgs& a, const float* row_scale, const float* col_scale, float tensor_scale) {
  if (a.out_dtype == LOWP_DTYPE_E4M3) cast<true>(a, row_scale, col_scale, tensor_scale);
  else cast<false>(a, row_scale, col_scale, tensor_scale);
}

// Per-orientation-row scales from amaxes; also writes scale_inv.
std::vector<float> per_token_scales(const Fp8QuantizeArgs& a, const float* amax, float* scale_inv, int64_t n) {
  std::vector<float> s(n);
  const float fmax = fp8_max_of(a.out_dtype);
  for (int64_t i = 0; i < n; ++i) {
    s[i] = num::fp8_scale_from_amax(amax[i], fmax, a.amax_epsilon, a.power_of_two_scale);
    scale_inv[i] = num::reciprocal_rn(s[i]);
  }
  return s;
}


uint32_t amax_bits(const DenseView& x) {
  return amax_bits(x, [&](int64_t i) { return load_f32(x.data, x.dtype, i); });
}

uint32_t amax_bits(const Fp8QuantizeArgs& a) {
  return amax_bits(a.x, [&](int64_t i) { return value_at(a, i); });
}

}  // namespace

lowp_status amax(const DenseView& x, float* out) {
  *out = num::float_of(amax_bits(x));
  return LOWP_SUCCESS;
}

lowp_status amax_per_token(const DenseView& x, float* row_amax, float* col_amax) {
  std::vector<uint32_t> cols(col_amax ? x.cols : 0, 0);
  std::vector<uint32_t> rows(x.rows, 0);
  // Rows in parallel; columns folded per chunk then merged (chunk count is small).
  const int64_t chunks = (x.rows + kRowsPerChunk - 1) / kRowsPerChunk;
  std::vector<std::vector<uint32_t>> col_partial(col_amax ? chunks : 0);
  parallel_for(chunks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      if (col_amax) col_partial[b].assign(x.cols, 0);
      for (int64_t r = b * kRowsPerChunk; r < std::min(x.rows, (b + 1) * kRowsPerChunk); ++r) {
        uint32_t acc = 0;
        for (int64_t c = 0; c < x.cols; ++c) {
          const float v = load_f32(x.data, x.dtype, r * x.cols + c);
          acc = num::amax_bits_fold(acc, v);
          if (col_amax) col_partial[b][c] = num::amax_bits_fold(col_partial[b][c], v);
        }
        rows[r] = acc;
      }
    }
  });
  if (row_amax)
    for (int64_t r = 0; r < x.rows; ++r) row_amax[r] = num::float_of(rows[r]);
  if (col_amax) {
    for (const auto& p : col_partial)
      for (int64_t c = 0; c < x.cols; ++c) cols[c] = p[c] > cols[c] ? p[c] : cols[c];
    for (int64_t c = 0; c < x.cols; ++c) col_amax[c] = num::float_of(cols[c]);
  }
  return LOWP_SUCCESS;
}

lowp_status fp8_quantize(const Fp8QuantizeArgs& a) {
  const float fmax = fp8_max_of(a.out_dtype);
  switch (a.scaling) {
    case LOWP_SCALING_DELAYED: {
      const float scale = *a.scale;
      const uint32_t m = amax_bits(a);
      const uint32_t old = num::bits_of(*a.amax);  // raw bits, as the GPU's atomicMax sees them
      *a.amax = num::float_of(m > old ? m : old);
      *a.scale_inv = num::reciprocal_rn(scale);
      cast_dispatch(a, nullptr, nullptr, scale);
      return LOWP_SUCCESS;
    }
    case LOWP_SCALING_CURRENT: {
      const float am = num::float_of(amax_bits(a));
      const float scale = num::fp8_scale_from_amax(am, fmax, a.amax_epsilon, a.power_of_two_scale);
      *a.amax = am;
      *a.scale = scale;
      *a.scale_inv = num::reciprocal_rn(scale);
      cast_dispatch(a, nullptr, nullptr, scale);
      return LOWP_SUCCESS;
    }
    case LOWP_SCALING_PER_TOKEN: {
      amax_per_token(a.x, a.row_codes ? a.row_amax : nullptr, a.col_codes ? a.col_amax : nullptr);
      std::vector<float> rs, cs;
      if (a.row_codes) rs = per_token_scales(a, a.row_amax, a.row_scale_inv, a.x.rows);
      if (a.col_codes) cs = per_token_scales(a, a.col_amax, a.col_scale_inv, a.x.cols);
      cast_dispatch(a, a.row_codes ? rs.data() : nullptr, a.col_codes ? cs.data() : nullptr, 0.0f);
      return LOWP_SUCCESS;
    }
    default: return LOWP_ERROR_INTERNAL;
  }
}

lowp_status fp8_dequantize(const Fp8DequantizeArgs& a) {
  if (a.rows == 0 || a.cols == 0) return LOWP_SUCCESS;  // an empty grouped member
  const bool e4m3 = a.code_dtype == LOWP_DTYPE_E4M3;
  parallel_for(a.rows, kRowsPerChunk, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float s = a.scale_per_row ? a.scale_inv[r] : a.scale_inv[0];
      for (int64_t c = 0; c < a.cols; ++c) {
        const uint8_t q = a.codes[r * a.cols + c];
        const float v = e4m3 ? num::fp8_dequantize_element<true>(q, s) : num::fp8_dequantize_element<false>(q, s);
        store_f32(a.out, a.out_dtype, r * a.cols + c, v);
      }
    }
  });
  return LOWP_SUCCESS;
}

lowp_status fp8_delayed_update(const DelayedUpdateArgs& a) {
  for (int64_t t = 0; t < a.num_tensors; ++t) {
    const float s = num::fp8_delayed_update(a.amax_history + t * a.history_len, a.history_len, a.scale[t],
                                            a.fp8_max, a.margin, a.most_recent);
    a.scale[t] = s;
    a.scale_inv[t] = num::reciprocal_rn(s);
  }
  return LOWP_SUCCESS;
}

}  // namespace lowp::cpu
