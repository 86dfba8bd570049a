#include "text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace lowp_cli {

TextTable::TextTable(std::vector<std::string> header, size_t first_numeric, size_t end_numeric)
    : header_(std::move(header)), first_numeric_(first_numeric), end_numeric_(end_numeric) {}

void TextTable::add(std::vector<std::string> row, bool blank_before) {
  rows_.push_back(std::move(row));
  blank_before_.push_back(blank_before);
}

void TextTable::print(std::ostream& out) const {
  const size_t n = header_.size();
  std::vector<size_t> width(n);
  for (size_t c = 0; c < n; ++c) width[c] = header_[c].size();
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size() && c < n; ++c)
      if (row.size() == n || c + 1 < row.size()) width[c] = std::max(width[c], row[c].size());

  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string& s = row[c];
      const bool free_text = row.size() < n && c + 1 == row.size();
      const std::string pad(free_text || c >= n ? 0 : width[c] - std::min(width[c], s.size()), ' ');
      if (c > 0) line += "  ";
      line += c >= first_numeric_ && c < end_numeric_ ? pad + s : s + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  size_t total = 0;
  for (size_t w : width) total += w;
  print_row(header_);
  out << std::string(total + 2 * (n - 1), '-') << '\n';
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (blank_before_[i]) out << '\n';
    print_row(rows_[i]);
  }
}

std::string NoteList::ref(const std::string& text) {
  auto it = std::find(notes_.begin(), notes_.end(), text);
  if (it == notes_.end()) it = notes_.insert(notes_.end(), text);
  std::string id = "[";  // built up in steps: GCC 12 warns (-Wrestrict) on "[" + to_string(...)
  id += std::to_string(it - notes_.begin() + 1);
  id += ']';
  return id;
}

void NoteList::print(std::ostream& out) const {
  if (notes_.empty()) return;
  out << '\n';
  for (size_t i = 0; i < notes_.size(); ++i) out << "[" << i + 1 << "] " << notes_[i] << '\n';
}

std::string fmt(const char* spec, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

}  // namespace lowp_cli
