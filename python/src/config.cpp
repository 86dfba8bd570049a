// lowp._lowp.QuantConfig: a lowp_quant_config built by the library's initialisers, with the
// knobs a caller names overriding them (the rest keep lowp's defaults, so new members added to
// the struct stay at their defaults here too).
#include "config.h"

#include <nanobind/stl/optional.h>

namespace nb = nanobind;

namespace lowp_py {

namespace {

template <class T, class V>
void set_if(T& field, const std::optional<V>& value) {
  if (value) field = static_cast<T>(*value);
}

// role: the NVFP4 role defaults, per-tensor (lowp_quant_config_nvfp4) or with per_token the
// per-token recipe's (lowp_quant_config_nvfp4_per_token).
QuantConfig make_config(std::optional<int> role, bool per_token, std::optional<float> amax_epsilon,
                        std::optional<bool> power_of_two_scale, std::optional<bool> rht,
                        std::optional<uint32_t> rht_sign_mask, std::optional<bool> stochastic_rounding,
                        uintptr_t rng_state, std::optional<bool> block_2d,
                        std::optional<bool> amax_estimation, std::optional<float> amax_estimation_factor,
                        std::optional<bool> amax_given, std::optional<int> group_row_multiple,
                        std::optional<bool> four_over_six, std::optional<int> four_over_six_error,
                        std::optional<float> four_over_six_scale_max) {
  QuantConfig c;
  if (role && per_token)
    lowp_quant_config_nvfp4_per_token(static_cast<lowp_tensor_role>(*role), &c.cfg);
  else if (role)
    lowp_quant_config_nvfp4(static_cast<lowp_tensor_role>(*role), &c.cfg);
  else
    lowp_quant_config_default(&c.cfg);
  set_if(c.cfg.amax_epsilon, amax_epsilon);
  set_if(c.cfg.power_of_two_scale, power_of_two_scale);
  set_if(c.cfg.rht, rht);
  set_if(c.cfg.rht_sign_mask, rht_sign_mask);
  set_if(c.cfg.stochastic_rounding, stochastic_rounding);
  if (rng_state) c.cfg.rng_state = reinterpret_cast<const uint64_t*>(rng_state);
  set_if(c.cfg.block_2d, block_2d);
  set_if(c.cfg.amax_estimation, amax_estimation);
  set_if(c.cfg.amax_estimation_factor, amax_estimation_factor);
  set_if(c.cfg.amax_given, amax_given);
  set_if(c.cfg.group_row_multiple, group_row_multiple);
  set_if(c.cfg.four_over_six, four_over_six);
  set_if(c.cfg.four_over_six_error, four_over_six_error);
  set_if(c.cfg.four_over_six_scale_max, four_over_six_scale_max);
  return c;
}

}  // namespace

void bind_config(nb::module_& m) {
  nb::class_<QuantConfig>(m, "QuantConfig",
                          "lowp_quant_config: lowp's defaults (or the NVFP4 role defaults of `role`: the\n"
                          "per-tensor recipe's, or with per_token the per-token recipe's), then every\n"
                          "knob given here. rng_state is a pointer (0: none).")
      .def(nb::new_(&make_config), nb::arg("role") = nb::none(), nb::arg("per_token") = false,
           nb::arg("amax_epsilon") = nb::none(),
           nb::arg("power_of_two_scale") = nb::none(), nb::arg("rht") = nb::none(),
           nb::arg("rht_sign_mask") = nb::none(), nb::arg("stochastic_rounding") = nb::none(),
           nb::arg("rng_state") = 0, nb::arg("block_2d") = nb::none(), nb::arg("amax_estimation") = nb::none(),
           nb::arg("amax_estimation_factor") = nb::none(), nb::arg("amax_given") = nb::none(),
           nb::arg("group_row_multiple") = nb::none(), nb::arg("four_over_six") = nb::none(),
           nb::arg("four_over_six_error") = nb::none(), nb::arg("four_over_six_scale_max") = nb::none())
      .def_prop_ro("amax_epsilon", [](const QuantConfig& c) { return c.cfg.amax_epsilon; })
      .def_prop_ro("power_of_two_scale", [](const QuantConfig& c) { return c.cfg.power_of_two_scale != 0; })
      .def_prop_ro("rht", [](const QuantConfig& c) { return c.cfg.rht != 0; })
      .def_prop_ro("rht_sign_mask", [](const QuantConfig& c) { return c.cfg.rht_sign_mask; })
      .def_prop_ro("stochastic_rounding", [](const QuantConfig& c) { return c.cfg.stochastic_rounding != 0; })
      .def_prop_ro("rng_state", [](const QuantConfig& c) { return reinterpret_cast<uintptr_t>(c.cfg.rng_state); })
      .def_prop_ro("block_2d", [](const QuantConfig& c) { return c.cfg.block_2d != 0; })
      .def_prop_ro("amax_estimation", [](const QuantConfig& c) { return c.cfg.amax_estimation != 0; })
      .def_prop_ro("amax_estimation_factor", [](const QuantConfig& c) { return c.cfg.amax_estimation_factor; })
      .def_prop_ro("amax_given", [](const QuantConfig& c) { return c.cfg.amax_given != 0; })
      .def_prop_ro("group_row_multiple", [](const QuantConfig& c) { return c.cfg.group_row_multiple; })
      .def_prop_ro("four_over_six", [](const QuantConfig& c) { return c.cfg.four_over_six != 0; })
      .def_prop_ro("four_over_six_error", [](const QuantConfig& c) { return static_cast<int>(c.cfg.four_over_six_error); })
      .def_prop_ro("four_over_six_scale_max", [](const QuantConfig& c) { return c.cfg.four_over_six_scale_max; });
}

}  // namespace lowp_py
