// A small, bounds-checked reader of .safetensors files: 8-byte little-endian header length N,
// N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}},
// then the data (offsets relative to its start). Reads one tensor at a time, so a file much
// larger than memory is fine.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_tensor.h"

namespace lowp_cli {

// Every problem with a file: the message names the file and what is wrong.
class SafetensorsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SafetensorsEntry {
  std::string name;
  std::string dtype;  // as in the file: "F32", "BF16", "I64", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte range inside the data section
  uint64_t end = 0;

  // The library dtype when this is F32/F16/BF16, else nullopt.
  std::optional<lowp_dtype> lowp_type() const;
  // As a 2-D matrix: leading dims flattened into rows, the last dim kept.
  int64_t rows() const;
  int64_t cols() const;
  // Why this tensor cannot be quantized as a matrix ("" when it can).
  std::string skip_reason() const;
};

class SafetensorsFile {
 public:
  // Reads and validates the header (every entry's dtype, shape and offsets); throws
  // SafetensorsError on any problem.
  explicit SafetensorsFile(std::string path);

  const std::string& path() const { return path_; }
  // In file order (by data offset).
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }
  // The tensor's bytes, for an entry whose skip_reason() is empty.
  HostTensor read(const SafetensorsEntry& e) const;

 private:
  std::string path_;
  uint64_t data_start_ = 0;  // 8 + N
  uint64_t data_size_ = 0;
  std::vector<SafetensorsEntry> entries_;
};

}  // namespace lowp_cli
