// main.cpp — `trnsim` entry point: dispatches subcommands and turns every ConfigError /
// UsageError into one line on stderr and a non-zero exit.
#include <systemc>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli_args.hpp"
#include "commands.hpp"
#include "worker_pool.hpp"
#include "trnsim/error.hpp"

namespace {
const char* kUsage =
    "usage: trnsim COMMAND [options]   (trnsim COMMAND --help for details; trnsim --version)\n\n"
    "commands:\n"
    "  run WORKLOAD.json        simulate one training step; report time, MFU, memory, cost\n"
    "  validate FILE.json...    strictly check hw / model / workload files\n"
    "  list                     list known hardware, models and workloads\n"
    "  fields [PREFIX]          every workload setting: path, type, unit, default, range, description\n"
    "  graph WORKLOAD.json      op counts, FLOPs and bytes of the step; --dot FILE\n"
    "  calibrate                fit the declared calibration parameters (results/published.json)\n"
    "  reproduce                every published row: prediction vs publication -> results/\n"
    "  sweep                    all valid layouts in worker processes; CSV/JSON/Markdown, Pareto front\n"
    "  merge PART.json...       combine sweep shards\n"
    "  search                   exact top-K layouts and Pareto front over the whole space (branch-and-bound)\n"
    "  validation               predict the public validation corpus; results/validation.md, CI gate\n"
    "  compare STUDY.json       best layout per hardware, $ per token and time to train, with intervals\n"
    "  campaign WORKLOAD.json   whole training run with failures: goodput, days, node-hours, cost\n"
    "  collective --hw H        one collective on idle links, as nccl-tests prints it; --compare a measured table\n";
}

namespace {
// What a command printed must have reached standard output: a full disk or a closed pipe is an
// error (exit 1), not a silent success with the report lost.
int with_stdout_checked(int rc) {
  std::cout.flush();
  errno = 0;
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    std::cerr << "error: standard output: cannot write (" << (err ? std::strerror(err) : "write failed")
              << "); check the disk or the pipe it goes to, or use --output FILE where the command has it\n";
    return rc == 0 ? 1 : rc;
  }
  return rc;
}

int run_command(int argc, char* argv[]) {
  using namespace trnsim;
  const std::map<std::string, int (*)(const ArgList&)> commands = {
      {"run", cmd_run},         {"validate", cmd_validate},   {"list", cmd_list},
      {"graph", cmd_graph},     {"calibrate", cmd_calibrate}, {"reproduce", cmd_reproduce},
      {"sweep", cmd_sweep},     {"search", cmd_search},     {"merge", cmd_merge},         {"campaign", cmd_campaign},
      {"run-batch", cmd_run_batch}, {"validation", cmd_validation},
      {"compare", cmd_compare}, {"collective", cmd_collective}, {"fields", cmd_fields}};
  if (argc >= 2 && std::string(argv[1]) == "--version") {
    std::printf("trnsim %s (SystemC %s)\n", TRNSIM_VERSION, sc_core::sc_release());
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  auto it = commands.find(argv[1]);
  if (it == commands.end()) {
    std::cerr << "trnsim: unknown command \"" << argv[1] << "\"; run `trnsim --help`\n";
    return 2;
  }
  try {
    return it->second(ArgList(argv + 2, argv + argc));
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const Interrupted& e) {
    std::cerr << "trnsim: " << e.what() << "; workers stopped, scratch files removed\n";
    return 128 + e.signal;
  } catch (const std::filesystem::filesystem_error& e) {  // a symlink loop or unreadable folder in the data
    std::cerr << "error: " << (e.path1().empty() ? std::string("a data file") : e.path1().string()) << ": "
              << e.code().message() << "; check the file or folder (a symbolic link loop, permissions)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 3;
  }
}
}  // namespace

int sc_main(int argc, char* argv[]) { return with_stdout_checked(run_command(argc, argv)); }

// Our own main: silence the SystemC banner (it would pollute --format json) and hand over
// to the kernel, which calls sc_main.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  // Past a file-size limit write() must fail with EFBIG (reported by the atomic writer, exit 1)
  // instead of the default SIGXFSZ killing the process mid-file.
  std::signal(SIGXFSZ, SIG_IGN);
  return sc_core::sc_elab_and_sim(argc, argv);
}
