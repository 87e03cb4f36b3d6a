// atomic_file.cpp — temporary file + fsync + rename (see atomic_file.hpp).
#include "trnsim/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trnsim/error.hpp"

namespace trnsim {

void write_file_atomically(const std::string& path, const std::string& text, Durability d) {
  if (path.empty()) throw ConfigError("output path is empty; give a file name");
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  auto fail = [&](const char* step, int err) {
    ::unlink(tmp.c_str());
    throw FileError(fmt::format("{}: cannot write file ({}: {}); check the directory exists, is writable and has space",
                                  path, step, std::strerror(err)));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;  // nothing was created
    throw FileError(fmt::format("{}: cannot write file ({}); check the directory exists and is writable", path,
                                  std::strerror(err)));
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      fail("write", err);
    }
    done += static_cast<size_t>(n);
  }
  if (d == Durability::Fsync && ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail("fsync", err);
  }
  if (::close(fd) != 0) fail("close", errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename", errno);
}

}  // namespace trnsim
