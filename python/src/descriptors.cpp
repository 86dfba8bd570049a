#include "descriptors.h"

namespace lowp_py {
namespace {

lowp_quantized_part part(uintptr_t data, uintptr_t scale_inv, uintptr_t amax) {
  lowp_quantized_part p{};
  p.data = ptr(data);
  p.scale_inv = ptr(scale_inv);
  p.amax = ptr<float>(amax);
  return p;
}

}  // namespace

lowp_tensor dense(uintptr_t data, int dtype, int64_t rows, int64_t cols) {
  lowp_tensor t{};
  t.data = ptr(data);
  t.dtype = static_cast<lowp_dtype>(dtype);
  t.rows = rows;
  t.cols = cols;
  return t;
}

lowp_quantized_tensor quantized(const QDesc& d) {
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = static_cast<lowp_dtype>(std::get<0>(d));
  q.scaling = static_cast<lowp_scaling>(std::get<1>(d));
  q.scale_layout = static_cast<lowp_scale_layout>(std::get<2>(d));
  q.rows = std::get<3>(d);
  q.cols = std::get<4>(d);
  q.rowwise = part(std::get<5>(d), std::get<6>(d), std::get<7>(d));
  q.columnwise = part(std::get<8>(d), std::get<9>(d), std::get<10>(d));
  q.scale = ptr<float>(std::get<11>(d));
  q.scale_inv = ptr<float>(std::get<12>(d));
  q.amax = ptr<float>(std::get<13>(d));
  q.nvfp4_outer_max = std::get<14>(d);
  return q;
}

}  // namespace lowp_py
