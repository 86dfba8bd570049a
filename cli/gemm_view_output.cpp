// The GEMM view in the text report and in JSON (gemm_view.h).
#include <string>

#include "gemm_view.h"
#include "json_numbers.h"
#include "text_table.h"

namespace lowp_cli {
namespace {

const GemmRecipe* find_gemm_recipe(const std::string& name) {
  for (const GemmRecipe& r : gemm_recipe_table())
    if (name == r.name) return &r;
  return nullptr;
}

// The per-tensor record a per-token record is compared with (both ok), or null.
const GemmRecord* baseline_of(const GemmRecord& r, const std::vector<GemmRecord>& records) {
  const GemmRecipe* recipe = find_gemm_recipe(r.recipe);
  if (recipe == nullptr || recipe->baseline == nullptr || r.status != RunStatus::kOk) return nullptr;
  for (const GemmRecord& b : records)
    if (b.recipe == recipe->baseline && b.triple == r.triple && b.source == r.source && b.status == RunStatus::kOk)
      return &b;
  return nullptr;
}

std::string dims(const GemmRecord& r) {
  return std::to_string(r.tokens) + "x" + std::to_string(r.in) + "x" + std::to_string(r.out);
}

}  // namespace

void print_gemm_view(std::ostream& out, const std::vector<GemmRecord>& records) {
  if (records.empty()) return;
  out << "\nGEMM view: SNR dB of each product against the fp64 product of the unquantized tensors\n"
         "(fprop y = x W^T, dgrad dx = dy W, wgrad dW = dy^T x; x: tokens x in, W: out x in, dy: tokens x out)\n\n";
  TextTable table({"triple", "tokens x in x out", "recipe", "fprop", "dgrad", "wgrad"}, 3);
  NoteList notes;
  for (size_t i = 0; i < records.size(); ++i) {
    const GemmRecord& r = records[i];
    std::vector<std::string> row = {r.triple, dims(r), r.recipe};
    if (r.status == RunStatus::kOk) {
      for (double snr : r.snr_db) row.push_back(fmt("%.2f", snr));
    } else if (r.status == RunStatus::kError) {
      row.push_back(std::string(status_name(r.status)) + ": " + r.message);
    } else {
      row.push_back(std::string(status_name(r.status)) + " " + notes.ref(r.message));
    }
    table.add(std::move(row), i > 0 && records[i - 1].triple != r.triple);
  }
  table.print(out);
  notes.print(out);

  TextTable delta({"triple", "per-token", "per-tensor", "fprop +dB", "dgrad +dB", "wgrad +dB"}, 3);
  for (const GemmRecord& r : records)
    if (const GemmRecord* b = baseline_of(r, records))
      delta.add({r.triple, r.recipe, b->recipe, fmt("%+.2f", r.snr_db[0] - b->snr_db[0]),
                 fmt("%+.2f", r.snr_db[1] - b->snr_db[1]), fmt("%+.2f", r.snr_db[2] - b->snr_db[2])});
  if (delta.empty()) return;
  out << "\nGEMM per-token minus per-tensor SNR (dB; > 0: per-token is better; FP8 per-token quantizes dy in E4M3,\n"
         "its per-tensor baseline in E5M2)\n\n";
  delta.print(out);
}

void append_gemm_json(nlohmann::ordered_json& all, const std::vector<GemmRecord>& records) {
  for (const GemmRecord& r : records) {
    NumberFields num;
    nlohmann::ordered_json j = {{"kind", "gemm"},       {"triple", r.triple},   {"source", r.source},
                                {"tokens", r.tokens},   {"in", r.in},           {"out", r.out},
                                {"recipe", r.recipe},   {"backend", r.backend}, {"status", status_name(r.status)}};
    if (r.status != RunStatus::kOk) {
      j["message"] = r.message;
      all.push_back(std::move(j));
      continue;
    }
    for (int p = 0; p < kGemmProducts; ++p) {
      const std::string key = std::string(kGemmProductNames[p]) + "_snr_db";
      j[key] = num.value(key, r.snr_db[p]);
    }
    if (const GemmRecord* b = baseline_of(r, records)) {
      nlohmann::ordered_json delta = {{"baseline", b->recipe}};
      for (int p = 0; p < kGemmProducts; ++p) {
        const std::string key = std::string(kGemmProductNames[p]) + "_snr_db";
        delta[key] = num.value("per_token_minus_per_tensor." + key, r.snr_db[p] - b->snr_db[p]);
      }
      j["per_token_minus_per_tensor"] = std::move(delta);
    }
    num.add_to(j);
    all.push_back(std::move(j));
  }
}

}  // namespace lowp_cli
