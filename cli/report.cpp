#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

namespace lowp_cli {
namespace {

std::string fmt(const char* spec, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

nlohmann::ordered_json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// rows x cols as quantized; a tensor skipped as a whole shows its stored shape instead.
std::string shape_of(const Record& r) {
  if (!r.recipe.empty()) return std::to_string(r.rows) + "x" + std::to_string(r.cols);
  if (r.shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < r.shape.size(); ++i) {
    if (i > 0) s += 'x';
    s += std::to_string(r.shape[i]);
  }
  return s;
}

}  // namespace

void print_table(std::ostream& out, const std::vector<Record>& records) {
  const std::vector<std::string> header = {"tensor", "shape",       "dtype", "recipe", "SNR dB",
                                           "rel L2", "max abs err", "sat %", "ms"};
  const size_t kFirstNumeric = 4;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> group_start;  // a blank line before each new tensor
  std::map<std::string, int> note_ids;
  std::vector<std::string> notes;
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    std::vector<std::string> row = {r.tensor, shape_of(r), r.dtype, r.recipe.empty() ? "-" : r.recipe};
    const RecipeRun& x = r.run;
    if (x.status == RunStatus::kOk) {
      row.push_back(fmt("%.2f", x.stats.snr_db));
      row.push_back(fmt("%.3e", x.stats.rel_l2));
      row.push_back(fmt("%.3e", x.stats.max_abs_err));
      row.push_back(fmt("%.3f", x.saturated_pct));
      row.push_back(fmt("%.2f", x.time_ms));
    } else {
      std::string text = status_name(x.status);
      if (x.status == RunStatus::kUnsupported) {
        auto [it, inserted] =
            note_ids.try_emplace(r.recipe + ": " + x.message, static_cast<int>(notes.size()) + 1);
        if (inserted) notes.push_back(it->first);
        text += " [" + std::to_string(it->second) + "]";
      } else {
        text += ": " + x.message;
      }
      row.push_back(text);
    }
    group_start.push_back(i > 0 && (records[i - 1].tensor != r.tensor || records[i - 1].rows != r.rows ||
                                    records[i - 1].cols != r.cols));
    rows.push_back(std::move(row));
  }

  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < header.size(); ++c)
      if (row.size() == header.size() || c < kFirstNumeric) width[c] = std::max(width[c], row[c].size());

  // Text columns left-aligned, numbers right-aligned; a status row's message runs free.
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string& s = row[c];
      const bool free_text = row.size() < header.size() && c + 1 == row.size();
      const std::string pad(free_text ? 0 : width[c] - std::min(width[c], s.size()), ' ');
      if (c > 0) line += "  ";
      line += c >= kFirstNumeric ? pad + s : s + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  size_t total = 0;
  for (size_t w : width) total += w;
  const std::string rule(total + 2 * (width.size() - 1), '-');
  print_row(header);
  out << rule << '\n';
  for (size_t i = 0; i < rows.size(); ++i) {
    if (group_start[i]) out << '\n';
    print_row(rows[i]);
  }
  if (!notes.empty()) {
    out << '\n';
    for (size_t i = 0; i < notes.size(); ++i) out << "[" << i + 1 << "] " << notes[i] << '\n';
  }
}

void print_json(std::ostream& out, const std::vector<Record>& records) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Record& r : records) {
    nlohmann::ordered_json j = {{"tensor", r.tensor},   {"source", r.source},
                                {"rows", r.rows},       {"cols", r.cols},
                                {"shape", r.shape},     {"dtype", r.dtype},
                                {"backend", r.backend}, {"status", status_name(r.run.status)}};
    j["recipe"] = r.recipe.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.recipe);
    if (r.run.status == RunStatus::kOk) {
      j["snr_db"] = number(r.run.stats.snr_db);
      j["rel_l2"] = number(r.run.stats.rel_l2);
      j["max_abs_err"] = number(r.run.stats.max_abs_err);
      j["saturated_pct"] = number(r.run.saturated_pct);
      j["time_ms"] = number(r.run.time_ms);
    } else {
      j["message"] = r.run.message;
    }
    all.push_back(std::move(j));
  }
  out << all.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace lowp_cli
