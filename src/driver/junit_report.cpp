#include "weft/driver/junit_report.hpp"

#include <cstdio>
#include <filesystem>

#include "weft/driver/markup.hpp"

namespace weft::driver {
namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string attribute(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + markup_escape(value) + "\"";
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  return text;
}

}  // namespace

std::string junit_report(const nlohmann::json& result) {
  // The program by its own name: `weft check` runs a temporary build of the source.
  std::string program = text_of(result, "source");
  if (program.empty()) program = text_of(result, "program");
  const std::string name = std::filesystem::path(program).filename().string();
  double seconds = 0;
  if (const auto stats = result.find("statistics"); stats != result.end())
    seconds = stats->value("seconds", 0.0);
  const nlohmann::json no_bugs = nlohmann::json::array();
  const auto found = result.find("bugs");
  const nlohmann::json& bugs = found != result.end() && found->is_array() ? *found : no_bugs;
  const std::string verdict = text_of(result, "verdict");
  const bool error = verdict == "unsupported";
  const bool skipped = bugs.empty() && !error && verdict == "incomplete";

  std::string body;
  for (const auto& bug : bugs)
    body += "    <failure" + attribute("type", text_of(bug, "kind")) +
            attribute("message", text_of(bug, "message")) + ">" +
            markup_escape(text_of(bug, "report")) + "</failure>\n";
  if (error)
    body += "    <error" + attribute("type", "unsupported") +
            attribute("message", text_of(result, "incomplete_because")) + "/>\n";
  if (skipped)
    body += "    <skipped" + attribute("message", text_of(result, "incomplete_because")) + "/>\n";

  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // The run is one test case: its failures are the bugs (counted as one failed test).
  xml += "<testsuite" + attribute("name", "weft") + attribute("tests", "1") +
         attribute("failures", bugs.empty() ? "0" : "1") + attribute("errors", error ? "1" : "0") +
         attribute("skipped", skipped ? "1" : "0") + attribute("time", seconds_text(seconds)) +
         ">\n";
  xml += "  <properties>\n";
  for (const char* key : {"verdict", "strategy", "points", "incomplete_code", "program"})
    if (!text_of(result, key).empty())
      xml += "    <property" + attribute("name", key) + attribute("value", text_of(result, key)) +
             "/>\n";
  xml += "  </properties>\n";
  xml += "  <testcase" + attribute("classname", name) +
         attribute("name", text_of(result, "strategy")) + attribute("time", seconds_text(seconds));
  xml += body.empty() ? "/>\n" : ">\n" + body + "  </testcase>\n";
  xml += "</testsuite>\n";
  return xml;
}

}  // namespace weft::driver
