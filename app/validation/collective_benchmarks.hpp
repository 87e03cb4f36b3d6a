// collective_benchmarks.hpp — the corpus's collective benchmarks (nccl-tests tables,
// data/validation/nccl_tests_*.csv) as a validation dataset: each row's bus bandwidth against
// trnsim's collective on idle links (collective_bench.hpp, what a step's collectives cost before
// contention), as `trnsim collective --compare` prints it. No parameter is fitted on these rows, so
// the in-sample and the left-out error are one figure. Keyed "<table> / busbw", beside the step
// datasets' "<dataset> / <quantity>" in the thresholds file.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace trnsim {

// Every nccl_tests_*.csv in `csv_dir`, each row on the hw file its hardware column names (first
// word): mean abs and mean error (%), per node count and per collective. Empty object: no table.
nlohmann::json collective_benchmarks(const std::string& csv_dir);

// The validation report's section (empty string when there is no table).
std::string collective_benchmarks_markdown(const nlohmann::json& benchmarks);

}  // namespace trnsim
