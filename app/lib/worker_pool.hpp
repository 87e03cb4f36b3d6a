// worker_pool.hpp — runs commands in child processes (fork/exec), at most N at a time,
// each with a wall-clock time-out. SystemC elaborates once per process, so every sweep
// configuration gets its own process; a crash or hang only fails that configuration.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace trnsim {

struct Job {
  std::vector<std::string> argv;  // argv[0] is the executable path
  std::string stdout_file;        // child's stdout goes here
  std::string stderr_file;
};

struct JobResult {
  int exit_code = 0;       // -1: killed by signal, -2: timed out
  double seconds = 0;
  std::string error;       // last line of stderr, or the signal / time-out
};

std::vector<JobResult> run_jobs(const std::vector<Job>& jobs, int workers, double timeout_s,
                                const std::function<void(size_t done, size_t total)>& progress);

std::string self_executable();

}  // namespace trnsim
