// fork_map.cpp — see fork_map.hpp. Wire format child -> parent, per finished task:
// u64 index, u8 ok (1 result, 0 error message), u64 length, then the bytes.
#include "trnsim/fork_map.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>

#include "trnsim/error.hpp"

namespace trnsim {
namespace {

bool write_all(int fd, const void* data, size_t len) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    const ssize_t w = ::write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    len -= static_cast<size_t>(w);
  }
  return true;
}

[[noreturn]] void child_loop(int fd, std::atomic<size_t>* next, size_t n, const std::function<std::string(size_t)>& task) {
  for (;;) {
    const size_t i = next->fetch_add(1);
    if (i >= n) break;
    uint8_t ok = 1;
    std::string out;
    try {
      out = task(i);
    } catch (const std::exception& e) {
      ok = 0;
      out = e.what();
    } catch (...) {
      ok = 0;
      out = "unknown exception";
    }
    const uint64_t idx = i, len = out.size();
    if (!write_all(fd, &idx, sizeof idx) || !write_all(fd, &ok, 1) || !write_all(fd, &len, sizeof len) ||
        !write_all(fd, out.data(), out.size()))
      ::_exit(3);
  }
  ::close(fd);
  ::_exit(0);  // no destructors, no atexit handlers, no second flush of inherited stdio buffers
}

// Parses whole records from the front of `buf`; returns false on a malformed stream.
bool take_records(std::string& buf, std::vector<std::string>& results, std::vector<int>& state, std::string& first_error,
                  size_t& done) {
  const size_t head = sizeof(uint64_t) + 1 + sizeof(uint64_t);
  size_t pos = 0;
  while (buf.size() - pos >= head) {
    uint64_t idx = 0, len = 0;
    uint8_t ok = 0;
    std::memcpy(&idx, buf.data() + pos, sizeof idx);
    std::memcpy(&ok, buf.data() + pos + sizeof idx, 1);
    std::memcpy(&len, buf.data() + pos + sizeof idx + 1, sizeof len);
    if (buf.size() - pos - head < len) break;
    if (idx >= results.size() || state[idx] != 0) return false;
    std::string body = buf.substr(pos + head, len);
    if (ok) results[idx] = std::move(body);
    else if (first_error.empty()) first_error = std::move(body);
    state[idx] = ok ? 1 : 2;
    ++done;
    pos += head + len;
  }
  buf.erase(0, pos);
  return true;
}

}  // namespace

int online_cpus() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::vector<std::string> fork_map(size_t n, int workers, const std::function<std::string(size_t)>& task,
                                  const std::function<void(size_t, size_t)>& on_done) {
  std::vector<std::string> results(n);
  if (workers <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) {
      results[i] = task(i);
      if (on_done) on_done(i + 1, n);
    }
    return results;
  }
  const size_t w = std::min(static_cast<size_t>(workers), n);
  void* shared = ::mmap(nullptr, sizeof(std::atomic<size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw ConfigError(fmt::format("cannot share memory with worker processes: {}", std::strerror(errno)));
  auto* next = new (shared) std::atomic<size_t>(0);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  std::vector<int> fds;
  for (size_t k = 0; k < w; ++k) {
    int p[2];
    if (::pipe(p) != 0) break;
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(p[0]);
      ::close(p[1]);
      break;
    }
    if (pid == 0) {
      ::close(p[0]);
      for (int fd : fds) ::close(fd);
      child_loop(p[1], next, n, task);
    }
    ::close(p[1]);
    pids.push_back(pid);
    fds.push_back(p[0]);
  }
  if (pids.empty()) {  // no process could be started: do the work here
    ::munmap(shared, sizeof(std::atomic<size_t>));
    return fork_map(n, 1, task, on_done);
  }
  std::vector<int> state(n, 0);  // 0 pending, 1 result, 2 error
  std::vector<std::string> bufs(fds.size());
  std::string first_error;
  size_t done = 0, open = fds.size();
  bool malformed = false;
  std::vector<pollfd> pf(fds.size());
  while (open > 0) {
    for (size_t k = 0; k < fds.size(); ++k) pf[k] = {fds[k], static_cast<short>(fds[k] >= 0 ? POLLIN : 0), 0};
    if (::poll(pf.data(), pf.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k] < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[65536];
      const ssize_t r = ::read(fds[k], chunk, sizeof chunk);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        ::close(fds[k]);
        fds[k] = -1;
        --open;
        continue;
      }
      bufs[k].append(chunk, static_cast<size_t>(r));
      const size_t before = done;
      if (!take_records(bufs[k], results, state, first_error, done)) malformed = true;
      if (on_done && done != before) on_done(done, n);
    }
  }
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  std::string died;
  for (pid_t pid : pids) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (died.empty() && WIFSIGNALED(status)) died = fmt::format("killed by signal {}", WTERMSIG(status));
    else if (died.empty() && WIFEXITED(status) && WEXITSTATUS(status) != 0) died = fmt::format("exited with status {}", WEXITSTATUS(status));
  }
  ::munmap(shared, sizeof(std::atomic<size_t>));
  if (!first_error.empty()) throw ConfigError(first_error);
  for (size_t i = 0; i < n; ++i)
    if (state[i] != 1)
      throw ConfigError(fmt::format("worker process for task {} of {} {}; rerun with one worker (--jobs 1) to see why",
                                    i + 1, n, died.empty() ? (malformed ? "sent a malformed result" : "ended without a result") : died));
  return results;
}

}  // namespace trnsim
