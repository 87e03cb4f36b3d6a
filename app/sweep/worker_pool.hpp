// worker_pool.hpp — runs commands in child processes (fork/exec), at most N at a time,
// each with a wall-clock time-out. SystemC elaborates once per process, so sweep
// configurations run in worker processes; a crash or hang only fails the configurations of
// that process. A worker that runs several configurations touches a heartbeat file before each,
// so the time-out applies to each configuration, not to the whole batch.
// SIGINT / SIGTERM / SIGHUP during run_jobs kill the workers and throw Interrupted, so the
// caller's scratch directory (ScratchDir) is removed on the way out.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace trnsim {

struct Job {
  std::vector<std::string> argv;  // argv[0] is the executable path
  std::string stdout_file;        // child's stdout goes here
  std::string stderr_file;
  std::string heartbeat_file;     // optional: the time-out counts from this file's last change
};

struct JobResult {
  int exit_code = 0;       // -1: killed by signal, -2: timed out
  double seconds = 0;
  std::string error;       // last line of stderr, or the signal / time-out
};

std::vector<JobResult> run_jobs(const std::vector<Job>& jobs, int workers, double timeout_s,
                                const std::function<void(size_t done, size_t total)>& progress);

std::string self_executable();

// Thrown by run_jobs after SIGINT, SIGTERM or SIGHUP (its workers killed and reaped). `signal`
// is the signal number; the CLI exits 128 + signal.
struct Interrupted : std::runtime_error {
  explicit Interrupted(int sig) : std::runtime_error("interrupted by signal " + std::to_string(sig)), signal(sig) {}
  int signal;
};

// A directory removed (with everything in it) when the object goes out of scope, on any
// exit from the scope: return, exception or Interrupted.
class ScratchDir {
 public:
  explicit ScratchDir(std::string path);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace trnsim
