// seed.cpp — the validation adapter of one dataset (dataset_common.hpp has the rules).
// The seed rows (results/published.json): the project's own workload files, each compared
// with its published whole-cluster sequences per second.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "dataset_common.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim::datasets {
std::vector<ValidationCase> seed(const std::string& file) {
  auto pub = load_json_file(file);
  std::vector<ValidationCase> out;
  int row = 0;
  for (const auto& r : pub["rows"]) {
    const std::string wl = r["workload"].get<std::string>();
    ValidationCase c;
    c.dataset = "seed";
    c.row = ++row;
    c.family = r["hw_family"].get<std::string>();
    c.workload = load_workload(data_dir() + "/workloads/" + wl + ".json", stack_lookup());
    c.model = load_model_spec(model_path(c.workload.model));
    c.model_name = c.model.name;
    c.has_workload = true;
    c.label = wl;
    c.quantity = Metric::ClusterSeqPerS;
    c.measured = r["published_seq_per_s"].get<double>();
    fill_features(c);
    out.push_back(c);
  }
  return out;
}

}  // namespace trnsim::datasets
