#include "weft/driver/html_report.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

#include "weft/driver/bug_sites.hpp"
#include "weft/driver/markup.hpp"

namespace weft::driver {
namespace {

constexpr int kContextLines = 3;  // source lines shown above and below a step's line

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint32_t line_of(const nlohmann::json& j) {
  const auto line = j.find("line");
  return line != j.end() && line->is_number_unsigned() ? line->get<std::uint32_t>() : 0;
}

std::string attribute(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + markup_escape(value) + "\"";
}

// "file.c:12 (function)", the file by its name only, as the text report shows it.
std::string place_text(const std::string& file, std::uint32_t line, const std::string& function) {
  if (file.empty()) return "";
  std::string s = std::filesystem::path(file).filename().string();
  if (line > 0) s += ":" + std::to_string(line);
  if (!function.empty()) s += " (" + function + ")";
  return s;
}

// The windows of source lines the page embeds, one per distinct file and line, each read once
// when the report is written (the page must not depend on files that may change or be gone).
class SourceWindows {
 public:
  // The id of the window around `line` of `file` ("" when there is no place).
  std::string window(const std::string& file, std::uint32_t line) {
    if (file.empty() || line == 0) return "";
    const auto key = std::make_pair(file, line);
    if (auto it = ids_.find(key); it != ids_.end()) return it->second;
    const std::string id = "src-" + std::to_string(ids_.size() + 1);
    ids_[key] = id;
    html_ += render(id, file, line);
    return id;
  }
  // The line itself, trimmed, for a tooltip ("" when unreadable).
  std::string line_text(const std::string& file, std::uint32_t line) {
    const File& f = read(file);
    if (!f.lines || line == 0 || line > f.lines->size()) return "";
    const std::string& text = (*f.lines)[line - 1];
    const std::size_t start = text.find_first_not_of(" \t");
    return start == std::string::npos ? "" : text.substr(start);
  }
  const std::string& html() const { return html_; }

 private:
  struct File {
    std::optional<std::vector<std::string>> lines;
    std::string error;
  };

  const File& read(const std::string& path) {
    auto it = files_.find(path);
    if (it != files_.end()) return it->second;
    File f;
    std::ifstream in(path);
    if (!in) {
      f.error = std::strerror(errno);
    } else {
      f.lines.emplace();
      for (std::string line; std::getline(in, line);) f.lines->push_back(line);
    }
    return files_.emplace(path, std::move(f)).first->second;
  }

  std::string render(const std::string& id, const std::string& file, std::uint32_t line) {
    const File& f = read(file);
    std::string out = "<div class=\"source-window\"" + attribute("id", id) +
                      attribute("data-file", file) + attribute("data-line", std::to_string(line)) +
                      " hidden>\n";
    out += "<div class=\"source-file\">" + markup_escape(file) + ":" + std::to_string(line) +
           "</div>\n";
    if (!f.lines || line > f.lines->size()) {
      const std::string why =
          f.lines ? "it has only " + std::to_string(f.lines->size()) + " lines" : f.error;
      out += "<p class=\"source-missing\">The source is not shown: cannot read " +
             markup_escape(file) + " (" + markup_escape(why) + ") when the report was written.</p>";
    } else {
      const std::uint32_t first = line > kContextLines ? line - kContextLines : 1;
      const std::uint32_t last = std::min<std::uint32_t>(
          line + kContextLines, static_cast<std::uint32_t>(f.lines->size()));
      out += "<pre class=\"source-lines\">";
      for (std::uint32_t n = first; n <= last; ++n) {
        char number[16];
        std::snprintf(number, sizeof number, "%5u ", n);
        out += std::string("<span class=\"") + (n == line ? "source-line current" : "source-line") +
               "\">" + number + markup_escape((*f.lines)[n - 1]) + "</span>";
      }
      out += "</pre>";
    }
    return out + "\n</div>\n";
  }

  std::map<std::string, File> files_;
  std::map<std::pair<std::string, std::uint32_t>, std::string> ids_;
  std::string html_;
};

// A table cell for one operation in its thread's column.
std::string operation_cell(const std::string& thread, const std::string& operation,
                           const std::string& file, std::uint32_t line, const std::string& function,
                           const std::string& extra_class, SourceWindows& sources) {
  std::string cell = "<td class=\"op" + extra_class + "\"" + attribute("data-thread", thread);
  const std::string window = sources.window(file, line);
  if (!window.empty())
    cell += attribute("data-source", window) + attribute("title", sources.line_text(file, line)) +
            " tabindex=\"0\"";
  cell += "><span class=\"operation\">" + markup_escape(operation) + "</span>";
  const std::string where = place_text(file, line, function);
  if (!where.empty()) cell += "<span class=\"where\">" + markup_escape(where) + "</span>";
  return cell + "</td>";
}

// One row: the step number, then one cell per thread, `cells` in their threads' columns.
std::string row(const std::string& row_class, const std::string& step,
                const std::vector<std::string>& threads,
                const std::map<std::string, std::string>& cells) {
  std::string out = "<tr class=\"" + row_class + "\"" + attribute("data-step", step) + ">";
  out += "<td class=\"step-number\">" + markup_escape(step) + "</td>";
  for (const auto& t : threads) {
    auto it = cells.find(t);
    out += it != cells.end() ? it->second : "<td class=\"idle\"></td>";
  }
  return out + "</tr>\n";
}

std::string copyable(const char* css_class, const std::string& text) {
  return "<div class=\"copyable\"><code class=\"" + std::string(css_class) + "\">" +
         markup_escape(text) +
         "</code><button type=\"button\" class=\"copy\">Copy</button></div>\n";
}

std::string inputs_table(const nlohmann::json& bug) {
  const auto inputs = bug.find("inputs");
  if (inputs == bug.end() || !inputs->is_array() || inputs->empty())
    return "<p class=\"no-inputs\">The execution read no inputs.</p>\n";
  std::string out =
      "<table class=\"inputs\"><thead><tr><th>Input</th><th>Thread</th><th>Value</th>"
      "<th>Hex</th><th>Type</th></tr></thead><tbody>\n";
  for (const auto& in : *inputs) {
    const std::string type = std::string(in.value("signed", false) ? "int" : "uint") +
                             std::to_string(in.value("bits", 0));
    out += "<tr class=\"input\"><td>" + markup_escape(text_of(in, "name")) + "</td><td>" +
           markup_escape(text_of(in, "thread")) + "</td><td class=\"input-value\">" +
           markup_escape(in.contains("value") ? in["value"].dump() : "") + "</td><td>" +
           markup_escape(text_of(in, "hex")) + "</td><td>" + markup_escape(type) + "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string bug_section(const nlohmann::json& bug, std::size_t number, SourceWindows& sources) {
  const std::vector<std::string> threads = bug_threads(bug);
  const std::vector<BugSite> sites = bug_sites(bug);
  const std::string kind = text_of(bug, "kind");
  std::string out = "<section class=\"bug\"" + attribute("id", "bug-" + std::to_string(number)) +
                    attribute("data-bug", std::to_string(number)) + attribute("data-kind", kind) +
                    ">\n";
  out += "<h2>Bug " + std::to_string(number) + ": " + markup_escape(kind) + "</h2>\n";
  out += "<p class=\"message\">" + markup_escape(text_of(bug, "message")) + "</p>\n";

  out +=
      "<div class=\"lanes\"><table class=\"interleaving\"><thead><tr><th "
      "class=\"step-number\">Step</th>";
  for (const auto& t : threads)
    out += "<th class=\"thread-column\"" + attribute("data-thread", t) + ">thread " +
           markup_escape(t) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  if (const auto steps = bug.find("interleaving"); steps != bug.end() && steps->is_array())
    for (const auto& step : *steps) {
      const std::string thread = text_of(step, "thread");
      out += row("step", std::to_string(step.value("step", 0)), threads,
                 {{thread, operation_cell(thread, text_of(step, "operation"), text_of(step, "file"),
                                          line_of(step), text_of(step, "function"), "", sources)}});
    }
  // The bug's own step: the operations that make the bug, in their threads' columns; with more
  // than one (a race's accesses, a deadlock's waits), each is a related step of the others.
  std::map<std::string, std::string> bug_cells;
  const std::string related = sites.size() > 1 ? " bug-op related-step" : " bug-op";
  for (const auto& site : sites) {
    std::string& cell = bug_cells[site.thread];
    if (!cell.empty()) continue;  // one cell per thread (a thread is in one place)
    // A bug of one thread is its message, printed above the table: its cell names the kind.
    const std::string what = site.what == text_of(bug, "message") ? kind : site.what;
    cell = operation_cell(site.thread, what, site.file, site.line, site.function, related, sources);
  }
  out += row("step bug-step", std::to_string(bug.value("bug_step", 0)), threads, bug_cells);
  out += "</tbody></table></div>\n";
  out += "<p class=\"legend\">The last row is the bug" +
         std::string(sites.size() > 1
                         ? "; its operations (highlighted together) are " +
                               std::string(kind == "data race" ? "the two racing accesses"
                                                               : "what each thread is stuck in")
                         : std::string()) +
         ". Click or hover over a step to see its source lines.</p>\n";

  out += "<h3>Inputs</h3>\n" + inputs_table(bug);
  out += "<h3>Schedule</h3>\n" + copyable("schedule", text_of(bug, "schedule"));
  if (!text_of(bug, "replay_command").empty())
    out += "<h3>Replay</h3>\n" + copyable("replay-command", text_of(bug, "replay_command"));
  else
    out +=
        "<p class=\"no-replay\">The replay file holds another bug of this run; this bug's "
        "schedule above reproduces it.</p>\n";
  if (!text_of(bug, "report").empty())
    out += "<details class=\"text-report\"><summary>Text report</summary><pre>" +
           markup_escape(text_of(bug, "report")) + "</pre></details>\n";
  return out + "</section>\n";
}

std::string summary(const nlohmann::json& result, std::size_t bugs) {
  const std::string verdict = text_of(result, "verdict");
  std::string words;
  if (bugs > 0)
    words = std::to_string(bugs) + (bugs == 1 ? " bug found" : " bugs found");
  else if (verdict == "no bug")
    words = "No bug found; every behaviour was explored";
  else if (verdict == "incomplete")
    words = "No bug found, but the exploration is incomplete";
  else
    words = "No verdict";
  std::string out = "<p class=\"verdict\"" + attribute("data-verdict", verdict) + ">" +
                    markup_escape(words) + "</p>\n";
  out += "<ul class=\"run\">";
  const auto item = [&](const char* term, const std::string& value) {
    if (!value.empty())
      out += "<li><b>" + std::string(term) + ":</b> " + markup_escape(value) + "</li>";
  };
  item("Program",
       text_of(result, "source").empty() ? text_of(result, "program") : text_of(result, "source"));
  item("Strategy", text_of(result, "strategy"));
  item("Scheduling points", text_of(result, "points"));
  if (const auto stats = result.find("statistics"); stats != result.end()) {
    item("Executions", std::to_string(stats->value("executions", 0)));
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f s", stats->value("seconds", 0.0));
    item("Time", seconds);
  }
  item("Incomplete because", text_of(result, "incomplete_because"));
  item("weft", text_of(result, "weft_version"));
  return out + "</ul>\n";
}

}  // namespace

std::string html_report(const nlohmann::json& result) {
  const nlohmann::json no_bugs = nlohmann::json::array();
  const auto found = result.find("bugs");
  const nlohmann::json& bugs = found != result.end() && found->is_array() ? *found : no_bugs;
  std::string program = text_of(result, "source");
  if (program.empty()) program = text_of(result, "program");
  const std::string name = std::filesystem::path(program).filename().string();

  SourceWindows sources;
  std::string sections;
  for (std::size_t i = 0; i < bugs.size(); ++i) sections += bug_section(bugs[i], i + 1, sources);

  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += "<title>weft: " + markup_escape(name) + "</title>\n<style>\n" +
          std::string(html_report_style()) + "</style>\n</head>\n<body>\n";
  page += "<header><h1>weft: " + markup_escape(name) + "</h1>\n" + summary(result, bugs.size()) +
          "</header>\n";
  page += "<div class=\"layout\"><main>\n" + sections + "</main>\n";
  page +=
      "<aside id=\"source-panel\"><div class=\"panel-title\">Source</div><div "
      "id=\"source-view\"><p class=\"hint\">Click or hover over a step to see its source "
      "lines.</p></div></aside></div>\n";
  page += "<div id=\"sources\" hidden>\n" + sources.html() + "</div>\n";
  page += "<script>\n" + std::string(html_report_script()) + "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace weft::driver
