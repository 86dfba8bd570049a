// The C entry points as functions of lowp._lowp (see ops.cpp).
#pragma once
#include <nanobind/nanobind.h>

namespace lowp_py {
void bind_ops(nanobind::module_& m);
}
