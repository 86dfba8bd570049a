// How a call reads the caller's copy of a growable struct (lowp.h, "Structs that grow"): the
// library's defaults first, then the caller's first struct_size bytes over them, so members the
// caller's lowp.h did not have keep their defaults.
#pragma once
#include <cstddef>
#include <cstring>

#include "lowp/lowp.h"

namespace lowp {

enum class GrowableSize { kOk, kZero, kBelowFirstRelease, kAboveThisLibrary };

// `caller` points at a T as the caller compiled it (struct_size first, at most struct_size bytes
// read); *out holds the defaults; first_size is where the members of T's first release end.
// Copies only when the size is kOk, and sets out->struct_size to this library's sizeof(T).
template <typename T>
GrowableSize copy_growable(const void* caller, size_t first_size, T* out) {
  size_t n;
  std::memcpy(&n, caller, sizeof n);
  if (n == 0) return GrowableSize::kZero;
  if (n < first_size) return GrowableSize::kBelowFirstRelease;
  if (n > sizeof(T)) return GrowableSize::kAboveThisLibrary;
  std::memcpy(static_cast<void*>(out), caller, n);
  out->struct_size = sizeof(T);
  return GrowableSize::kOk;
}

// What each growable struct's initialiser gives (lowp_quant_config_default() & co. return these):
// struct_size set, everything else 0 but the config's defaults.
lowp_quant_config default_config();
lowp_quantized_tensor default_quantized_tensor();
lowp_grouped_quantized_tensor default_grouped_quantized_tensor();
lowp_quantized_layout default_quantized_layout();

// The growable structs of lowp.h read into *out by copy_growable, with a message naming the
// argument and the initialiser on failure. cfg may be NULL (the defaults); q is not NULL.
lowp_status read_config(const lowp_quant_config* cfg, lowp_quant_config* out);
lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, lowp_quantized_tensor* out);
// The same for an argument named `name` (e.g. a GEMM's "a" and "b").
lowp_status read_quantized_tensor(const lowp_quantized_tensor* q, const char* name, lowp_quantized_tensor* out);
lowp_status read_grouped_quantized_tensor(const lowp_grouped_quantized_tensor* q, lowp_grouped_quantized_tensor* out);
// `name` is how messages call it ("layout").
lowp_status read_quantized_layout(const lowp_quantized_layout* layout, const char* name, lowp_quantized_layout* out);

// Writes `value` back to the caller's struct, read before by read_*: only the caller's struct_size
// bytes (members its lowp.h lacks stay unwritten), its struct_size kept.
template <typename T>
void write_growable(T* caller, const T& value) {
  size_t n;
  std::memcpy(&n, caller, sizeof n);
  std::memcpy(reinterpret_cast<char*>(caller) + sizeof n, reinterpret_cast<const char*>(&value) + sizeof n,
              n - sizeof n);
}

}  // namespace lowp
