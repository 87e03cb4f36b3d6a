// command_api.hpp — the option sets of the subcommands that take many options, and their
// results as JSON, shared by the CLI (cmd_*.cpp) and the Python module (python/): one parser,
// one set of range checks and messages, one code path. Python keyword arguments become the
// same `--name value` options.
#pragma once
#include <nlohmann/json.hpp>

#include "cli_args.hpp"
#include "compare.hpp"
#include "scenario.hpp"
#include "search.hpp"
#include "sweep.hpp"
#include "validation.hpp"

namespace trnsim {

Args sweep_args();
SweepOptions sweep_options(const Args& parsed);

// `trnsim collective`: one collective on idle links as nccl-tests prints it (rows: op, nodes, ranks,
// size_bytes, time_us, algbw_GBps, busbw_GBps), or beside a measured table (--compare: each row's
// measured_busbw_GBps and error, mean_abs_error, mean_abs_error_by_nodes).
Args collective_args();
nlohmann::json collective_json(const Args& parsed);

Args campaign_args();
// The campaign of the workload named by the positional argument, or of `given` when not null.
nlohmann::json campaign_json(const Args& parsed, const Scenario* given = nullptr);

Args search_args();
SearchOptions search_options(const Args& parsed);
// run_search, with an empty space a UsageError (as the CLI reports it).
nlohmann::json search_checked(const SearchOptions& o);

// The --lora-rank check search and sweep share (option_checks.cpp): LoRA on a model with
// non-dense layers is a usage error naming `command`.
void check_lora_model(const std::string& command, const std::string& model, int64_t lora_rank);

// The --hw and --model options search, sweep and collective share name data files, not paths: each
// name given is checked before anything is read (a usage error naming the option).
void check_data_names(const Args& parsed);

// The --sensitivity / --sensitivity-pct pair `trnsim run` and `trnsim compare` share: 0 when neither
// is given, else 1 + pct / 100 (pct range-checked, kSensitivityDefaultPct when only the flag is given).
double sensitivity_factor(const Args& parsed);

Args compare_args();
CompareOptions compare_options(const Args& parsed);  // --out, --check and --tolerance are the CLI's alone

Args validation_args();
ValidationOptions validation_options(const Args& parsed);  // --out and --check are the CLI's alone

}  // namespace trnsim
