// worker_pool.cpp — see worker_pool.hpp. POSIX only.
#include "worker_pool.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <array>
#include <map>
#include <thread>

namespace trnsim {
namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_signal(int sig) { g_signal = sig; }

// Handlers for the signals that end an interactive or batch-scheduled sweep, installed for the
// life of run_jobs; the previous handlers come back afterwards.
class SignalGuard {
 public:
  SignalGuard() {
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~SignalGuard() {
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }

 private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

// When the job last showed progress: its start, or the last change of its heartbeat file.
Clock::time_point last_progress(const Job& j, Clock::time_point start) {
  if (j.heartbeat_file.empty()) return start;
  struct stat st {};
  if (stat(j.heartbeat_file.c_str(), &st) != 0) return start;
  // Map the file's wall-clock mtime onto the steady clock through "now" on both clocks.
  const auto mtime = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
  const auto beat = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::system_clock::now() - mtime);
  return std::max(start, beat);
}

pid_t spawn(const Job& j) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int out = open(j.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = open(j.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out >= 0) dup2(out, 1);
  if (err >= 0) dup2(err, 2);
  std::vector<char*> args;
  for (const auto& a : j.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

std::string last_line(const std::string& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

}  // namespace

std::string self_executable() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "trnsim";
}

std::vector<JobResult> run_jobs(const std::vector<Job>& jobs, int workers, double timeout_s,
                                const std::function<void(size_t, size_t)>& progress) {
  const SignalGuard guard;
  std::vector<JobResult> results(jobs.size());
  std::map<pid_t, std::pair<size_t, Clock::time_point>> running;
  size_t next = 0, done = 0;
  while (done < jobs.size()) {
    while (next < jobs.size() && static_cast<int>(running.size()) < std::max(1, workers)) {
      running[spawn(jobs[next])] = {next, Clock::now()};
      ++next;
    }
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && running.count(pid)) {
      auto [idx, start] = running[pid];
      running.erase(pid);
      JobResult& r = results[idx];
      r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (r.exit_code == -2) {
        r.error = "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s on one configuration";
      } else if (WIFEXITED(status)) {
        r.exit_code = WEXITSTATUS(status);
        if (r.exit_code != 0) r.error = last_line(jobs[idx].stderr_file);
      } else {
        r.exit_code = -1;
        r.error = "crashed with signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
      }
      ++done;
      if (progress) progress(done, jobs.size());
      continue;
    }
    if (g_signal != 0) {
      for (auto& [p, info] : running) kill(p, SIGKILL);
      for (auto& [p, info] : running) waitpid(p, nullptr, 0);
      throw Interrupted(g_signal);
    }
    for (auto& [p, info] : running)
      if (results[info.first].exit_code != -2 &&
          std::chrono::duration<double>(Clock::now() - last_progress(jobs[info.first], info.second)).count() > timeout_s) {
        results[info.first].exit_code = -2;
        kill(p, SIGKILL);
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return results;
}

ScratchDir::ScratchDir(std::string path) : path_(std::move(path)) { std::filesystem::create_directories(path_); }
ScratchDir::~ScratchDir() {
  std::error_code ec;  // never throw from a destructor; a leftover scratch dir is not an error
  std::filesystem::remove_all(path_, ec);
}

}  // namespace trnsim
