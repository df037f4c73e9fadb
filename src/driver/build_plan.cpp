#include "weft/driver/build_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

namespace weft::driver {

namespace {

constexpr const char* kHeader = "weft build plan 1\n";          // a template
constexpr const char* kPlanHeader = "weft build commands 1\n";  // a plan filled in
constexpr char kSeparator = '\x1f';  // between the arguments of a command, one command a line
constexpr const char* kDir = "{weft:dir}";
constexpr const char* kSource = "{weft:source}";
constexpr const char* kSourceName = "{weft:source-name}";
constexpr const char* kProgram = "{weft:program}";

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

bool is_compile(const std::vector<std::string>& command) {
  return command.size() > 2 && command[1] == "-cc1";
}

// The argument after `flag` in `command`, if any.
const std::string* argument_after(const std::vector<std::string>& command,
                                  const std::string& flag) {
  auto at = std::find(command.begin(), command.end(), flag);
  return at == command.end() || at + 1 == command.end() ? nullptr : &*(at + 1);
}

}  // namespace

std::optional<BuildPlan> parse_driver_plan(const std::string& text) {
  BuildPlan plan;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    // The driver's other lines (its version, target, thread model, installed directory) do not
    // start with a quoted argument.
    if (!line.starts_with(" \"")) continue;
    std::vector<std::string> command;
    std::size_t i = 0;
    while (i < line.size()) {
      if (line[i] == ' ') {
        ++i;
        continue;
      }
      if (line[i] != '"') return std::nullopt;
      std::string arg;
      bool closed = false;
      for (++i; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size()) {
          arg += line[++i];
        } else if (line[i] == '"') {
          closed = true;
          ++i;
          break;
        } else {
          arg += line[i];
        }
      }
      if (!closed) return std::nullopt;
      command.push_back(std::move(arg));
    }
    if (command.empty()) return std::nullopt;
    plan.commands.push_back(std::move(command));
  }
  if (plan.commands.empty()) return std::nullopt;
  return plan;
}

std::optional<std::string> plan_template(const BuildPlan& plan, const PlanPaths& paths) {
  const auto& commands = plan.commands;
  if (commands.size() < 2 || paths.dir.size() < 2 || paths.source.empty()) return std::nullopt;
  // Compiles, each to a temporary object of the driver's choosing, then one link of them.
  std::vector<std::string> temporaries;
  std::size_t compiles_of_source = 0;
  for (std::size_t c = 0; c + 1 < commands.size(); ++c) {
    if (!is_compile(commands[c])) return std::nullopt;
    const std::string* object = argument_after(commands[c], "-o");
    if (!object || object->find(paths.dir) != std::string::npos) return std::nullopt;
    temporaries.push_back(*object);
    compiles_of_source += commands[c].back() == paths.source;
  }
  const auto& link = commands.back();
  if (is_compile(link) || compiles_of_source != 1) return std::nullopt;
  const std::set<std::string> distinct(temporaries.begin(), temporaries.end());
  if (distinct.size() != temporaries.size()) return std::nullopt;
  for (const auto& object : temporaries)
    if (std::count(link.begin(), link.end(), object) != 1) return std::nullopt;

  const std::string source_name = file_name(paths.source);
  const std::string stem = std::filesystem::path(paths.source).stem().string();
  std::string text = kHeader;
  for (const auto& command : commands) {
    std::string line;
    for (std::size_t a = 0; a < command.size(); ++a) {
      std::string arg = command[a];
      if (arg.find('\n') != std::string::npos || arg.find(kSeparator) != std::string::npos ||
          arg.find("{weft:") != std::string::npos)
        return std::nullopt;
      if (a > 0 && command[a - 1] == "-main-file-name" && arg == source_name) {
        arg = kSourceName;
      } else if (arg == paths.source) {
        arg = kSource;
      } else if (arg == paths.program) {
        arg = kProgram;
      } else {
        for (std::size_t t = 0; t < temporaries.size(); ++t)
          replace_all(arg, temporaries[t],
                      std::string(kDir) + "/weft-object-" + std::to_string(t) + ".o");
        replace_all(arg, paths.dir, kDir);
        // What is left of the source in an argument would tie the plan to this source.
        if (arg == source_name || arg == stem ||
            arg.find(std::string(kDir) + "/" + stem) != std::string::npos)
          return std::nullopt;
      }
      if (a > 0) line += kSeparator;
      line += arg;
    }
    text += line + "\n";
  }
  return text;
}

namespace {

// The commands of `text` after `header`, each argument passed through `filled`.
template <class Fill>
std::optional<BuildPlan> read_lines(const std::string& text, const std::string& header,
                                    Fill filled) {
  if (!text.starts_with(header)) return std::nullopt;
  BuildPlan plan;
  std::istringstream lines(text.substr(header.size()));
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> command;
    std::istringstream args(line);
    std::string arg;
    while (std::getline(args, arg, kSeparator)) command.push_back(filled(std::move(arg)));
    if (command.empty() || command[0].empty()) return std::nullopt;
    plan.commands.push_back(std::move(command));
  }
  if (plan.commands.empty()) return std::nullopt;
  return plan;
}

}  // namespace

std::optional<BuildPlan> fill_plan(const std::string& text, const PlanPaths& paths) {
  const std::string source_name = file_name(paths.source);
  auto plan = read_lines(text, kHeader, [&](std::string arg) {
    if (arg == kSource) return paths.source;
    if (arg == kProgram) return paths.program;
    if (arg == kSourceName) return source_name;
    replace_all(arg, kDir, paths.dir);
    return arg;
  });
  if (!plan || plan->commands.size() < 2) return std::nullopt;
  return plan;
}

std::optional<std::string> plan_text(const BuildPlan& plan) {
  std::string text = kPlanHeader;
  for (const auto& command : plan.commands) {
    for (std::size_t a = 0; a < command.size(); ++a) {
      if (command[a].find('\n') != std::string::npos ||
          command[a].find(kSeparator) != std::string::npos)
        return std::nullopt;
      if (a > 0) text += kSeparator;
      text += command[a];
    }
    text += "\n";
  }
  return text;
}

std::optional<BuildPlan> read_plan(const std::string& text) {
  return read_lines(text, kPlanHeader, [](std::string arg) { return arg; });
}

}  // namespace weft::driver
