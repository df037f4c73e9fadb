// The report files `weft check` and `weft run` write besides their text or JSON output
// (--sarif, --junit, --html): each a rendering of the result JSON (the one --json prints).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace weft::driver {

/// Where to write each report file; an empty path means that form was not asked for.
struct ReportFiles {
  std::string sarif;  ///< --sarif: SARIF 2.1.0 (sarif_report.hpp)
  std::string junit;  ///< --junit: JUnit XML (junit_report.hpp)
  std::string html;   ///< --html: one self-contained page (html_report.hpp)
  bool any() const { return !sarif.empty() || !junit.empty() || !html.empty(); }
};

/// Throws DriverError ("cannot write FILE: reason (...)") for a path that cannot be written:
/// its directory is missing or not writable, it names a directory, or two forms name the same
/// file. Checked before the
/// exploration, which may take long, so that a typo does not cost the run.
void check_report_paths(const ReportFiles& files);

/// Renders `result` in each form asked for and writes it; throws DriverError naming the file
/// that could not be written. `working_directory` is what SARIF's relative URIs are relative to.
void write_report_files(const ReportFiles& files, const nlohmann::json& result,
                        const std::string& working_directory);

}  // namespace weft::driver
