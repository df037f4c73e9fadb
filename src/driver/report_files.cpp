#include "weft/driver/report_files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "weft/driver/html_report.hpp"
#include "weft/driver/junit_report.hpp"
#include "weft/driver/native_runner.hpp"
#include "weft/driver/sarif_report.hpp"
#include "weft/trace/one_line.hpp"

namespace weft::driver {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const std::string& path, const char* option,
                               const std::string& reason) {
  throw DriverError("cannot write " + one_line(path) + ": " + reason + " (give " + option +
                    " a writable file path)");
}

void check_path(const std::string& path, const char* option) {
  if (path.empty()) return;
  std::error_code ec;
  if (fs::is_directory(path, ec)) cannot_write(path, option, "it is a directory");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) cannot_write(path, option, "no such directory " + dir.string());
  if (access(dir.c_str(), W_OK) != 0) cannot_write(path, option, std::strerror(errno));
  if (fs::exists(path, ec) && access(path.c_str(), W_OK) != 0)
    cannot_write(path, option, std::strerror(errno));
}

void write_text(const std::string& path, const char* option, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) cannot_write(path, option, std::strerror(errno));
  errno = 0;
  bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  written = std::fclose(f) == 0 && written;  // a full disk may show only when flushed
  if (!written) cannot_write(path, option, errno ? std::strerror(errno) : "write failed");
}

}  // namespace

void check_report_paths(const ReportFiles& files) {
  check_path(files.sarif, "--sarif");
  check_path(files.junit, "--junit");
  check_path(files.html, "--html");
  // One file for two forms would keep only the last one written.
  const std::pair<const char*, const std::string*> forms[] = {
      {"--sarif", &files.sarif}, {"--junit", &files.junit}, {"--html", &files.html}};
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = a + 1; b < 3; ++b)
      if (!forms[a].second->empty() && *forms[a].second == *forms[b].second)
        throw DriverError("cannot write " + one_line(*forms[a].second) + ": it is given to both " +
                          forms[a].first + " and " + forms[b].first + " (give each its own file)");
}

void write_report_files(const ReportFiles& files, const nlohmann::json& result,
                        const std::string& working_directory) {
  if (!files.sarif.empty())
    write_text(files.sarif, "--sarif", sarif_report(result, working_directory));
  if (!files.junit.empty()) write_text(files.junit, "--junit", junit_report(result));
  if (!files.html.empty()) write_text(files.html, "--html", html_report(result));
}

}  // namespace weft::driver
