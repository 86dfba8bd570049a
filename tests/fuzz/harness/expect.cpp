#include "harness/expect.h"

#include <algorithm>
#include <cctype>

namespace lowp_fuzz {

bool Expect::require(bool ok, std::initializer_list<std::string> names, std::initializer_list<lowp_status> statuses) {
  if (!ok) broken_.push_back({{names.begin(), names.end()}, {statuses.begin(), statuses.end()}, ""});
  return ok;
}

bool Expect::open(bool ok, std::initializer_list<std::string> names, const char* note) {
  if (!ok) open_.push_back({{names.begin(), names.end()}, {LOWP_ERROR_INVALID_ARGUMENT, LOWP_ERROR_UNSUPPORTED}, note});
  return ok;
}

Outcome Expect::outcome() const {
  if (!broken_.empty()) return Outcome::kReject;
  return open_.empty() ? Outcome::kAccept : Outcome::kEither;
}

std::vector<lowp_status> Expect::reject_statuses() const {
  std::vector<lowp_status> out;
  for (const Rule& r : broken_.empty() ? open_ : broken_)
    for (lowp_status s : r.statuses)
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

std::string root_of(const std::string& path) {
  const size_t end = path.find_first_of("-.[ '");
  return path.substr(0, end);
}

bool names_token(const std::string& text, const std::string& word) {
  auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool start_ok = at == 0 || !ident(text[at - 1]);
    const size_t end = at + word.size();
    const bool end_ok = end == text.size() || !ident(text[end]);
    if (start_ok && end_ok) return true;
  }
  return false;
}

}  // namespace lowp_fuzz
