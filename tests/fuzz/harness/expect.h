// The expected outcome of one call, derived from lowp.h's rules by the entry point's model: every
// rule the arguments break (the call must be rejected with one of the rule's statuses, the message
// naming the argument), and every case the header leaves open (either outcome is fine; these are
// counted and listed as notes for the header's authors).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "lowp/lowp.h"

namespace lowp_fuzz {

enum class Outcome { kAccept, kReject, kEither };

struct Rule {
  std::vector<std::string> names;  // argument paths a message may name, e.g. "q->rowwise.amax"
  std::vector<lowp_status> statuses;
  std::string note;  // open cases: what the header does not say
};

class Expect {
 public:
  // A rule of the header: when !ok the call must be rejected. Returns ok.
  bool require(bool ok, std::initializer_list<std::string> names,
               std::initializer_list<lowp_status> statuses = {LOWP_ERROR_INVALID_ARGUMENT});
  // A case the header leaves open: when !ok either outcome passes. Returns ok.
  bool open(bool ok, std::initializer_list<std::string> names, const char* note);

  Outcome outcome() const;
  const std::vector<Rule>& broken() const { return broken_; }
  const std::vector<Rule>& open_cases() const { return open_; }
  // The statuses a rejection may have (INVALID_ARGUMENT when only open cases apply).
  std::vector<lowp_status> reject_statuses() const;

 private:
  std::vector<Rule> broken_, open_;
};

// "q->rowwise.amax" -> "q"; "member_rows[3]" -> "member_rows".
std::string root_of(const std::string& path);
// `word` occurs in `text` not inside a longer identifier.
bool names_token(const std::string& text, const std::string& word);

}  // namespace lowp_fuzz
