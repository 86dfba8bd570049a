// How a call reads the caller's copy of a growable struct (lowp.h, "Structs that grow"): the
// library's defaults first, then each member the caller's struct_size covers over them, so
// members the caller's lowp.h did not have keep their defaults. Reserved members (an older
// release's padding) are never read or written: an older caller's padding holds anything.
#pragma once
#include <cstddef>
#include <cstring>
#include <span>

#include "lowp/gemm.h"
#include "lowp/lowp.h"

namespace lowp {

enum class GrowableSize { kOk, kZero, kBelowFirstRelease, kAboveThisLibrary };

// A member's bytes in its struct.
struct Member {
  size_t offset, size;
};

// What of a growable struct a call may read. The first release's members are always covered
// (struct_size >= first_size); each member appended since is read only when struct_size covers
// all its bytes. Reserved members are not listed.
struct GrowableLayout {
  size_t first_size;         // LOWP_<STRUCT>_FIRST_SIZE: the smallest struct_size accepted
  size_t first_members_end;  // the first release's members lie in [0, first_members_end)
  std::span<const Member> appended;
};

// Each growable struct's layout (growable.cpp).
template <typename T>
const GrowableLayout& growable_layout();
template <>
const GrowableLayout& growable_layout<lowp_quant_config>();
template <>
const GrowableLayout& growable_layout<lowp_quantized_tensor>();
template <>
const GrowableLayout& growable_layout<lowp_grouped_quantized_tensor>();
template <>
const GrowableLayout& growable_layout<lowp_quantized_layout>();
template <>
const GrowableLayout& growable_layout<lowp_gemm_config>();

// `caller` points at a T as the caller compiled it (struct_size first, at most struct_size bytes
// read); *out holds the defaults. Copies only when the size is kOk, and sets out->struct_size to
// this library's sizeof(T).
template <typename T>
GrowableSize copy_growable(const void* caller, const GrowableLayout& layout, T* out) {
  size_t n;
  std::memcpy(&n, caller, sizeof n);
  if (n == 0) return GrowableSize::kZero;
  if (n < layout.first_size) return GrowableSize::kBelowFirstRelease;
  if (n > sizeof(T)) return GrowableSize::kAboveThisLibrary;
  const auto* from = static_cast<const char*>(caller);
  auto* to = reinterpret_cast<char*>(out);
  std::memcpy(to + sizeof n, from + sizeof n, layout.first_members_end - sizeof n);
  for (const Member& m : layout.appended)
    if (m.offset + m.size <= n) std::memcpy(to + m.offset, from + m.offset, m.size);
  out->struct_size = sizeof(T);
  return GrowableSize::kOk;
}

template <typename T>
GrowableSize copy_growable(const T* caller, T* out) {
  return copy_growable(caller, growable_layout<T>(), out);
}

// What each growable struct's initialiser gives (lowp_quant_config_default() & co. return these):
// struct_size set, everything else 0 but the configs' defaults.
lowp_quant_config default_config();
lowp_quantized_tensor default_quantized_tensor();
lowp_grouped_quantized_tensor default_grouped_quantized_tensor();
lowp_quantized_layout default_quantized_layout();
lowp_gemm_config default_gemm_config();

// The growable structs read into *out by copy_growable, with a message naming the argument and
// the initialiser on failure. A cfg may be NULL (the defaults); q is not NULL.
lowp_status read_config(const lowp_quant_config* cfg, lowp_quant_config* out);
lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, lowp_quantized_tensor* out);
// The same for an argument named `name` (e.g. a GEMM's "a" and "b").
lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, const char* name, lowp_quantized_tensor* out);
lowp_status read_grouped_quantized_tensor(const lowp_grouped_quantized_tensor* q, lowp_grouped_quantized_tensor* out);
// `name` is how messages call it ("layout").
lowp_status read_quantized_layout(const lowp_quantized_layout* layout, const char* name, lowp_quantized_layout* out);
lowp_status read_gemm_config(const lowp_gemm_config* cfg, lowp_gemm_config* out);

// Writes `value` back to the caller's struct, read before by read_*: the members its struct_size
// covers (members its lowp.h lacks and reserved ones stay unwritten), its struct_size kept.
template <typename T>
void write_growable(T* caller, const T& value, const GrowableLayout& layout) {
  size_t n;
  std::memcpy(&n, caller, sizeof n);
  auto* to = reinterpret_cast<char*>(caller);
  const auto* from = reinterpret_cast<const char*>(&value);
  std::memcpy(to + sizeof n, from + sizeof n, layout.first_members_end - sizeof n);
  for (const Member& m : layout.appended)
    if (m.offset + m.size <= n) std::memcpy(to + m.offset, from + m.offset, m.size);
}

template <typename T>
void write_growable(T* caller, const T& value) {
  write_growable(caller, value, growable_layout<T>());
}

}  // namespace lowp
