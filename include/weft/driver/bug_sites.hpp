// What the report files mark as the bug in a bug of the result JSON (native_bug_json): the
// operations at the bug's step, each in its thread. Shared by the SARIF and HTML renderings so
// that both mark the same operations.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace weft::driver {

/// One operation at the bug's step.
struct BugSite {
  std::string thread;      ///< the thread's name ("" when the bug names none)
  std::string what;        ///< "read (4 bytes) by thread 0.1", "thread 0 waits to join ..."
  std::string file;        ///< "" when unknown
  std::uint32_t line = 0;  ///< 0 when unknown
  std::string function;    ///< "" when unknown
};

/// The operations of `bug` at its step: a data race's two accesses, each thread a deadlock or
/// livelock leaves stuck (`stuck`), or else the one operation the bug happened at. A site with no
/// place takes that of its thread's last step, where the thread stopped.
std::vector<BugSite> bug_sites(const nlohmann::json& bug);

/// The threads of the bug's execution in order of appearance (`threads`), with any thread a
/// step or site names that the list lacks added at the end.
std::vector<std::string> bug_threads(const nlohmann::json& bug);

}  // namespace weft::driver
