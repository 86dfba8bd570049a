// The closing part of the text report (report.h): per recipe over the tensors, the tensors not
// quantized at all, and the tensors that hold NaN or Inf.
#include <algorithm>
#include <cmath>
#include <map>

#include "report.h"
#include "text_table.h"

namespace lowp_cli {
namespace {

std::string tensor_label(const Record& r) { return r.tensor + " " + shape_of(r); }

// "a, b, c and 4 more": the tensors a note is about, without flooding the screen.
std::string some_names(const std::vector<std::string>& names) {
  constexpr size_t kShown = 3;
  std::string s;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) s += (i > 0 ? ", " : "") + names[i];
  if (names.size() > kShown) s += " and " + std::to_string(names.size() - kShown) + " more";
  return s;
}

// SNRs of one copy over the tensors a recipe ran on; NaN ones (NaN/Inf inputs) are left out.
struct SnrOverTensors {
  std::vector<double> snr;
  const Record* worst = nullptr;

  void add(const Record& r, double v) {
    if (std::isnan(v)) return;
    snr.push_back(v);
    if (worst == nullptr || v < snr_of_worst) {
      worst = &r;
      snr_of_worst = v;
    }
  }
  std::string median() const {
    if (snr.empty()) return "-";
    std::vector<double> v = snr;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return fmt("%.2f", n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
  }
  std::string lowest() const { return worst == nullptr ? "-" : fmt("%.2f", snr_of_worst); }

 private:
  double snr_of_worst = 0;
};

}  // namespace

std::vector<std::string> nonfinite_tensors(const std::vector<Record>& records) {
  std::vector<std::string> out;
  const Record* last = nullptr;
  for (const Record& r : records) {
    const NonFiniteCounts& n = r.input_nonfinite;
    if (n.nan == 0 && n.inf == 0) continue;
    if (last == nullptr || !same_tensor(*last, r))
      out.push_back(tensor_label(r) + ": " + std::to_string(n.nan) + " NaN, " + std::to_string(n.inf) + " Inf");
    last = &r;
  }
  return out;
}

void print_summary(std::ostream& out, const std::vector<Record>& records) {
  TextTable table({"recipe", "ran", "SNR median", "SNR worst", "col SNR median", "col SNR worst", "not run / notes",
                   "worst SNR at"},
                  1, 6);
  NoteList notes;
  size_t quantized = 0;  // tensors with recipe records; those skipped as a whole come below the table
  for (size_t i = 0; i < records.size(); ++i)
    quantized += !records[i].recipe.empty() && (i == 0 || !same_tensor(records[i - 1], records[i]));
  for (const Recipe& recipe : recipe_table()) {
    SnrOverTensors row_snr, col_snr;
    size_t ran = 0;
    std::map<std::string, std::vector<std::string>> why_not;  // "N skipped" etc. -> tensors
    for (const Record& r : records) {
      if (r.recipe != recipe.name) continue;
      const RecipeRun& x = r.run;
      if (x.status == RunStatus::kOk) {
        ++ran;
        row_snr.add(r, x.stats.snr_db);
        if (x.col_stats) col_snr.add(r, x.col_stats->snr_db);
        if (!x.note.empty()) why_not["rowwise only|" + x.note].push_back(tensor_label(r));
      } else {
        why_not[std::string(status_name(x.status)) + "|" + x.message].push_back(tensor_label(r));
      }
    }
    std::string not_run;
    for (const auto& [key, names] : why_not) {
      const size_t bar = key.find('|');
      if (!not_run.empty()) not_run += ", ";
      not_run += std::to_string(names.size()) + " " + key.substr(0, bar) + " " +
                 notes.ref(key.substr(bar + 1) + ": " + some_names(names));
    }
    table.add({recipe.name, std::to_string(ran), row_snr.median(), row_snr.lowest(), col_snr.median(),
               col_snr.lowest(), not_run.empty() ? "-" : not_run,
               row_snr.worst == nullptr ? "-" : tensor_label(*row_snr.worst)});
  }
  out << "\nSummary per recipe over the " << quantized << " tensors quantized (SNR in dB; worst: the lowest)\n\n";
  table.print(out);
  notes.print(out);

  std::map<std::string, std::vector<std::string>> whole;  // reason -> tensors not quantized at all
  for (const Record& r : records)
    if (r.recipe.empty()) whole[r.run.message].push_back(r.tensor + " (" + r.dtype + " " + shape_of(r) + ")");
  if (!whole.empty()) {
    size_t n = 0;
    for (const auto& [why, names] : whole) n += names.size();
    out << "\nNot quantized: " << n << " tensors\n";
    for (const auto& [why, names] : whole)
      out << "  " << why << ", " << names.size() << (names.size() == 1 ? " tensor: " : " tensors: ")
          << some_names(names) << '\n';
  }

  const std::vector<std::string> bad = nonfinite_tensors(records);
  if (!bad.empty()) {
    out << "\nWarning: " << bad.size() << (bad.size() == 1 ? " tensor holds" : " tensors hold")
        << " NaN or Inf; their errors are NaN (left out of the medians above):\n";
    for (const std::string& line : bad) out << "  " << line << '\n';
  }
}

}  // namespace lowp_cli
