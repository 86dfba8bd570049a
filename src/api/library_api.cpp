// C entry points about the library itself and its growable structs: errors, version, backends,
// the initialisers (core/growable.h) and the NVFP4 role presets of lowp_quant_config (numerics §4,
// §5). None of them can throw (they copy constants), so none needs core/entry.h's guard.
#include "core/backends.h"
#include "core/enums.h"
#include "core/error.h"
#include "core/growable.h"
#include "lowp/lowp.h"

using namespace lowp;

extern "C" {

const char* lowp_get_last_error(void) { return last_error_message(); }

const char* lowp_status_name(lowp_status status) {
  const char* name = enum_name<lowp_status>(raw(status));
  return name != nullptr ? name : "LOWP_STATUS_UNKNOWN";
}

const char* lowp_version(void) { return LOWP_VERSION_STRING; }

int lowp_cuda_available(void) { return cuda::available() ? 1 : 0; }

void lowp_quant_config_default(lowp_quant_config* cfg) {
  if (cfg != nullptr) *cfg = default_config();
}

void lowp_quantized_tensor_init(lowp_quantized_tensor* q) {
  if (q != nullptr) *q = default_quantized_tensor();
}

void lowp_grouped_quantized_tensor_init(lowp_grouped_quantized_tensor* q) {
  if (q != nullptr) *q = default_grouped_quantized_tensor();
}

void lowp_quantized_layout_init(lowp_quantized_layout* layout) {
  if (layout != nullptr) *layout = default_quantized_layout();
}

void lowp_quant_config_nvfp4(lowp_tensor_role role, lowp_quant_config* cfg) {
  if (cfg == nullptr) return;
  lowp_quant_config_default(cfg);
  switch (raw(role)) {  // any int: an unknown role keeps the plain defaults
    case LOWP_ROLE_INPUT:
      cfg->rht = 1;
      cfg->amax_estimation_factor = 2.0f;
      break;
    case LOWP_ROLE_WEIGHT:
      cfg->block_2d = 1;
      break;
    case LOWP_ROLE_GRADIENT:
      cfg->rht = 1;
      cfg->stochastic_rounding = 1;
      cfg->amax_estimation_factor = 1.0f;
      break;
  }
}

// numerics §5: the per-token recipe's defaults are the same for every role (RHT and SR off).
void lowp_quant_config_nvfp4_per_token(lowp_tensor_role /*role*/, lowp_quant_config* cfg) {
  lowp_quant_config_default(cfg);
}

}  // extern "C"
