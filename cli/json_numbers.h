// A JSON record's numbers: finite ones as JSON numbers, non-finite ones as null with their value
// named in the record's "nonfinite" object (added only when there is one).
#pragma once
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace lowp_cli {

class NumberFields {
 public:
  nlohmann::ordered_json value(const std::string& field, double v) {
    if (std::isfinite(v)) return v;
    nonfinite_[field] = std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
    return nullptr;
  }
  void add_to(nlohmann::ordered_json& record) const {
    if (!nonfinite_.empty()) record["nonfinite"] = nonfinite_;
  }

 private:
  nlohmann::ordered_json nonfinite_ = nlohmann::ordered_json::object();
};

}  // namespace lowp_cli
