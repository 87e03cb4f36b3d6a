// command_api.hpp — the option sets of the subcommands that take many options, and their
// results as JSON, shared by the CLI (cmd_*.cpp) and the Python module (python/): one parser,
// one set of range checks and messages, one code path. Python keyword arguments become the
// same `--name value` options.
#pragma once
#include <nlohmann/json.hpp>

#include "cli_args.hpp"
#include "scenario.hpp"
#include "sweep.hpp"

namespace trnsim {

Args sweep_args();
SweepOptions sweep_options(const Args& parsed);

Args campaign_args();
// The campaign of the workload named by the positional argument, or of `given` when not null.
nlohmann::json campaign_json(const Args& parsed, const Scenario* given = nullptr);

}  // namespace trnsim
