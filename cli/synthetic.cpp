#include "synthetic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <stdexcept>

namespace lowp_cli {
namespace {

uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t hash_string(const std::string& s) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : eng_(seed) {}

  uint64_t bits() { return eng_(); }
  // Uniform in (0, 1): never 0, so log() below is finite.
  double uniform() { return (static_cast<double>(eng_() >> 11) + 0.5) * 0x1.0p-53; }

  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double theta = 2.0 * 3.14159265358979323846 * uniform();
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

  // Student-t with integer nu: Z / sqrt(chi2_nu / nu), chi2_nu a sum of nu squared normals.
  double student_t(int nu) {
    const double z = normal();
    double chi2 = 0.0;
    for (int i = 0; i < nu; ++i) {
      const double g = normal();
      chi2 += g * g;
    }
    return z / std::sqrt(chi2 / nu);
  }

 private:
  std::mt19937_64 eng_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

template <typename Fn>
void fill(HostTensor& t, Fn value_at) {
  t.bytes.resize(static_cast<size_t>(t.numel()) * 2);
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c) {
      const uint16_t h = bf16_from_float(static_cast<float>(value_at(r, c)));
      std::memcpy(t.bytes.data() + 2 * (r * t.cols + c), &h, 2);
    }
}

// A handful of distinct columns: the "massive activation" channels of real LLMs.
std::set<int64_t> pick_columns(Rng& rng, int64_t cols, int64_t count) {
  std::set<int64_t> picked;
  while (static_cast<int64_t>(picked.size()) < std::min(count, cols))
    picked.insert(static_cast<int64_t>(rng.bits() % static_cast<uint64_t>(cols)));
  return picked;
}

}  // namespace

std::vector<SyntheticSpec> synthetic_specs(bool quick) {
  struct Kind {
    const char* kind;
    const char* summary;
  };
  static const Kind kinds[] = {
      {"gaussian", "activations ~ N(0, 1)"},
      {"student_t3", "heavy-tailed activations ~ Student-t, nu = 3"},
      {"outlier_cols", "N(0, 1) with 4 outlier channels (columns) x100"},
      {"zero_rows", "N(0, 1) with every 8th row all zero (padding tokens)"},
      {"weight", "weight-like ~ N(0, 0.02^2)"},
  };
  // tokens x hidden, hidden x tokens, square; quick: small but still multiples of 16.
  const std::vector<std::pair<int64_t, int64_t>> shapes =
      quick ? std::vector<std::pair<int64_t, int64_t>>{{128, 512}, {512, 128}}
            : std::vector<std::pair<int64_t, int64_t>>{{1024, 4096}, {4096, 1024}, {2048, 2048}};
  std::vector<SyntheticSpec> specs;
  for (const auto& [rows, cols] : shapes)
    for (const Kind& k : kinds) specs.push_back({k.kind, k.summary, rows, cols});
  return specs;
}

HostTensor make_synthetic(const SyntheticSpec& spec, uint64_t seed) {
  HostTensor t;
  t.name = spec.kind;
  t.dtype = LOWP_DTYPE_BFLOAT16;
  t.rows = spec.rows;
  t.cols = spec.cols;
  // Each tensor has its own stream, so a tensor does not change when the list around it does.
  Rng rng(splitmix64(
      seed ^ splitmix64(hash_string(spec.kind) ^ splitmix64(static_cast<uint64_t>(spec.rows) * 0x10000019ull +
                                                            static_cast<uint64_t>(spec.cols)))));
  if (spec.kind == "gaussian") {
    fill(t, [&](int64_t, int64_t) { return rng.normal(); });
  } else if (spec.kind == "student_t3") {
    fill(t, [&](int64_t, int64_t) { return rng.student_t(3); });
  } else if (spec.kind == "outlier_cols") {
    const std::set<int64_t> outliers = pick_columns(rng, spec.cols, 4);
    fill(t, [&](int64_t, int64_t c) { return rng.normal() * (outliers.count(c) ? 100.0 : 1.0); });
  } else if (spec.kind == "zero_rows") {
    fill(t, [&](int64_t r, int64_t) { return r % 8 == 7 ? 0.0 : rng.normal(); });
  } else if (spec.kind == "weight") {
    fill(t, [&](int64_t, int64_t) { return 0.02 * rng.normal(); });
  } else {
    throw std::invalid_argument("unknown synthetic tensor kind '" + spec.kind + "'");
  }
  return t;
}

}  // namespace lowp_cli
