// lowp_gemm and lowp_gemm_workspace_size as functions of lowp._lowp (see gemm.cpp).
#pragma once
#include <nanobind/nanobind.h>

namespace lowp_py {
void bind_gemm(nanobind::module_& m);
}
