#include "weft/driver/sarif_report.hpp"

#include <filesystem>
#include <map>

#include "weft/driver/bug_sites.hpp"

namespace weft::driver {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSourceRoot = "%SRCROOT%";

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A path as a URI reference: every byte outside RFC 3986's unreserved set and '/' is
// percent-encoded (spaces, '#', '%', non-ASCII bytes of UTF-8 names).
std::string uri_path(const std::string& path) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (plain) {
      out += ch;
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

// Where the sources are, as SARIF artifact locations: relative to the working directory (base
// %SRCROOT%) when a file is under it, which is what GitHub code scanning matches against the
// repository; otherwise an absolute file:// URI.
class Artifacts {
 public:
  explicit Artifacts(const std::string& working_directory)
      : root_(fs::path(working_directory).lexically_normal()) {}

  nlohmann::json location(const std::string& file) const {
    const fs::path path = fs::path(file).lexically_normal();
    if (path.is_relative()) return {{"uri", uri_path(path.string())}, {"uriBaseId", kSourceRoot}};
    const fs::path relative = path.lexically_relative(root_);
    if (!root_.empty() && !relative.empty() && *relative.begin() != "..")
      return {{"uri", uri_path(relative.string())}, {"uriBaseId", kSourceRoot}};
    return {{"uri", "file://" + uri_path(path.string())}};
  }

  // originalUriBaseIds: what %SRCROOT% stands for (a directory URI ends with '/').
  nlohmann::json base_ids() const {
    std::string root = root_.string();
    if (root.empty() || root.back() != '/') root += '/';
    return {{kSourceRoot, {{"uri", "file://" + uri_path(root)}}}};
  }

 private:
  fs::path root_;
};

// A SARIF location for a file and line (no physical location when the file is unknown), with a
// message.
nlohmann::json location_of(const Artifacts& artifacts, const std::string& file, std::uint32_t line,
                           const std::string& function, const std::string& message) {
  nlohmann::json loc = nlohmann::json::object();
  if (!file.empty()) {
    loc["physicalLocation"] = {{"artifactLocation", artifacts.location(file)}};
    if (line > 0) loc["physicalLocation"]["region"] = {{"startLine", line}};
  }
  if (!function.empty())
    loc["logicalLocations"] = nlohmann::json::array({{{"name", function}, {"kind", "function"}}});
  if (!message.empty()) loc["message"] = {{"text", message}};
  return loc;
}

nlohmann::json site_location(const Artifacts& artifacts, const BugSite& site) {
  return location_of(artifacts, site.file, site.line, site.function, site.what);
}

std::uint32_t line_of(const nlohmann::json& step) {
  const auto line = step.find("line");
  return line != step.end() && line->is_number_unsigned() ? line->get<std::uint32_t>() : 0;
}

// The interleaving as one code flow: a thread flow per thread of the execution, each step in
// its thread's flow with executionOrder = its global step number, and the bug's operations at
// the bug's step, so that a viewer can replay the order across threads.
nlohmann::json code_flow(const nlohmann::json& bug, const std::vector<BugSite>& sites,
                         const Artifacts& artifacts) {
  std::map<std::string, nlohmann::json> flow_locations;
  if (const auto steps = bug.find("interleaving"); steps != bug.end() && steps->is_array())
    for (const auto& step : *steps) {
      nlohmann::json entry = {
          {"location", location_of(artifacts, text_of(step, "file"), line_of(step),
                                   text_of(step, "function"), text_of(step, "operation"))},
          {"executionOrder", step.value("step", 0)},
          {"importance", "important"}};
      flow_locations[text_of(step, "thread")].push_back(std::move(entry));
    }
  const auto bug_step = bug.value("bug_step", 0);
  for (const auto& site : sites)
    flow_locations[site.thread].push_back({{"location", site_location(artifacts, site)},
                                           {"executionOrder", bug_step},
                                           {"importance", "essential"}});
  nlohmann::json thread_flows = nlohmann::json::array();
  // A thread with no step and no part in the bug has nothing to show (SARIF requires at least
  // one location per thread flow).
  for (const auto& thread : bug_threads(bug)) {
    auto it = flow_locations.find(thread);
    if (it == flow_locations.end()) continue;
    thread_flows.push_back({{"id", thread},
                            {"message", {{"text", "thread " + thread}}},
                            {"locations", std::move(it->second)}});
  }
  return {{"message",
           {{"text", "The interleaving that leads to the bug: " +
                         std::to_string(bug_step > 0 ? bug_step - 1 : 0) +
                         " steps, then the bug (schedule " + text_of(bug, "schedule") + ")"}}},
          {"threadFlows", std::move(thread_flows)}};
}

// Every outcome, in the order of the enumeration (for the kind names in the JSON).
std::vector<Outcome> all_outcomes() {
  std::vector<Outcome> all;
  for (int o = 0; o <= static_cast<int>(Outcome::kLockDiscipline); ++o)
    all.push_back(static_cast<Outcome>(o));
  return all;
}

nlohmann::json rule_json(Outcome outcome) {
  const SarifRule rule = sarif_rule(outcome);
  return {{"id", rule.id},
          {"name", outcome_name(outcome)},
          {"shortDescription", {{"text", rule.description}}},
          {"fullDescription", {{"text", rule.description}}},
          {"defaultConfiguration", {{"level", "error"}}},
          {"properties", {{"tags", {"concurrency", "correctness"}}, {"precision", "high"}}}};
}

// A bug's result, without its rule (the caller knows the rules).
nlohmann::json result_json(const nlohmann::json& bug, const Artifacts& artifacts) {
  const std::string kind = text_of(bug, "kind");
  const std::vector<BugSite> sites = bug_sites(bug);
  nlohmann::json result = {
      {"level", "error"}, {"kind", "fail"}, {"message", {{"text", text_of(bug, "message")}}}};
  nlohmann::json locations = nlohmann::json::array();
  nlohmann::json primary = site_location(artifacts, sites.front());
  primary.erase("message");  // the result's message says it
  locations.push_back(std::move(primary));
  result["locations"] = std::move(locations);
  // Every operation at the bug's step, the primary one included, so that a viewer lists a
  // race's two accesses or a deadlock's blocked threads side by side.
  if (sites.size() > 1) {
    nlohmann::json related = nlohmann::json::array();
    int id = 0;
    for (const auto& site : sites) {
      nlohmann::json loc = site_location(artifacts, site);
      loc["id"] = id++;
      related.push_back(std::move(loc));
    }
    result["relatedLocations"] = std::move(related);
  }
  result["codeFlows"] = nlohmann::json::array({code_flow(bug, sites, artifacts)});
  nlohmann::json properties = {{"kind", kind},
                               {"schedule", text_of(bug, "schedule")},
                               {"bugStep", bug.value("bug_step", 0)}};
  if (!text_of(bug, "thread").empty()) properties["thread"] = text_of(bug, "thread");
  if (!text_of(bug, "replay_command").empty())
    properties["replayCommand"] = text_of(bug, "replay_command");
  if (const auto inputs = bug.find("inputs"); inputs != bug.end() && !inputs->empty())
    properties["inputs"] = *inputs;
  result["properties"] = std::move(properties);
  return result;
}

}  // namespace

SarifRule sarif_rule(Outcome outcome) {
  switch (outcome) {
    case Outcome::kComplete:
      return {"complete", "The execution completed (not a bug)."};
    case Outcome::kDeadlock:
      return {"deadlock", "Threads wait for each other forever: no thread can proceed."};
    case Outcome::kAssertionFailure:
      return {"assertion-failure", "An assertion of the program fails in some interleaving."};
    case Outcome::kUncaughtException:
      return {"uncaught-exception", "An exception escapes a thread."};
    case Outcome::kMisuse:
      return {"misuse",
              "A synchronisation primitive is misused (such as unlocking a mutex the thread "
              "does not hold)."};
    case Outcome::kBoundReached:
      return {"bound-reached", "A thread reached the step bound (not a bug)."};
    case Outcome::kSleepBlocked:
      return {"sleep-blocked", "A redundant execution was abandoned (not a bug)."};
    case Outcome::kDataRace:
      return {"data-race",
              "Two threads access the same memory, at least one writing, with no "
              "synchronisation ordering the accesses."};
    case Outcome::kCrash:
      return {"crash", "The program dies of a signal (a segmentation fault, ...)."};
    case Outcome::kUnsupported:
      return {"unsupported", "The program calls what weft does not model (not a bug)."};
    case Outcome::kDiscarded:
      return {"discarded", "The program ruled the execution out (not a bug)."};
    case Outcome::kTimeout:
      return {"timeout", "An execution ran past its time limit (not a bug)."};
    case Outcome::kSpinBlocked:
      return {"spin-blocked", "A redundant spinning execution (not a bug)."};
    case Outcome::kLivelock:
      return {"livelock",
              "A thread busy-waits forever for a value that no other thread will change."};
    case Outcome::kUseAfterFree:
      return {"use-after-free", "Heap memory is accessed after it was freed."};
    case Outcome::kHeapOverflow:
      return {"heap-overflow", "An access falls outside the heap block it was meant for."};
    case Outcome::kDoubleFree:
      return {"double-free", "A heap block is freed twice."};
    case Outcome::kInvalidFree:
      return {"invalid-free", "A pointer that is not the start of a heap block is freed."};
    case Outcome::kFreedRealloc:
      return {"realloc-of-freed", "A heap block is reallocated after it was freed."};
    case Outcome::kMismatchedFree:
      return {"mismatched-free",
              "A heap block is freed by the wrong function (new[] freed with delete...)."};
    case Outcome::kMemoryLeak:
      return {"memory-leak", "A heap block is still allocated when the program exits."};
    case Outcome::kSanitizerReport:
      return {"sanitizer-report", "A sanitizer the program was built with reports an error."};
    case Outcome::kGlobalState:
      return {"global-state",
              "The program reaches a global state where the --check-global "
              "predicate holds."};
    case Outcome::kLockDiscipline:
      return {"locking-discipline",
              "Two threads access the same memory, at least one writing, and no lock is held "
              "at every access (Eraser's lockset): they may race in some schedule."};
  }
  return {"unknown", "An unknown kind of bug."};
}

std::string sarif_report(const nlohmann::json& result, const std::string& working_directory) {
  const Artifacts artifacts(working_directory);
  // The rules: every kind of bug weft reports, found by the kind's name in the JSON.
  nlohmann::json rules = nlohmann::json::array();
  struct Rule {
    Outcome outcome;
    std::size_t index;  // in `rules`
  };
  std::map<std::string, Rule> rule_of_kind;
  for (const Outcome outcome : all_outcomes()) {
    if (!is_bug(outcome)) continue;
    rule_of_kind[outcome_name(outcome)] = {outcome, rules.size()};
    rules.push_back(rule_json(outcome));
  }
  nlohmann::json results = nlohmann::json::array();
  if (const auto bugs = result.find("bugs"); bugs != result.end() && bugs->is_array())
    for (const auto& bug : *bugs) {
      nlohmann::json r = result_json(bug, artifacts);
      if (const auto rule = rule_of_kind.find(text_of(bug, "kind")); rule != rule_of_kind.end()) {
        r["ruleId"] = sarif_rule(rule->second.outcome).id;
        r["ruleIndex"] = rule->second.index;
      } else {
        r["ruleId"] = "unknown";
      }
      results.push_back(std::move(r));
    }
  nlohmann::json driver = {{"name", "weft"},
                           {"fullName", "weft systematic concurrency tester"},
                           {"rules", std::move(rules)}};
  if (const std::string version = text_of(result, "weft_version"); !version.empty()) {
    driver["version"] = version;
    driver["semanticVersion"] = version;
  }
  const int exit_code = result.value("exit_code", 0);
  nlohmann::json run_properties = {{"verdict", text_of(result, "verdict")},
                                   {"strategy", text_of(result, "strategy")},
                                   {"points", text_of(result, "points")},
                                   {"complete", result.value("complete", false)}};
  if (!text_of(result, "incomplete_because").empty()) {
    run_properties["incompleteBecause"] = text_of(result, "incomplete_because");
    run_properties["incompleteCode"] = text_of(result, "incomplete_code");
  }
  nlohmann::json run = {
      {"tool", {{"driver", std::move(driver)}}},
      {"originalUriBaseIds", artifacts.base_ids()},
      // The run itself succeeded unless weft could not give a verdict (exit code 2).
      {"invocations",
       nlohmann::json::array({{{"executionSuccessful", exit_code != 2}, {"exitCode", exit_code}}})},
      {"results", std::move(results)},
      {"properties", std::move(run_properties)}};
  const nlohmann::json log = {{"$schema",
                               "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                               "sarif-schema-2.1.0.json"},
                              {"version", "2.1.0"},
                              {"runs", nlohmann::json::array({std::move(run)})}};
  return log.dump(2) + "\n";
}

}  // namespace weft::driver
