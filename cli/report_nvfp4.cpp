// The NVFP4 sections of the text report (report.h): amax estimation on the RHT columnwise
// copies, per-token minus per-tensor SNR on the outlier-heavy tensors, and 4over6's map-4 blocks.
#include <cmath>
#include <limits>

#include "report.h"
#include "text_table.h"

namespace lowp_cli {

std::vector<PerTokenDelta> per_token_deltas(const std::vector<Record>& records) {
  std::vector<PerTokenDelta> out;
  for (const Record& tok : records) {
    const Recipe* recipe = find_recipe(tok.recipe);
    if (recipe == nullptr || recipe->baseline == nullptr || tok.run.status != RunStatus::kOk) continue;
    for (const Record& base : records) {
      if (base.recipe != recipe->baseline || !same_tensor(base, tok) || base.run.status != RunStatus::kOk) continue;
      const bool cols = tok.run.col_stats && base.run.col_stats;
      out.push_back({&tok, &base, tok.run.stats.snr_db - base.run.stats.snr_db,
                     cols ? tok.run.col_stats->snr_db - base.run.col_stats->snr_db
                          : std::numeric_limits<double>::quiet_NaN()});
      break;
    }
  }
  return out;
}

std::vector<FourOverSixDelta> four_over_six_deltas(const std::vector<Record>& records) {
  std::vector<FourOverSixDelta> out;
  for (const Record& fos : records) {
    const Recipe* recipe = find_recipe(fos.recipe);
    if (recipe == nullptr || recipe->four_over_six_base == nullptr || fos.run.status != RunStatus::kOk) continue;
    for (const Record& base : records)
      if (base.recipe == recipe->four_over_six_base && same_tensor(base, fos) && base.run.status == RunStatus::kOk) {
        out.push_back({&fos, &base, fos.run.stats.snr_db - base.run.stats.snr_db});
        break;
      }
  }
  return out;
}

namespace {

// 4over6: per tensor and recipe, the blocks that kept map-4 and the rowwise SNR against the base.
void print_four_over_six(std::ostream& out, const std::vector<Record>& records) {
  TextTable t({"tensor", "shape", "4over6", "base", "map-4 %", "row SNR", "base SNR", "+dB"}, 3);
  const Record* last = nullptr;
  for (const FourOverSixDelta& d : four_over_six_deltas(records)) {
    const Record& r = *d.four_over_six;
    t.add({r.tensor, shape_of(r), r.recipe, d.base->recipe, fmt("%.2f", 100.0 * r.run.map4_fraction.value_or(0)),
           fmt("%.2f", r.run.stats.snr_db), fmt("%.2f", d.base->run.stats.snr_db), fmt("%+.2f", d.snr_db)},
          last != nullptr && !same_tensor(*last, r));
    last = &r;
  }
  if (t.empty()) return;
  out << "\nNVFP4 4over6: rowwise blocks that kept map-4 (their largest value on 4 instead of 6) and the "
         "rowwise SNR against the recipe it varies\n\n";
  t.print(out);
}

}  // namespace

void print_nvfp4_summaries(std::ostream& out, const std::vector<Record>& records) {
  print_four_over_six(out, records);
  TextTable est({"tensor", "shape", "recipe", "factor", "est/exact", "col SNR exact", "col SNR est", "est - exact",
                 "clip %"},
                3);
  for (const Record& r : records) {
    if (r.run.status != RunStatus::kOk || !r.run.estimate || !r.run.col_stats) continue;
    const AmaxEstimate& e = *r.run.estimate;
    est.add({r.tensor, shape_of(r), r.recipe, fmt("%.1f", e.factor), fmt("%.3f", e.amax_ratio),
             fmt("%.2f", r.run.col_stats->snr_db), fmt("%.2f", e.col_stats.snr_db),
             fmt("%+.2f", e.col_stats.snr_db - r.run.col_stats->snr_db), fmt("%.3f", 100.0 * e.clipped_fraction)});
  }
  if (!est.empty()) {
    out << "\nNVFP4 amax estimation on the RHT columnwise copy (rowwise amax * factor vs the exact "
           "post-RHT amax)\n\n";
    est.print(out);
  }

  TextTable tok({"tensor", "shape", "per-token", "per-tensor", "max|x|/rms", "row SNR +dB", "col SNR +dB"}, 4);
  size_t outlier_tensors = 0;
  const Record* last = nullptr;
  for (const PerTokenDelta& d : per_token_deltas(records)) {
    if (!outlier_heavy(*d.per_token)) continue;
    const bool new_tensor = last == nullptr || !same_tensor(*last, *d.per_token);
    outlier_tensors += new_tensor;
    tok.add({d.per_token->tensor, shape_of(*d.per_token), d.per_token->recipe, d.per_tensor->recipe,
             fmt("%.1f", d.per_token->peak_to_rms), fmt("%+.2f", d.snr_db),
             std::isnan(d.col_snr_db) ? "-" : fmt("%+.2f", d.col_snr_db)},
            new_tensor && last != nullptr);
    last = d.per_token;
  }
  if (!tok.empty()) {
    out << "\nNVFP4 per-token minus per-tensor SNR on outlier-heavy tensors (max|x|/rms > "
        << fmt("%g", kOutlierPeakToRms) << "; " << outlier_tensors << " tensors)\n\n";
    tok.print(out);
    return;
  }
  for (const Record& r : records)
    if (r.run.status == RunStatus::kUnsupported && outlier_heavy(r)) {
      const Recipe* recipe = find_recipe(r.recipe);
      if (recipe == nullptr || recipe->baseline == nullptr) continue;
      out << "\nNVFP4 per-token minus per-tensor SNR: the per-token recipes did not run here (see the notes)\n";
      return;
    }
}

}  // namespace lowp_cli
