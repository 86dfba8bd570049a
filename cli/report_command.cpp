// `lowp report`: every tensor of the input set x every recipe of the table.
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include "commands.h"
#include "device_buffers.h"
#include "gemm_view.h"
#include "metrics.h"
#include "recipes.h"
#include "report.h"
#include "safetensors.h"
#include "synthetic.h"

namespace lowp_cli {
namespace {

// A tensor to report on, loaded only when its turn comes (model files can be large).
struct TensorSource {
  std::string name;
  std::string source;
  std::string dtype;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int64_t> shape;
  std::string skip_reason;  // non-empty: listed, not quantized
  std::function<HostTensor()> load;
};

std::vector<TensorSource> synthetic_sources(bool quick, uint64_t seed) {
  std::vector<TensorSource> out;
  for (const SyntheticSpec& spec : synthetic_specs(quick)) {
    TensorSource s;
    s.name = spec.kind;
    s.source = "synthetic";
    s.dtype = "bf16";
    s.rows = spec.rows;
    s.cols = spec.cols;
    s.shape = {spec.rows, spec.cols};
    s.load = [spec, seed] { return make_synthetic(spec, seed); };
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<TensorSource> safetensors_sources(const std::shared_ptr<SafetensorsFile>& file) {
  std::vector<TensorSource> out;
  for (const SafetensorsEntry& e : file->entries()) {
    TensorSource s;
    s.name = e.name;
    s.source = file->path();
    const auto type = e.lowp_type();
    s.dtype = type ? dtype_name(*type) : e.dtype;
    s.rows = e.rows();
    s.cols = e.cols();
    s.shape = e.shape;
    s.skip_reason = e.skip_reason();
    if (s.skip_reason.empty()) s.load = [file, e] { return file->read(e); };
    out.push_back(std::move(s));
  }
  return out;
}

// A GEMM-view triple to run, loaded only when its turn comes.
struct TripleSource {
  std::string name;
  std::function<GemmTriple()> load;
};

std::vector<TripleSource> synthetic_triple_sources(bool quick, uint64_t seed) {
  std::vector<TripleSource> out;
  for (const GemmTriple& t : synthetic_triples(quick, seed)) out.push_back({t.name, [t] { return t; }});
  return out;
}

// --gemm-triple specs against the file's tensors: names and shapes checked now, tensors read later.
std::vector<TripleSource> file_triple_sources(const std::vector<std::string>& specs,
                                              const std::shared_ptr<SafetensorsFile>& file) {
  const auto entry = [&](const std::string& spec, const std::string& name) {
    for (const SafetensorsEntry& e : file->entries())
      if (e.name == name) {
        if (!e.skip_reason().empty())
          throw std::runtime_error("--gemm-triple '" + spec + "': " + name + " cannot be quantized: " + e.skip_reason());
        return e;
      }
    throw std::runtime_error("--gemm-triple '" + spec + "': " + file->path() + " has no tensor named '" + name + "'");
  };
  std::vector<TripleSource> out;
  for (const std::string& spec : specs) {
    const GemmTripleNames n = parse_gemm_triple(spec);
    const SafetensorsEntry x = entry(spec, n.x), w = entry(spec, n.w), dy = entry(spec, n.dy);
    GemmTriple shapes{spec, file->path(), {}, {}, {}};
    shapes.x.rows = x.rows(), shapes.x.cols = x.cols();
    shapes.w.rows = w.rows(), shapes.w.cols = w.cols();
    shapes.dy.rows = dy.rows(), shapes.dy.cols = dy.cols();
    check_gemm_triple_shapes(shapes);
    out.push_back({spec, [spec, file, x, w, dy] {
                     return GemmTriple{spec, file->path(), file->read(x), file->read(w), file->read(dy)};
                   }});
  }
  return out;
}

Backend resolve_backend(const std::string& name) {
  const bool cuda = cuda_built() && lowp_cuda_available() != 0;
  if (name == "cpu") return Backend::kCpu;
  if (name == "cuda") {
    if (!cuda_built())
      throw std::runtime_error(
          "--backend cuda: this lowp was built without CUDA (configure with -DLOWP_CUDA=ON)");
    if (!cuda) throw std::runtime_error("--backend cuda: no CUDA device is available (see `lowp info`)");
    return Backend::kCuda;
  }
  return cuda ? Backend::kCuda : Backend::kCpu;
}

// One line per step; on a terminal the line is rewritten in place.
class Progress {
 public:
  Progress(size_t total, bool enabled)
      : total_(total), enabled_(enabled), tty_(isatty(fileno(stderr)) != 0) {}
  ~Progress() {
    if (enabled_ && tty_) std::fprintf(stderr, "\r\033[K");
  }
  void step(const TensorSource& s, const Recipe& r) {
    step(s.name + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + " x " + r.name);
  }
  void step(const std::string& what) {
    if (!enabled_) return;
    std::fprintf(stderr, "%s[%zu/%zu] %s%s", tty_ ? "\r\033[K" : "", ++done_, total_, what.c_str(), tty_ ? "" : "\n");
    std::fflush(stderr);
  }

 private:
  size_t total_;
  size_t done_ = 0;
  bool enabled_;
  bool tty_;
};

void print_results(const ReportOptions& opt, Backend backend, size_t tensors, const std::vector<Record>& records,
                   const std::vector<GemmRecord>& gemm) {
  if (opt.json) {
    print_json(std::cout, records, gemm);
    for (const std::string& t : nonfinite_tensors(records))
      std::cerr << "lowp: warning: NaN or Inf in " << t << " (its errors are NaN)\n";
    return;
  }
  std::cout << "lowp " << lowp_version() << " report: backend " << backend_name(backend) << ", " << tensors
            << " tensors from "
            << (opt.input.empty()
                    ? "the synthetic set (seed " + std::to_string(opt.seed) + (opt.quick ? ", quick)" : ")")
                    : opt.input)
            << "\n\n";
  print_table(std::cout, records);
  print_nvfp4_summaries(std::cout, records);
  print_gemm_view(std::cout, gemm);
  if (!opt.input.empty() && opt.gemm_triples.empty())
    std::cout << "\nGEMM view: name a triple of this file's tensors with --gemm-triple x=NAME,w=NAME,dy=NAME\n";
  std::cout << '\n' << kMetricsHelp
            << (backend == Backend::kCuda ? "  ms on CUDA: median of 5 after a warm-up.\n" : "");
  print_summary(std::cout, records);
}

// Why a file has nothing to quantize: its tensors' dtypes and ranks, counted.
std::string refused_tensors(const std::vector<TensorSource>& sources) {
  std::map<std::string, size_t> kinds;
  for (const TensorSource& s : sources) {
    const std::string why = s.skip_reason.substr(0, s.skip_reason.find(" ("));  // "dtype I64", "rank 1", "empty"
    ++kinds[why.starts_with("dtype ") ? why.substr(6) : s.dtype + " " + why];
  }
  std::string out;
  for (const auto& [kind, n] : kinds) out += (out.empty() ? "" : ", ") + std::to_string(n) + " x " + kind;
  return out;
}

}  // namespace

int run_report(const ReportOptions& opt) {
  try {
    const Backend backend = resolve_backend(opt.backend);
    if (opt.input.empty() && !opt.gemm_triples.empty())
      throw std::runtime_error("--gemm-triple names tensors of a file: give it with --input");
    std::vector<TensorSource> sources;
    std::vector<TripleSource> triples;
    if (opt.input.empty()) {
      sources = synthetic_sources(opt.quick, opt.seed);
      triples = synthetic_triple_sources(opt.quick, opt.seed);
    } else {
      const auto file = std::make_shared<SafetensorsFile>(opt.input);
      sources = safetensors_sources(file);
      triples = file_triple_sources(opt.gemm_triples, file);
      size_t usable = 0;
      for (const auto& s : sources) usable += s.skip_reason.empty();
      if (usable == 0)
        throw std::runtime_error(opt.input +
                                 ": no tensor to quantize (needs an F32, F16 or BF16 tensor of rank >= 2); found " +
                                 std::to_string(sources.size()) + " tensors" +
                                 (sources.empty() ? "" : ": " + refused_tensors(sources)));
    }

    const auto recipes = recipe_table();
    size_t steps = triples.size();
    for (const auto& s : sources) steps += s.skip_reason.empty() ? recipes.size() : 0;
    std::vector<Record> records;
    std::vector<GemmRecord> gemm;
    std::string failure;
    {
      Progress progress(steps, !opt.quiet);
      for (const TensorSource& s : sources) {
        Record base{s.name, s.source, s.rows, s.cols, s.shape, s.dtype, "", backend_name(backend), 0.0, {}, {}};
        if (!s.skip_reason.empty()) {
          base.run.status = RunStatus::kSkipped;
          base.run.message = s.skip_reason;
          records.push_back(base);
          continue;
        }
        const HostTensor host = s.load();
        const PreparedInput input(host, backend);
        base.peak_to_rms = peak_to_rms(input.values);
        base.input_nonfinite = input.nonfinite;
        for (const Recipe& r : recipes) {
          progress.step(s, r);
          Record rec = base;
          rec.recipe = r.name;
          rec.run = run_recipe(r, input, backend);
          records.push_back(rec);
          if (rec.run.status == RunStatus::kError) {
            failure = s.name + " x " + r.name + ": " + rec.run.message;
            break;
          }
        }
        if (!failure.empty()) break;
      }
      for (const TripleSource& t : triples) {
        if (!failure.empty()) break;
        progress.step("GEMM view " + t.name);
        for (GemmRecord& r : run_gemm_view(t.load(), backend)) {
          if (r.status == RunStatus::kError) failure = "GEMM view " + r.triple + " x " + r.recipe + ": " + r.message;
          gemm.push_back(std::move(r));
        }
      }
    }
    print_results(opt, backend, sources.size(), records, gemm);
    if (!failure.empty()) {
      std::cerr << "lowp: error: " << failure << '\n';
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "lowp: error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace lowp_cli
