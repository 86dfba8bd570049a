#include "quantized_buffers.h"

namespace lowp_cli {

void check(lowp_status s, const char* call) {
  if (s == LOWP_SUCCESS) return;
  const std::string last = lowp_get_last_error();
  if (s == LOWP_ERROR_UNSUPPORTED) throw LowpError(s, last);
  throw LowpError(s, std::string(call) + " returned " + lowp_status_name(s) + ": " + last);
}

Buffer stochastic_rounding_state(lowp_quant_config& cfg, Backend b) {
  if (!cfg.stochastic_rounding) return Buffer();
  static constexpr uint64_t kState[2] = {0x5EED5EEDull, 0};
  Buffer rng(b, sizeof kState);
  rng.upload(kState, sizeof kState);
  cfg.rng_state = static_cast<const uint64_t*>(rng.data());
  return rng;
}

bool allocate(QuantizedBuffers& qb, lowp_dtype dtype, lowp_scaling scaling, bool columnwise, const HostTensor& t,
              Backend b) {
  lowp_quantized_sizes sz{};
  check(lowp_quantized_sizes_query(dtype, scaling, t.rows, t.cols, &sz), "lowp_quantized_sizes_query");
  const bool with_columnwise = columnwise && sz.data_bytes[1] > 0;
  for (int o = 0; o < (with_columnwise ? 2 : 1); ++o) {
    qb.data[o] = Buffer(b, sz.data_bytes[o]);
    qb.scale_inv[o] = Buffer(b, sz.scale_inv_bytes[o]);
    qb.amax[o] = Buffer(b, sz.amax_bytes[o]);
  }
  qb.scale = Buffer(b, sz.tensor_scale_bytes);
  qb.tensor_scale_inv = Buffer(b, sz.tensor_scale_bytes);
  qb.tensor_amax = Buffer(b, sz.tensor_scale_bytes);

  lowp_quantized_tensor& q = qb.q;
  q.dtype = dtype;
  q.scaling = scaling;
  q.scale_layout = LOWP_SCALE_LAYOUT_COMPACT;
  q.rows = t.rows;
  q.cols = t.cols;
  q.rowwise = {qb.data[0].data(), qb.scale_inv[0].data(), qb.amax[0].floats()};
  q.columnwise = {qb.data[1].data(), qb.scale_inv[1].data(), qb.amax[1].floats()};
  q.scale = qb.scale.floats();
  q.scale_inv = qb.tensor_scale_inv.floats();
  q.amax = qb.tensor_amax.floats();
  return with_columnwise;
}

}  // namespace lowp_cli
