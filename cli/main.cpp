// lowp command-line tool: argument wiring only; the work is in *_command.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "commands.h"
#include "lowp/lowp.h"
#include "recipes.h"
#include "report.h"

int main(int argc, char** argv) {
  CLI::App app{"lowp: FP8 / NVFP4 quantization for LLM training"};
  app.set_version_flag("--version", std::string(lowp_version()));
  app.require_subcommand(1);

  app.add_subcommand("info", "Version, backends and GPU");

  lowp_cli::ReportOptions opt;
  std::string recipes = "Recipes:\n";
  for (const auto& r : lowp_cli::recipe_table())
    recipes += "  " + std::string(r.name) + ": " + r.summary + "\n";
  CLI::App* report =
      app.add_subcommand("report",
                         "Quantize synthetic LLM-like tensors (or a .safetensors file) with every recipe and "
                         "print the error of each");
  report->footer(recipes + "\n" + lowp_cli::kMetricsHelp);
  report->add_option("--input", opt.input, "Quantize the F32/F16/BF16 tensors of this .safetensors file");
  report->add_flag("--json", opt.json, "Print the results as one JSON array on stdout");
  report->add_option("--backend", opt.backend, "auto (cuda when available), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  // Checked as text: CLI11 would wrap "-5" into an unsigned 2^64 - 5.
  const CLI::Validator non_negative_integer(
      [](std::string& v) {
        return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos
                   ? std::string()
                   : "must be a non-negative integer, got '" + v + "'";
      },
      "UINT");
  report->add_option("--seed", opt.seed, "Seed of the synthetic tensors")
      ->check(non_negative_integer)
      ->capture_default_str();
  report->add_option("--gemm-triple", opt.gemm_triples,
                     "GEMM view on three tensors of --input: x=NAME,w=NAME,dy=NAME (x tokens x in, w out x in, "
                     "dy tokens x out); repeatable")
      ->type_name("x=NAME,w=NAME,dy=NAME");
  report->add_flag("--quick", opt.quick, "Small synthetic shapes (seconds on a CPU)");
  report->add_flag("-q,--quiet", opt.quiet, "No progress on stderr");

  // CLI11 reports an unknown word there as a missing subcommand, without naming it.
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "lowp: unknown command '%s' (commands: %s; see lowp --help)\n", argv[1], names.c_str());
      return 2;
    }
  }
  CLI11_PARSE(app, argc, argv);
  if (app.got_subcommand("info")) return lowp_cli::run_info();
  return lowp_cli::run_report(opt);
}
