#include "report.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "json_numbers.h"
#include "text_table.h"

namespace lowp_cli {

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

const char* const kMetricsHelp =
    "Metrics:\n"
    "  SNR dB, rel L2, max abs err: the rowwise copy (dequantized) vs the input.\n"
    "  col SNR: the columnwise copy vs x^T, or, for recipes with RHT on it, vs the exact (double)\n"
    "    RHT16(g)*0.25 of each 16-row strip g of a column: the domain lowp_dequantize returns.\n"
    "    NVFP4 makes the rowwise copy alone when rows % 16 != 0 (a note says so).\n"
    "  clipped %: elements of the rowwise copy whose |x| exceeds the largest value their scale can\n"
    "    represent (coded at +-448, +-57344 or +-6 and dequantized below |x|). Values rounded to\n"
    "    the largest code are not counted. Delayed scaling clips when the tensor outgrew its\n"
    "    history; current scaling hardly ever; NVFP4 1D recipes clip the largest value of the\n"
    "    blocks whose E4M3 block scale rounded down (by less than 1/16 of it): a few % is normal.\n"
    "  ms: lowp_quantize incl. its amax pass.\n"
    "  Amax estimation (NVFP4 per-tensor with RHT): the columnwise amax taken as rowwise amax *\n"
    "    factor (2 for inputs, 1 for gradients) instead of the exact post-RHT amax. est/exact:\n"
    "    estimated over exact amax; col SNR exact / est: the columnwise copy made with each;\n"
    "    clip %: columnwise blocks whose exact post-RHT block amax b exceeds the estimate, i.e.\n"
    "    whose ideal decode scale b*S_enc/6 is above E4M3's 448, so their scale saturates and\n"
    "    their largest values clip (0 with the exact amax).\n"
    "  Per-token minus per-tensor: SNR of each per-row recipe (per-token, row-scaled) minus its\n"
    "    per-tensor baseline of the same role, rowwise and columnwise, on outlier-heavy tensors:\n"
    "    max|x|/rms(x) > 10 (Gaussian data stays under 6).\n"
    "  4over6: map-4 %: rowwise blocks (2D: their tiles) whose block scale is the map-4 candidate\n"
    "    (the block's largest value on 4 instead of 6, where the two candidates differ); row SNR\n"
    "    minus the SNR of the recipe it varies (the same blocks, standard scales).\n"
    "  GEMM view: for a triple x (tokens x in), W (out x in), dy (tokens x out), each GEMM recipe\n"
    "    quantizes all three (both copies, shipped defaults) and runs fprop y = x W^T, dgrad\n"
    "    dx = dy W and wgrad dW = dy^T x with lowp_gemm (fp32 out); SNR against the fp64 product\n"
    "    of the unquantized tensors, and per-token minus per-tensor. Built-in triples, or\n"
    "    --gemm-triple x=NAME,w=NAME,dy=NAME with --input.\n"
    "  Summary: per recipe, the median and the worst (lowest) SNR over the tensors it ran on.\n"
    "  Status of a recipe on a tensor: ok; skipped (not run: the recipe's shape rule, or the\n"
    "    tensor is not an F32/F16/BF16 matrix); unsupported (the library does not build this\n"
    "    combination for the backend); error (a failure; the report stops).\n"
    "  A tensor holding NaN or Inf has NaN errors; the report warns and names it.\n";

void print_table(std::ostream& out, const std::vector<Record>& records) {
  TextTable table(
      {"tensor", "shape", "dtype", "recipe", "SNR dB", "col SNR", "rel L2", "max abs err", "clipped %", "ms"}, 4);
  NoteList notes;
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    std::vector<std::string> row = {r.tensor, shape_of(r), r.dtype, r.recipe.empty() ? "-" : r.recipe};
    const RecipeRun& x = r.run;
    if (x.status == RunStatus::kOk) {
      row.push_back(fmt("%.2f", x.stats.snr_db));
      row.push_back(x.col_stats ? fmt("%.2f", x.col_stats->snr_db) : x.note.empty() ? "-" : "- " + notes.ref(x.note));
      row.push_back(fmt("%.3e", x.stats.rel_l2));
      row.push_back(fmt("%.3e", x.stats.max_abs_err));
      row.push_back(fmt("%.3f", x.clipped_pct));
      row.push_back(fmt("%.2f", x.time_ms));
    } else if (x.status == RunStatus::kError) {
      row.push_back(std::string(status_name(x.status)) + ": " + x.message);
    } else {
      const std::string why = x.status == RunStatus::kUnsupported ? r.recipe + ": " + x.message : x.message;
      row.push_back(std::string(status_name(x.status)) + " " + notes.ref(why));
    }
    table.add(std::move(row), i > 0 && !same_tensor(records[i - 1], r));
  }
  table.print(out);
  notes.print(out);
}

void print_json(std::ostream& out, const std::vector<Record>& records, const std::vector<GemmRecord>& gemm) {
  std::map<const Record*, PerTokenDelta> deltas;
  for (const PerTokenDelta& d : per_token_deltas(records)) deltas.emplace(d.per_token, d);
  std::map<const Record*, FourOverSixDelta> fos;
  for (const FourOverSixDelta& d : four_over_six_deltas(records)) fos.emplace(d.four_over_six, d);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Record& r : records) {
    NumberFields num;
    nlohmann::ordered_json j = {{"kind", "tensor"},     {"tensor", r.tensor},   {"source", r.source},
                                {"rows", r.rows},       {"cols", r.cols},
                                {"shape", r.shape},     {"dtype", r.dtype},
                                {"backend", r.backend}, {"status", status_name(r.run.status)}};
    j["recipe"] = r.recipe.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.recipe);
    if (!r.recipe.empty()) {
      j["peak_to_rms"] = num.value("peak_to_rms", r.peak_to_rms);
      j["outlier_heavy"] = outlier_heavy(r);
      j["input_nan"] = r.input_nonfinite.nan;
      j["input_inf"] = r.input_nonfinite.inf;
    }
    const RecipeRun& x = r.run;
    if (x.status != RunStatus::kOk) {
      j["message"] = x.message;
      num.add_to(j);
      all.push_back(std::move(j));
      continue;
    }
    j["snr_db"] = num.value("snr_db", x.stats.snr_db);
    j["rel_l2"] = num.value("rel_l2", x.stats.rel_l2);
    j["max_abs_err"] = num.value("max_abs_err", x.stats.max_abs_err);
    j["clipped_pct"] = num.value("clipped_pct", x.clipped_pct);
    j["time_ms"] = num.value("time_ms", x.time_ms);
    if (!x.note.empty()) j["note"] = x.note;
    if (x.col_stats) {
      j["col_domain"] = x.col_domain;
      j["col_snr_db"] = num.value("col_snr_db", x.col_stats->snr_db);
      j["col_rel_l2"] = num.value("col_rel_l2", x.col_stats->rel_l2);
      j["col_max_abs_err"] = num.value("col_max_abs_err", x.col_stats->max_abs_err);
    }
    if (x.estimate) {
      j["est_factor"] = num.value("est_factor", x.estimate->factor);
      j["est_amax_ratio"] = num.value("est_amax_ratio", x.estimate->amax_ratio);
      j["est_col_snr_db"] = num.value("est_col_snr_db", x.estimate->col_stats.snr_db);
      j["est_clip_fraction"] = num.value("est_clip_fraction", x.estimate->clipped_fraction);
    }
    if (x.map4_fraction) j["map4_fraction"] = num.value("map4_fraction", *x.map4_fraction);
    if (const auto it = fos.find(&r); it != fos.end())
      j["four_over_six_minus_base"] = {{"baseline", it->second.base->recipe},
                                       {"snr_db", num.value("four_over_six_minus_base.snr_db", it->second.snr_db)}};
    if (const auto it = deltas.find(&r); it != deltas.end()) {
      const PerTokenDelta& d = it->second;
      nlohmann::ordered_json delta = {{"baseline", d.per_tensor->recipe},
                                      {"snr_db", num.value("per_token_minus_per_tensor.snr_db", d.snr_db)}};
      if (d.per_token->run.col_stats && d.per_tensor->run.col_stats)
        delta["col_snr_db"] = num.value("per_token_minus_per_tensor.col_snr_db", d.col_snr_db);
      j["per_token_minus_per_tensor"] = std::move(delta);
    }
    num.add_to(j);
    all.push_back(std::move(j));
  }
  append_gemm_json(all, gemm);
  out << all.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace lowp_cli
