// An aligned plain-text table: text columns left-aligned, numeric columns right-aligned.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace lowp_cli {

class TextTable {
 public:
  // Columns from first_numeric on hold numbers and are right-aligned.
  TextTable(std::vector<std::string> header, size_t first_numeric);

  // A row shorter than the header ends in free text (a status message) that runs past the
  // columns and does not widen them. blank_before: an empty line ahead of it (a new group).
  void add(std::vector<std::string> row, bool blank_before = false);
  bool empty() const { return rows_.empty(); }

  // Header, a rule, the rows.
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  size_t first_numeric_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> blank_before_;
};

// printf-style number; non-finite values as "inf", "-inf", "nan".
std::string fmt(const char* spec, double v);

}  // namespace lowp_cli
