// atomic_file.cpp — temporary file + fsync + rename (see atomic_file.hpp).
#include "trnsim/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "trnsim/error.hpp"

namespace trnsim {
namespace {

[[noreturn]] void write_error(const std::string& path, const char* step, int err) {
  throw FileError(fmt::format("{}: cannot write file ({}: {}); check the directory exists, is writable and has space",
                              path, step, std::strerror(err)));
}


// Where an output for `path` goes: the file itself when it is a special file (written in place),
// the target of a symbolic link (so the link survives), else the path.
struct Target {
  std::string file;
  bool in_place = false;
};

Target resolve(const std::string& path) {
  if (path.empty()) throw FileError("output path is empty; give a file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ELOOP) write_error(path, "resolve", ELOOP);
    return {path, false};  // a new file (or a dangling link: created where the link points)
  }
  if (S_ISDIR(st.st_mode))
    throw FileError(fmt::format("{}: is a directory; give a file name for the output", path));
  if (!S_ISREG(st.st_mode)) return {path, true};
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char buf[PATH_MAX];
    if (::realpath(path.c_str(), buf) != nullptr) return {buf, false};
  }
  return {path, false};
}

void write_fd(int fd, const std::string& text, const std::string& path, const char* tmp) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      if (tmp != nullptr) ::unlink(tmp);
      write_error(path, "write", err);
    }
    done += static_cast<size_t>(n);
  }
}

// Writes a special file in place (no temporary: a device or FIFO cannot be renamed over).
void write_in_place(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) write_error(path, "open", errno);
  write_fd(fd, text, path, nullptr);
  if (::close(fd) != 0) write_error(path, "close", errno);
}

// Writes `text` to a fresh temporary beside `file`; returns its name.
std::string write_temporary(const std::string& file, const std::string& shown, const std::string& text, Durability d) {
  const std::string tmp = fmt::format("{}.tmp.{}", file, getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;  // nothing was created
    throw FileError(fmt::format("{}: cannot write file ({}); check the directory exists and is writable", shown,
                                std::strerror(err)));
  }
  write_fd(fd, text, shown, tmp.c_str());
  if (d == Durability::Fsync && ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    write_error(shown, "fsync", err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    write_error(shown, "close", err);
  }
  return tmp;
}

}  // namespace

void check_writable(const std::string& path) {
  const Target t = resolve(path);
  if (t.in_place) return;
  const auto slash = t.file.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : t.file.substr(0, slash);
  if (::access(dir.c_str(), W_OK) != 0) {
    const int err = errno;
    throw FileError(fmt::format("{}: cannot write file ({}: {}); check the directory exists and is writable", path, dir,
                                std::strerror(err)));
  }
}

void write_file_atomically(const std::string& path, const std::string& text, Durability d) {
  OutputSet one;
  one.add(path, text);
  one.commit(d);
}

OutputSet::~OutputSet() {
  for (const std::string& tmp : temporaries_) ::unlink(tmp.c_str());
}

void OutputSet::add(const std::string& path, std::string text) {
  if (!path.empty()) files_.emplace_back(path, std::move(text));
}

void OutputSet::commit(Durability d) {
  struct Staged {
    std::string shown, file, tmp;
    bool in_place;
    const std::string* text;
  };
  std::vector<Staged> staged;
  for (const auto& [path, text] : files_) {  // resolve every target before writing any
    const Target t = resolve(path);
    staged.push_back({path, t.file, "", t.in_place, &text});
  }
  for (Staged& s : staged) {
    if (s.in_place) continue;
    s.tmp = write_temporary(s.file, s.shown, *s.text, d);
    temporaries_.push_back(s.tmp);
  }
  for (Staged& s : staged) {
    if (s.in_place) {
      write_in_place(s.file, *s.text);
      continue;
    }
    if (std::rename(s.tmp.c_str(), s.file.c_str()) != 0) write_error(s.shown, "rename", errno);
    temporaries_.erase(std::find(temporaries_.begin(), temporaries_.end(), s.tmp));
  }
  files_.clear();
}

}  // namespace trnsim
