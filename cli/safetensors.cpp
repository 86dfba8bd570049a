#include "safetensors.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

namespace lowp_cli {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; this reader copies it as is");

// The format's own limit on the header (safetensors rejects larger ones).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

// Element size of every dtype the format defines, so unknown names are reported as such and
// known-but-unsupported ones are size-checked too.
const std::map<std::string, uint64_t>& dtype_sizes() {
  static const std::map<std::string, uint64_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
      {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},     {"I64", 8},     {"U64", 8}, {"F64", 8},
  };
  return sizes;
}

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw SafetensorsError(path + ": not a valid safetensors file: " + what);
}

// Parse errors quote the bytes they stopped at, which may be anything in a broken file.
std::string printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

void read_exact(std::ifstream& in, uint64_t offset, char* dst, uint64_t n, const std::string& path) {
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(dst, static_cast<std::streamsize>(n));
  if (!in || static_cast<uint64_t>(in.gcount()) != n)
    throw SafetensorsError(path + ": read error at byte " + std::to_string(offset));
}

uint64_t as_u64(const nlohmann::json& v, const std::string& path, const std::string& what) {
  if (!v.is_number_unsigned()) bad(path, what + " must be a non-negative integer, got " + v.dump());
  return v.get<uint64_t>();
}

SafetensorsEntry parse_entry(const std::string& name, const nlohmann::json& j, uint64_t data_size,
                             const std::string& path) {
  const std::string where = "tensor '" + name + "'";
  if (!j.is_object()) bad(path, where + ": entry is not a JSON object");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!j.contains(key)) bad(path, where + ": missing \"" + key + "\"");
  SafetensorsEntry e;
  e.name = name;
  if (!j["dtype"].is_string()) bad(path, where + ": \"dtype\" is not a string");
  e.dtype = j["dtype"].get<std::string>();
  const auto size_it = dtype_sizes().find(e.dtype);
  if (size_it == dtype_sizes().end()) bad(path, where + ": unknown dtype \"" + e.dtype + "\"");

  const nlohmann::json& shape = j["shape"];
  if (!shape.is_array()) bad(path, where + ": \"shape\" is not an array");
  uint64_t numel = 1;
  bool overflow = false;
  for (const auto& d : shape) {
    const uint64_t dim = as_u64(d, path, where + ": each shape entry");
    if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      overflow = true;
    else if (dim != 0 && numel > std::numeric_limits<uint64_t>::max() / dim)
      overflow = true;
    else
      numel *= dim;
    e.shape.push_back(static_cast<int64_t>(dim));
  }
  if (overflow || numel > std::numeric_limits<uint64_t>::max() / size_it->second)
    bad(path, where + ": shape " + shape.dump() + " is too large");

  const nlohmann::json& off = j["data_offsets"];
  if (!off.is_array() || off.size() != 2) bad(path, where + ": \"data_offsets\" must be [begin, end]");
  e.begin = as_u64(off[0], path, where + ": data_offsets[0]");
  e.end = as_u64(off[1], path, where + ": data_offsets[1]");
  if (e.begin > e.end || e.end > data_size)
    bad(path, where + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                  "] lie outside the data section (" + std::to_string(data_size) + " bytes)");
  if (e.end - e.begin != numel * size_it->second)
    bad(path, where + ": data_offsets span " + std::to_string(e.end - e.begin) + " bytes but " + e.dtype +
                  " " + shape.dump() + " needs " + std::to_string(numel * size_it->second));
  return e;
}

}  // namespace

std::optional<lowp_dtype> SafetensorsEntry::lowp_type() const {
  if (dtype == "F32") return LOWP_DTYPE_FLOAT32;
  if (dtype == "F16") return LOWP_DTYPE_FLOAT16;
  if (dtype == "BF16") return LOWP_DTYPE_BFLOAT16;
  return std::nullopt;
}

int64_t SafetensorsEntry::cols() const { return shape.empty() ? 1 : shape.back(); }

int64_t SafetensorsEntry::rows() const {
  // With no zero dim the product is at most the byte size the header check bounded by the
  // file size, so it cannot overflow; with one it is 0 (and other dims may be huge).
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

std::string SafetensorsEntry::skip_reason() const {
  if (!lowp_type()) return "dtype " + dtype + " (only F32, F16 and BF16 are quantized)";
  if (shape.size() < 2) return "rank " + std::to_string(shape.size()) + " (needs a matrix: rank >= 2)";
  if (rows() == 0 || cols() == 0) return "empty";
  return "";
}

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  const auto status = std::filesystem::status(path_, ec);
  if (!std::filesystem::exists(status)) throw SafetensorsError(path_ + ": no such file");
  if (std::filesystem::is_directory(status))
    throw SafetensorsError(path_ + ": is a directory; --input takes a .safetensors file");
  if (!std::filesystem::is_regular_file(status)) throw SafetensorsError(path_ + ": not a regular file");
  const uint64_t file_size = std::filesystem::file_size(path_, ec);
  if (ec) throw SafetensorsError(path_ + ": cannot stat: " + ec.message());
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw SafetensorsError(path_ + ": cannot open");
  if (file_size < 8)
    bad(path_, "file is " + std::to_string(file_size) + " bytes, shorter than the 8-byte header length");

  unsigned char len_bytes[8];
  read_exact(in, 0, reinterpret_cast<char*>(len_bytes), 8, path_);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  if (header_len > kMaxHeaderBytes)
    bad(path_, "header length " + std::to_string(header_len) + " exceeds the 100 MiB limit");
  if (header_len > file_size - 8)
    bad(path_, "header length " + std::to_string(header_len) + " runs past the end of the file (" +
                   std::to_string(file_size) + " bytes)");
  data_start_ = 8 + header_len;
  data_size_ = file_size - data_start_;

  std::string header(header_len, '\0');
  read_exact(in, 8, header.data(), header_len, path_);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header);
  } catch (const nlohmann::json::parse_error& e) {
    bad(path_, "header is not valid JSON (" + printable(e.what()) + ")");
  }
  if (!j.is_object()) bad(path_, "header is not a JSON object");
  for (const auto& [name, value] : j.items()) {
    if (name == "__metadata__") continue;
    entries_.push_back(parse_entry(name, value, data_size_, path_));
  }
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const auto& a, const auto& b) { return a.begin < b.begin; });
}

HostTensor SafetensorsFile::read(const SafetensorsEntry& e) const {
  const std::string why = e.skip_reason();
  if (!why.empty())
    throw SafetensorsError(path_ + ": tensor '" + e.name + "' cannot be read as a matrix: " + why);
  HostTensor t;
  t.name = e.name;
  t.dtype = *e.lowp_type();
  t.rows = e.rows();
  t.cols = e.cols();
  t.bytes.resize(e.end - e.begin);
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw SafetensorsError(path_ + ": cannot open");
  read_exact(in, data_start_ + e.begin, reinterpret_cast<char*>(t.bytes.data()), e.end - e.begin, path_);
  return t;
}

}  // namespace lowp_cli
