// compare.hpp — `trnsim compare`: the cost / throughput table users compare
// hardware with. For each model of a study file (studies/*.json) and each hardware, the search
// (search.hpp, exact top-1 by throughput at the study's chip count) picks the best layout at BF16
// and at the chip's fastest low-precision format; the row reports step time, tokens/s, MFU,
// $ per million tokens under every plan of a dated price file (prices/*.json), and the time and
// cost to train the study's token budgets, each with its prediction interval (intervals.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace trnsim {

struct CompareOptions {
  std::string study;            // studies/<name>.json (path)
  std::string prices;           // overrides the study's price file (path); empty: the study's
  std::string validation_json;  // residuals for the intervals; empty: <data dir>/results/validation.json
  int workers = 1;              // forked worker processes, one search each
  bool progress = false;
  // > 1: each row's best layout is re-simulated with each hardware resource this factor better
  // (sensitivity.hpp) and the row carries the elasticities ("sensitivity"); 0: not computed.
  double sensitivity_factor = 0;
};

nlohmann::json run_compare(const CompareOptions& o);
// `trnsim validate` of a study file: every check `compare` makes before it searches, its price
// file included (every hardware priced); throws ConfigError naming the file and field.
void check_study_file(const std::string& file);
// The name a result row's hardware goes by in tables, charts and pairs: the study entry's "label"
// for a hypothetical variant (an entry with "hw_set": its hw file edited), else the instance name.
std::string compare_row_label(const nlohmann::json& row);
std::string compare_markdown(const nlohmann::json& doc);
// A bar chart of $ per million tokens (first price plan) per model and hardware, with the
// interval as whiskers: plain SVG, no plotting dependency.
std::string compare_svg(const nlohmann::json& doc);

}  // namespace trnsim
