// An aligned plain-text table: text columns left-aligned, numeric columns right-aligned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace lowp_cli {

class TextTable {
 public:
  // Columns first_numeric .. end_numeric - 1 hold numbers and are right-aligned.
  TextTable(std::vector<std::string> header, size_t first_numeric, size_t end_numeric = SIZE_MAX);

  // A row shorter than the header ends in free text (a status message) that runs past the
  // columns and does not widen them. blank_before: an empty line ahead of it (a new group).
  void add(std::vector<std::string> row, bool blank_before = false);
  bool empty() const { return rows_.empty(); }

  // Header, a rule, the rows.
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  size_t first_numeric_;
  size_t end_numeric_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> blank_before_;
};

// Numbered notes under a table, so a long reason shared by many rows is printed once.
class NoteList {
 public:
  // "[n]" for this text, numbering new texts in order of first use.
  std::string ref(const std::string& text);
  // A blank line, then "[n] text" lines; nothing when there are none.
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> notes_;
};

// printf-style number; non-finite values as "inf", "-inf", "nan".
std::string fmt(const char* spec, double v);

}  // namespace lowp_cli
