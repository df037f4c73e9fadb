// The directory `weft check` builds its program in: removed when weft is done with it, whether it
// returns, throws, or is stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP.
#pragma once

#include <string>

namespace weft::driver {

class TemporaryDirectory {
 public:
  /// Creates `$TMPDIR/<prefix>XXXXXX` (TMPDIR defaults to /tmp). Only one may exist at a time:
  /// the signal handlers know a single directory.
  explicit TemporaryDirectory(const std::string& prefix);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace weft::driver
