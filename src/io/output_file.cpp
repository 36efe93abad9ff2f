// Checked, atomic output files (see output_file.hpp).
#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "topoplan/error.hpp"

namespace topoplan::detail {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what, int err = 0) {
  throw InputError(path, "", err ? what + ": " + std::strerror(err) : what);
}

// Where the target stands: absent or a regular file (write beside it and rename), or something
// else that may be written (a device, a FIFO: written in place).
bool is_special_target(const std::string& path) {
  if (path.empty()) fail("-o", "empty output path");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(path, "cannot write the file", errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) fail(path, "cannot write the file: it is a directory");
  return !S_ISREG(st.st_mode);
}

void write_all(int fd, const std::string& path, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      fail(path, "write failed", err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail(path, "write failed (on close)", errno);
}

// A new, empty temporary file beside `path` whose name ends with path's file name; its fd.
std::string create_temp(const std::string& path, int& fd) {
  static std::atomic<unsigned> counter{0};
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string temp =
      (dir / ("." + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".tmp." +
              target.filename().string()))
          .string();
  fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR)
      fail(path, "cannot write the file: no folder " + dir.string());
    fail(path, "cannot write the file", err);
  }
  return temp;
}

void move_into_place(const std::string& temp, const std::string& path) {
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(path, "cannot write the file (rename)", err);
  }
}

std::string read_all(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot read back the written file", errno);
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fail(path, "cannot read back the written file", err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  if (is_special_target(path)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(path, "cannot write the file", errno);
    write_all(fd, path, text);
    return;
  }
  int fd = -1;
  const std::string temp = create_temp(path, fd);
  try {
    write_all(fd, path, text);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  move_into_place(temp, path);
}

void write_output_via(const std::string& path,
                      const std::function<void(const std::string& temp)>& write) {
  const bool special = is_special_target(path);
  int fd = -1;
  // A device or FIFO target: the writer draws into a temporary file in the temp folder, whose
  // bytes are then written to the target.
  const std::string temp = create_temp(
      special ? (fs::temp_directory_path() / fs::path(path).filename()).string() : path, fd);
  ::close(fd);
  try {
    write(temp);
    struct stat st {};
    if (::stat(temp.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
      fail(path, "cannot write the file: the renderer wrote nothing");
    if (special) {
      const std::string bytes = read_all(temp);
      ::unlink(temp.c_str());
      write_output_file(path, bytes);
      return;
    }
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  move_into_place(temp, path);
}

}  // namespace topoplan::detail
