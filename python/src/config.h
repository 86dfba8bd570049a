// The Python face of lowp_quant_config (see config.cpp).
#pragma once
#include <lowp/lowp.h>
#include <nanobind/nanobind.h>

namespace lowp_py {

struct QuantConfig {
  lowp_quant_config cfg{};
};

// NULL for None: the C calls then use their defaults.
inline const lowp_quant_config* config_ptr(const QuantConfig* c) { return c ? &c->cfg : nullptr; }

void bind_config(nanobind::module_& m);

}  // namespace lowp_py
