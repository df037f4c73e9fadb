#include "weft/driver/temporary_directory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "weft/driver/native_runner.hpp"

namespace weft::driver {
namespace {

namespace fs = std::filesystem;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// What the signal handler removes. A fixed buffer: the handler may not allocate.
char g_directory[4096];
struct sigaction g_previous[std::size(kSignals)];

// Removes the directory and the files directly in it (the build leaves no subdirectories) with
// system calls only, which are async-signal-safe; std::filesystem is not.
void remove_now(const char* dir) {
  const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
      for (long at = 0; at < n;) {
        // struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name.
        unsigned short reclen;
        std::memcpy(&reclen, buf + at + 16, sizeof reclen);
        const char* name = buf + at + 19;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) unlinkat(fd, name, 0);
        at += reclen;
      }
    }
    close(fd);
  }
  rmdir(dir);
}

void on_signal(int sig) {
  const int saved = errno;
  remove_now(g_directory);
  errno = saved;
  // Die of the same signal, as the user (or the shell's exit status) expects.
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

TemporaryDirectory::TemporaryDirectory(const std::string& prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  if (pattern.size() >= sizeof g_directory)
    throw DriverError("the temporary directory's path is too long (TMPDIR=" + base.string() +
                      "; set TMPDIR to a shorter path)");
  if (!mkdtemp(pattern.data()))
    throw DriverError("cannot create a temporary directory in " + base.string() + ": " +
                      std::strerror(errno) + " (set TMPDIR to a writable directory)");
  path_ = pattern;
  std::memcpy(g_directory, path_.c_str(), path_.size() + 1);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    sigaction(kSignals[i], nullptr, &g_previous[i]);
    // A signal the caller ignores (nohup, a background job's SIGINT) stays ignored.
    if (g_previous[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &action, nullptr);
  }
}

TemporaryDirectory::~TemporaryDirectory() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    sigaction(kSignals[i], &g_previous[i], nullptr);
  std::error_code ec;
  fs::remove_all(path_, ec);
  g_directory[0] = '\0';
}

}  // namespace weft::driver
