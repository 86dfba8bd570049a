/* The growable structs' INIT macros compiled as C (lowp.h promises `= LOWP_..._INIT;` in C and
   C++): static and automatic initialisation, handed to growable_struct_test.cpp. */
#include "lowp/lowp.h"

static const lowp_quantized_tensor kStaticTensor = LOWP_QUANTIZED_TENSOR_INIT;

lowp_quantized_tensor c_quantized_tensor_static(void) { return kStaticTensor; }

lowp_quantized_tensor c_quantized_tensor_init(void) {
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  return q;
}

lowp_grouped_quantized_tensor c_grouped_quantized_tensor_init(void) {
  lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;
  return q;
}

lowp_quantized_layout c_quantized_layout_init(void) {
  lowp_quantized_layout l = LOWP_QUANTIZED_LAYOUT_INIT;
  return l;
}
