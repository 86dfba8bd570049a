#include "report.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "text_table.h"

namespace lowp_cli {
namespace {

nlohmann::ordered_json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// rows x cols as quantized; a tensor skipped as a whole shows its stored shape instead.
std::string shape_of(const Record& r) {
  if (!r.recipe.empty()) return std::to_string(r.rows) + "x" + std::to_string(r.cols);
  if (r.shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < r.shape.size(); ++i) {
    if (i > 0) s += 'x';
    s += std::to_string(r.shape[i]);
  }
  return s;
}

}  // namespace

const char* const kMetricsHelp =
    "Metrics:\n"
    "  SNR dB, rel L2, max abs err: the rowwise copy (dequantized) vs the input.\n"
    "  col SNR: the columnwise copy vs x^T, or, for recipes with RHT on it, vs the exact (double)\n"
    "    RHT16(g)*0.25 of each 16-row strip g of a column: the domain lowp_dequantize returns.\n"
    "  sat %: codes at the format's largest magnitude. ms: lowp_quantize incl. its amax pass.\n"
    "  Amax estimation (NVFP4 per-tensor with RHT): the columnwise amax taken as rowwise amax *\n"
    "    factor (2 for inputs, 1 for gradients) instead of the exact post-RHT amax. est/exact:\n"
    "    estimated over exact amax; col SNR exact / est: the columnwise copy made with each;\n"
    "    clip %: columnwise blocks whose exact post-RHT block amax b exceeds the estimate, i.e.\n"
    "    whose ideal decode scale b*S_enc/6 is above E4M3's 448, so their scale saturates and\n"
    "    their largest values clip (0 with the exact amax).\n"
    "  Per-token minus per-tensor: SNR of each per-token recipe minus its per-tensor baseline of\n"
    "    the same role, rowwise and columnwise, on outlier-heavy tensors: max|x|/rms(x) > 10\n"
    "    (Gaussian data stays under 6).\n";

void print_table(std::ostream& out, const std::vector<Record>& records) {
  TextTable table({"tensor", "shape", "dtype", "recipe", "SNR dB", "col SNR", "rel L2", "max abs err", "sat %", "ms"},
                  4);
  std::map<std::string, int> note_ids;
  std::vector<std::string> notes;
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    std::vector<std::string> row = {r.tensor, shape_of(r), r.dtype, r.recipe.empty() ? "-" : r.recipe};
    const RecipeRun& x = r.run;
    if (x.status == RunStatus::kOk) {
      row.push_back(fmt("%.2f", x.stats.snr_db));
      row.push_back(x.col_stats ? fmt("%.2f", x.col_stats->snr_db) : "-");
      row.push_back(fmt("%.3e", x.stats.rel_l2));
      row.push_back(fmt("%.3e", x.stats.max_abs_err));
      row.push_back(fmt("%.3f", x.saturated_pct));
      row.push_back(fmt("%.2f", x.time_ms));
    } else {
      std::string text = status_name(x.status);
      if (x.status == RunStatus::kUnsupported) {
        auto [it, inserted] =
            note_ids.try_emplace(r.recipe + ": " + x.message, static_cast<int>(notes.size()) + 1);
        if (inserted) notes.push_back(it->first);
        text += " [" + std::to_string(it->second) + "]";
      } else {
        text += ": " + x.message;
      }
      row.push_back(text);
    }
    const bool new_tensor = i > 0 && (records[i - 1].tensor != r.tensor || records[i - 1].rows != r.rows ||
                                      records[i - 1].cols != r.cols);
    table.add(std::move(row), new_tensor);
  }
  table.print(out);
  if (!notes.empty()) {
    out << '\n';
    for (size_t i = 0; i < notes.size(); ++i) out << "[" << i + 1 << "] " << notes[i] << '\n';
  }
}

void print_json(std::ostream& out, const std::vector<Record>& records) {
  std::map<const Record*, PerTokenDelta> deltas;
  for (const PerTokenDelta& d : per_token_deltas(records)) deltas.emplace(d.per_token, d);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Record& r : records) {
    nlohmann::ordered_json j = {{"tensor", r.tensor},   {"source", r.source},
                                {"rows", r.rows},       {"cols", r.cols},
                                {"shape", r.shape},     {"dtype", r.dtype},
                                {"backend", r.backend}, {"status", status_name(r.run.status)}};
    j["recipe"] = r.recipe.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.recipe);
    if (!r.recipe.empty()) {
      j["peak_to_rms"] = number(r.peak_to_rms);
      j["outlier_heavy"] = outlier_heavy(r);
    }
    const RecipeRun& x = r.run;
    if (x.status != RunStatus::kOk) {
      j["message"] = x.message;
      all.push_back(std::move(j));
      continue;
    }
    j["snr_db"] = number(x.stats.snr_db);
    j["rel_l2"] = number(x.stats.rel_l2);
    j["max_abs_err"] = number(x.stats.max_abs_err);
    j["saturated_pct"] = number(x.saturated_pct);
    j["time_ms"] = number(x.time_ms);
    if (x.col_stats) {
      j["col_domain"] = x.col_domain;
      j["col_snr_db"] = number(x.col_stats->snr_db);
      j["col_rel_l2"] = number(x.col_stats->rel_l2);
      j["col_max_abs_err"] = number(x.col_stats->max_abs_err);
    }
    if (x.estimate) {
      j["est_factor"] = number(x.estimate->factor);
      j["est_amax_ratio"] = number(x.estimate->amax_ratio);
      j["est_col_snr_db"] = number(x.estimate->col_stats.snr_db);
      j["est_clip_fraction"] = number(x.estimate->clipped_fraction);
    }
    if (const auto it = deltas.find(&r); it != deltas.end())
      j["per_token_minus_per_tensor"] = {{"baseline", it->second.per_tensor->recipe},
                                         {"snr_db", number(it->second.snr_db)},
                                         {"col_snr_db", number(it->second.col_snr_db)}};
    all.push_back(std::move(j));
  }
  out << all.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace lowp_cli
