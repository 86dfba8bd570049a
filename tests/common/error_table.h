// numerics §9 error tables for the C API tests: every case starts from a call that succeeds, breaks
// one rule, and must return the expected status with a message naming the argument or rule,
// without writing a byte. A test's Env holds every buffer of its calls first (the data region,
// poisoned before each case and compared after it), then the argument structs.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/compare.h"
#include "lowp/lowp.h"

namespace lowp_test {

template <typename Env>
using EnvCall = std::function<lowp_status(Env&)>;

template <typename Env>
struct ErrorCase {
  const char* name;
  lowp_status want;
  const char* mentions;  // a substring the message must contain
  EnvCall<Env> call;
};

template <typename Env>
using Baselines = std::vector<std::pair<const char*, EnvCall<Env>>>;

// Each baseline succeeds on a fresh Env (value-initialised, then `prepare`d) and clears the message.
template <typename Env>
void expect_baselines_succeed(const Baselines<Env>& baselines,
                              const std::type_identity_t<std::function<void(Env&)>>& prepare = {}) {
  for (const auto& [name, call] : baselines) {
    auto env = std::make_unique<Env>();
    if (prepare) prepare(*env);
    EXPECT_EQ(call(*env), LOWP_SUCCESS) << name << ": " << lowp_get_last_error();
    EXPECT_STREQ(lowp_get_last_error(), "") << name;
  }
}

// Runs every case on a fresh poisoned Env; the first data_bytes of it must be untouched.
// Returns the number of cases run.
template <typename Env>
int expect_rejected_without_writing(const std::vector<ErrorCase<Env>>& cases, size_t data_bytes) {
  int tried = 0;
  for (const ErrorCase<Env>& c : cases) {
    SCOPED_TRACE(c.name);
    auto env = std::make_unique<Env>();
    poison(env.get(), sizeof(Env));
    const lowp_status got = c.call(*env);
    ++tried;
    EXPECT_EQ(got, c.want) << "got " << lowp_status_name(got) << ": " << lowp_get_last_error();
    const std::string msg = lowp_get_last_error();
    EXPECT_FALSE(msg.empty());
    EXPECT_NE(msg.find(c.mentions), std::string::npos) << "message \"" << msg << "\" does not name \"" << c.mentions << "\"";
    EXPECT_TRUE(untouched(env.get(), data_bytes, "data region"));
  }
  return tried;
}

}  // namespace lowp_test
