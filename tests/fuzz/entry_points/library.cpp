// The library's own functions: messages, status names, version, backends, and the initialisers
// of the growable structs (their values are lowp.h's documented defaults).
#include <cstring>
#include <memory>
#include <string>

#include "harness/model.h"
#include "harness/registry.h"

namespace lowp_fuzz {
namespace {

void get_last_error(Draw&, Call& c) {
  auto text = std::make_shared<std::string>();
  c.no_status = true;
  c.invoke = [text] {
    const char* m = lowp_get_last_error();
    *text = m == nullptr ? "(null)" : m;
    return LOWP_SUCCESS;
  };
  c.verify = [text] { return *text == "(null)" ? "lowp_get_last_error returned NULL" : ""; };
}

void status_name(Draw& d, Call& c) {
  const int status = d.enum_value(5);
  auto name = std::make_shared<const char*>(nullptr);
  c.no_status = true;
  c.expect.open(status >= 0 && status <= 4, {"status"}, "lowp_status_name of an unknown code: lowp.h does not say");
  c.invoke = [=] {
    *name = lowp_status_name(static_cast<lowp_status>(status));
    return LOWP_SUCCESS;
  };
  c.verify = [=]() -> std::string {
    static const char* const kNames[] = {"LOWP_SUCCESS", "LOWP_ERROR_INVALID_ARGUMENT", "LOWP_ERROR_UNSUPPORTED",
                                         "LOWP_ERROR_CUDA", "LOWP_ERROR_INTERNAL"};
    if (*name == nullptr || **name == '\0') return "lowp_status_name(" + std::to_string(status) + ") is NULL or empty";
    if (status >= 0 && status <= 4 && std::strcmp(*name, kNames[status]) != 0)
      return "lowp_status_name(" + std::to_string(status) + ") is " + *name;
    return "";
  };
}

void version(Draw&, Call& c) {
  auto v = std::make_shared<const char*>(nullptr);
  c.no_status = true;
  c.invoke = [v] {
    *v = lowp_version();
    return LOWP_SUCCESS;
  };
  c.verify = [v]() -> std::string {
    if (*v == nullptr || std::strcmp(*v, LOWP_VERSION_STRING) != 0) return "lowp_version is not LOWP_VERSION_STRING";
    return "";
  };
}

void cuda_available(Draw&, Call& c) {
  auto got = std::make_shared<int>(-1);
  const bool device_run = c.data.device();  // device runs need a device; CPU-only builds have none
  c.no_status = true;
  c.invoke = [got] {
    *got = lowp_cuda_available();
    return LOWP_SUCCESS;
  };
  c.verify = [=]() -> std::string {
    const bool ok = device_run ? *got == 1 : *got == 0 || (*got == 1 && LOWP_FUZZ_WITH_CUDA);
    return ok ? "" : "lowp_cuda_available() is " + std::to_string(*got);
  };
}

// An initialiser's output struct: NULL (a no-op) or host memory of exactly sizeof(T).
template <typename T>
T* init_target(Draw& d, Call& c, const char* name) {
  c.no_status = true;
  return static_cast<T*>(
      c.buffer(name, sizeof(T), Role::kOutPartial, d.percent(10) ? d.null() : d.normal(), &host_memory()));
}

template <typename T>
std::string differs(const T* got, const T& want, const char* what) {
  return got == nullptr || std::memcmp(got, &want, sizeof want) == 0 ? "" : std::string(what) + " wrote other values";
}

// Padding bytes are not values: compare member-wise copies made from zeroed storage.
lowp_quant_config copy_config(const lowp_quant_config& in) {
  lowp_quant_config c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = in.struct_size;
  c.amax_epsilon = in.amax_epsilon;
  c.power_of_two_scale = in.power_of_two_scale;
  c.rht = in.rht;
  c.rht_sign_mask = in.rht_sign_mask;
  c.stochastic_rounding = in.stochastic_rounding;
  c.rng_state = in.rng_state;
  c.block_2d = in.block_2d;
  c.amax_estimation = in.amax_estimation;
  c.amax_estimation_factor = in.amax_estimation_factor;
  c.amax_given = in.amax_given;
  c.group_row_multiple = in.group_row_multiple;
  c.four_over_six = in.four_over_six;
  set_int(c.four_over_six_error, as_int(in.four_over_six_error));
  c.four_over_six_scale_max = in.four_over_six_scale_max;
  return c;
}

void quant_config_default(Draw& d, Call& c) {
  auto* cfg = init_target<lowp_quant_config>(d, c, "cfg");
  c.invoke = [cfg] {
    lowp_quant_config_default(cfg);
    return LOWP_SUCCESS;
  };
  c.verify = [cfg]() -> std::string {
    if (cfg == nullptr) return "";
    const lowp_quant_config want = header_default_config(), got = copy_config(*cfg);
    return differs(&got, want, "lowp_quant_config_default");
  };
}

void quant_config_nvfp4(Draw& d, Call& c) {
  const int role = d.enum_value(3);
  auto* cfg = init_target<lowp_quant_config>(d, c, "cfg");
  c.invoke = [=] {
    lowp_quant_config_nvfp4(static_cast<lowp_tensor_role>(role), cfg);
    return LOWP_SUCCESS;
  };
  c.verify = [=]() -> std::string {
    if (cfg == nullptr) return "";
    lowp_quant_config want = header_default_config();
    if (role == LOWP_ROLE_INPUT) want.rht = 1;
    if (role == LOWP_ROLE_WEIGHT) want.block_2d = 1;
    if (role == LOWP_ROLE_GRADIENT) {
      want.rht = 1;
      want.stochastic_rounding = 1;
      want.amax_estimation_factor = 1.0f;
    }
    const lowp_quant_config got = copy_config(*cfg);
    return differs(&got, want, ("lowp_quant_config_nvfp4(" + std::to_string(role) + ")").c_str());
  };
}

// lowp.h: "lowp_quant_config_default() for every role" (an unknown one included).
void quant_config_nvfp4_per_token(Draw& d, Call& c) {
  const int role = d.enum_value(3);
  auto* cfg = init_target<lowp_quant_config>(d, c, "cfg");
  c.invoke = [=] {
    lowp_quant_config_nvfp4_per_token(static_cast<lowp_tensor_role>(role), cfg);
    return LOWP_SUCCESS;
  };
  c.verify = [=]() -> std::string {
    if (cfg == nullptr) return "";
    const lowp_quant_config want = header_default_config(), got = copy_config(*cfg);
    return differs(&got, want, ("lowp_quant_config_nvfp4_per_token(" + std::to_string(role) + ")").c_str());
  };
}

void quantized_tensor_init(Draw& d, Call& c) {
  auto* q = init_target<lowp_quantized_tensor>(d, c, "q");
  c.invoke = [q] {
    lowp_quantized_tensor_init(q);
    return LOWP_SUCCESS;
  };
  c.verify = [q]() -> std::string {
    if (q == nullptr) return "";
    const lowp_quantized_tensor& g = *q;
    const bool zero = g.dtype == 0 && g.scaling == 0 && g.scale_layout == 0 && g.rows == 0 && g.cols == 0 &&
                      !g.rowwise.data && !g.rowwise.scale_inv && !g.rowwise.amax && !g.columnwise.data &&
                      !g.columnwise.scale_inv && !g.columnwise.amax && !g.scale && !g.scale_inv && !g.amax &&
                      g.nvfp4_outer_max == 0.0f;
    if (g.struct_size != sizeof g || !zero) return "lowp_quantized_tensor_init: not zeros with struct_size = sizeof";
    return "";
  };
}

void grouped_quantized_tensor_init(Draw& d, Call& c) {
  auto* q = init_target<lowp_grouped_quantized_tensor>(d, c, "q");
  c.invoke = [q] {
    lowp_grouped_quantized_tensor_init(q);
    return LOWP_SUCCESS;
  };
  c.verify = [q]() -> std::string {
    if (q == nullptr) return "";
    const lowp_grouped_quantized_tensor& g = *q;
    const bool zero = g.dtype == 0 && g.scaling == 0 && g.num_tensors == 0 && !g.rowwise_data && !g.columnwise_data &&
                      !g.scale && !g.scale_inv && !g.amax && g.amax_stride == 0;
    if (g.struct_size != sizeof g || !zero)
      return "lowp_grouped_quantized_tensor_init: not zeros with struct_size = sizeof";
    return "";
  };
}

}  // namespace

LOWP_FUZZ_ENTRY_POINT(lowp_get_last_error, get_last_error);
LOWP_FUZZ_ENTRY_POINT(lowp_status_name, status_name);
LOWP_FUZZ_ENTRY_POINT(lowp_version, version);
LOWP_FUZZ_ENTRY_POINT(lowp_cuda_available, cuda_available);
LOWP_FUZZ_ENTRY_POINT(lowp_quant_config_default, quant_config_default);
LOWP_FUZZ_ENTRY_POINT(lowp_quant_config_nvfp4, quant_config_nvfp4);
LOWP_FUZZ_ENTRY_POINT(lowp_quant_config_nvfp4_per_token, quant_config_nvfp4_per_token);
LOWP_FUZZ_ENTRY_POINT(lowp_quantized_tensor_init, quantized_tensor_init);
LOWP_FUZZ_ENTRY_POINT(lowp_grouped_quantized_tensor_init, grouped_quantized_tensor_init);

}  // namespace lowp_fuzz
