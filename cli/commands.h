// The subcommands, apart from their command-line wiring (main.cpp). Each returns the exit code.
#pragma once
#include <cstdint>
#include <string>

namespace lowp_cli {

int run_info();

struct ReportOptions {
  std::string input;  // .safetensors path; empty = the built-in synthetic set
  bool json = false;
  std::string backend = "auto";  // auto | cpu | cuda
  uint64_t seed = 1234;
  bool quick = false;
  bool quiet = false;  // no progress on stderr
};

int run_report(const ReportOptions& opt);

}  // namespace lowp_cli
