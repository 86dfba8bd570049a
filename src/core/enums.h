// The enums of lowp.h as a C caller passes them: any int. C++ may not load an enum object whose
// value lies outside the enum's range (undefined behaviour; UBSan's -fsanitize=enum reports it),
// so every public enum parameter and struct member is read as its int by raw(), checked by
// known(), and only then used as the enum. Messages print enums by name (enum_text).
#pragma once
#include <cstring>
#include <type_traits>

#include "lowp/lowp.h"

namespace lowp {

// The int a C caller stored in `e`, read without loading `e` as an enum.
template <typename E>
int raw(const E& e) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int), "lowp.h's enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// The name of value v of enum E ("LOWP_DTYPE_E4M3"), or NULL when v is none of E's values.
template <typename E>
const char* enum_name(int v);
template <typename E>
bool known(int v) {
  return enum_name<E>(v) != nullptr;
}

// The name of E's type, as messages say it ("lowp_dtype").
template <typename E>
const char* enum_type_name();

// A value for a message: its name, or for a value outside E "7 (not a lowp_scaling)".
struct EnumText {
  char text[64];
};
template <typename E>
EnumText enum_text(int v);
template <typename E>
EnumText enum_text(const E& e) {
  return enum_text<E>(raw(e));
}

}  // namespace lowp
