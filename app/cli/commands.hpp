// commands.hpp — one function per `trnsim` subcommand; each returns the exit code.
#pragma once
#include <string>
#include <vector>

namespace trnsim {

using ArgList = std::vector<std::string>;
int cmd_run(const ArgList& args);
int cmd_validate(const ArgList& args);
int cmd_list(const ArgList& args);
int cmd_graph(const ArgList& args);
int cmd_calibrate(const ArgList& args);
int cmd_reproduce(const ArgList& args);
int cmd_sweep(const ArgList& args);
int cmd_search(const ArgList& args);
int cmd_merge(const ArgList& args);
int cmd_campaign(const ArgList& args);
int cmd_run_batch(const ArgList& args);
int cmd_validation(const ArgList& args);
int cmd_compare(const ArgList& args);
int cmd_collective(const ArgList& args);
int cmd_fields(const ArgList& args);

}  // namespace trnsim
