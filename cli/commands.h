// The subcommands, apart from their command-line wiring (main.cpp). Each returns the exit code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lowp_cli {

int run_info();

struct ReportOptions {
  std::string input;  // .safetensors path; empty = the built-in synthetic set
  bool json = false;
  std::string backend = "auto";  // auto | cpu | cuda
  uint64_t seed = 1234;
  bool quick = false;
  bool quiet = false;  // no progress on stderr
  // --gemm-triple x=NAME,w=NAME,dy=NAME: tensors of `input` the GEMM view runs on (the built-in
  // set has its own triples).
  std::vector<std::string> gemm_triples;
};

int run_report(const ReportOptions& opt);

}  // namespace lowp_cli
