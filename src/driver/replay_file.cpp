#include "weft/driver/replay_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "weft/driver/option_checks.hpp"
#include "weft/trace/one_line.hpp"
#include "weft/trace/wire.hpp"

namespace weft::driver {
namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;
// Real replay files nest two levels deep; a bound keeps the parser's own stack small whatever
// the input claims.
constexpr int kMaxDepth = 16;
// execve's limits (MAX_ARG_STRLEN, and well under ARG_MAX for the whole argument list): longer
// arguments could only fail to run, after the file was accepted.
constexpr std::size_t kMaxArgBytes = std::size_t{128} << 10;
constexpr std::size_t kMaxArgsBytes = std::size_t{1} << 20;
// Race-directed scheduling points: one pair of instructions per race found in a run.
constexpr std::size_t kMaxPromotedSites = 100000;
constexpr std::size_t kMaxPathBytes = 4096;

struct TooDeep {};

// Checks one file's fields; every message names the file and the field's JSON path.
class Checker {
 public:
  explicit Checker(const std::string& file_name) : file_(one_line(file_name, 120)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw DriverError("replay file " + file_ + ": field \"" + field + "\" " + what);
  }
  [[noreturn]] void fail_file(const std::string& what) const {
    throw DriverError("replay file " + file_ + ": " + what);
  }

  const json& require(const json& object, const char* field) const {
    const auto it = object.find(field);
    if (it == object.end()) fail(field, "is missing");
    return *it;
  }

  std::string string(const json& value, const std::string& field, std::size_t max_bytes) const {
    if (!value.is_string()) fail(field, "must be a string (it is " + kind(value) + ")");
    const auto& s = value.get_ref<const std::string&>();
    if (s.size() > max_bytes)
      fail(field, "is " + std::to_string(s.size()) + " bytes long (at most " +
                      std::to_string(max_bytes) + ")");
    return s;
  }

  // A string handed to execve: a NUL byte would silently cut it short.
  std::string c_string(const json& value, const std::string& field, std::size_t max_bytes) const {
    std::string s = string(value, field, max_bytes);
    if (s.find('\0') != std::string::npos) fail(field, "contains a NUL character");
    return s;
  }

  // An integer in [lo, hi]; floats are refused rather than rounded.
  std::int64_t integer(const json& value, const std::string& field, std::int64_t lo,
                       std::int64_t hi) const {
    const std::string range =
        "between " + std::to_string(lo) + " and " + std::to_string(hi) + " (it is ";
    if (value.is_number_unsigned()) {
      const auto v = value.get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(hi) || (lo > 0 && v < static_cast<std::uint64_t>(lo)))
        fail(field, "must be an integer " + range + std::to_string(v) + ")");
      return static_cast<std::int64_t>(v);
    }
    if (value.is_number_integer()) {
      const auto v = value.get<std::int64_t>();
      if (v < lo || v > hi) fail(field, "must be an integer " + range + std::to_string(v) + ")");
      return v;
    }
    fail(field, "must be an integer " + range + kind(value) + ")");
  }

  double seconds(const json& value, const std::string& field) const {
    const std::string range = "must be a number of seconds between 0 and " +
                              std::to_string(static_cast<int>(kMaxSeconds)) + " (it is ";
    if (!value.is_number()) fail(field, range + kind(value) + ")");
    const double v = value.get<double>();
    if (!(v >= 0 && v <= kMaxSeconds)) fail(field, range + one_line(value.dump(), 40) + ")");
    return v;
  }

  bool boolean(const json& value, const std::string& field) const {
    if (!value.is_boolean()) fail(field, "must be true or false (it is " + kind(value) + ")");
    return value.get<bool>();
  }

  static std::string kind(const json& value) {
    if (value.is_number_float()) return "a fractional number";
    if (value.is_number()) return "a number";
    if (value.is_string()) return "a string";
    if (value.is_boolean()) return "a boolean";
    if (value.is_null()) return "null";
    if (value.is_array()) return "an array";
    return "an object";
  }

 private:
  std::string file_;
};

json parse_json(std::string_view text, const Checker& check) {
  try {
    // The callback sees each value as it starts; throwing stops the parser before it goes deeper.
    return json::parse(text.begin(), text.end(), [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    check.fail_file("is not a weft replay file (JSON nested deeper than " +
                    std::to_string(kMaxDepth) + " levels)");
  } catch (const json::exception& e) {
    // A syntax error, or a number too large for a double (out_of_range 406). nlohmann's text
    // after its "[json.exception.parse_error.101] " tag says where and why.
    std::string why = e.what();
    if (const auto tag = why.find("] "); tag != std::string::npos) why.erase(0, tag + 2);
    check.fail_file("is not valid JSON (" + one_line(why, 160) + ")");
  }
}

}  // namespace

std::string replay_file_text(const ReplayFile& file) {
  json j = {{"weft_replay", kFormatVersion},
            {"program", file.program},
            {"args", file.args},
            {"points", file.options.points},
            {"memory_model", file.options.memory_model},
            {"max_steps_per_thread", file.options.max_steps_per_thread},
            {"max_threads", file.options.max_threads},
            {"nondet", file.options.nondet_value},
            {"explore_inputs", file.options.explore_inputs},
            {"track_inputs", file.track_inputs},
            {"keep_spinning", file.options.keep_spinning},
            {"lockset", file.options.lockset},
            {"memory_checks", file.options.memory_checks},
            {"leaks", file.options.leaks},
            {"promoted_sites", file.options.promoted_sites},
            {"execution_timeout", file.options.execution_seconds},
            {"schedule", file.schedule},
            {"bug", {{"kind", file.bug_kind}, {"message", file.bug_message}}}};
  if (!file.check_global.empty()) {
    j["bug"]["check_global"] = file.check_global;
    j["bug"]["global_steps"] = file.global_steps;
  }
  // The program's messages may hold any bytes; replace invalid UTF-8 rather than fail to write.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

ReplayFile parse_replay_file(std::string_view text, const std::string& file_name,
                             ThreadRegistry& threads, TestDirective& test) {
  const Checker check(file_name);
  const json j = parse_json(text, check);
  if (!j.is_object())
    check.fail_file("is not a weft replay file (it is " + Checker::kind(j) +
                    ", not a JSON object)");
  if (!j.contains("weft_replay"))
    check.fail_file("is not a weft replay file (it has no \"weft_replay\" field)");
  if (const json& version = j["weft_replay"]; version != kFormatVersion)
    check.fail("weft_replay",
               "must be " + std::to_string(kFormatVersion) +
                   ", the format version this weft reads (it is " +
                   one_line(version.dump(-1, ' ', false, json::error_handler_t::replace), 40) +
                   ")");

  ReplayFile r;
  r.program = check.c_string(check.require(j, "program"), "program", kMaxPathBytes);
  if (r.program.empty()) check.fail("program", "is empty (it names the program to run)");

  if (const auto it = j.find("args"); it != j.end()) {
    if (!it->is_array())
      check.fail("args", "must be an array of strings (it is " + Checker::kind(*it) + ")");
    std::size_t total = 0;
    for (std::size_t i = 0; i < it->size(); ++i) {
      r.args.push_back(check.c_string((*it)[i], "args[" + std::to_string(i) + "]", kMaxArgBytes));
      total += r.args.back().size() + 1;
      if (total > kMaxArgsBytes)
        check.fail("args", "are longer than " + std::to_string(kMaxArgsBytes) +
                               " bytes together (more than a program can be started with)");
    }
  }

  // Absent from files older than the memory models: those ran under sequential consistency.
  if (const auto it = j.find("memory_model"); it != j.end()) {
    r.options.memory_model = check.string(*it, "memory_model", 16);
    if (!parse_memory_model(r.options.memory_model))
      check.fail("memory_model", "must be \"sc\", \"tso\" or \"rc11\" (it is \"" +
                                     one_line(r.options.memory_model) + "\")");
  }
  if (const auto it = j.find("points"); it != j.end()) {
    r.options.points = check.string(*it, "points", 16);
    if (r.options.points != "sync" && r.options.points != "all")
      check.fail("points",
                 "must be \"sync\" or \"all\" (it is \"" + one_line(r.options.points) + "\")");
  }
  // The same bounds as the command line's --max-steps and --max-threads.
  if (const auto it = j.find("max_steps_per_thread"); it != j.end())
    r.options.max_steps_per_thread =
        static_cast<std::uint32_t>(check.integer(*it, "max_steps_per_thread", 1, kMaxStepsBound));
  if (const auto it = j.find("max_threads"); it != j.end())
    r.options.max_threads =
        static_cast<std::uint32_t>(check.integer(*it, "max_threads", 1, kMaxThreadsBound));
  if (const auto it = j.find("nondet"); it != j.end())
    r.options.nondet_value = check.integer(*it, "nondet", std::numeric_limits<std::int64_t>::min(),
                                           std::numeric_limits<std::int64_t>::max());
  if (const auto it = j.find("explore_inputs"); it != j.end())
    r.options.explore_inputs = check.boolean(*it, "explore_inputs");
  if (const auto it = j.find("track_inputs"); it != j.end())
    r.track_inputs = check.boolean(*it, "track_inputs");
  test.track_inputs = r.track_inputs;
  if (const auto it = j.find("keep_spinning"); it != j.end())
    r.options.keep_spinning = check.boolean(*it, "keep_spinning");
  if (const auto it = j.find("lockset"); it != j.end()) {
    r.options.lockset = check.boolean(*it, "lockset");
    r.options.record_segments = r.options.lockset && r.options.points != "all";
  }
  if (const auto it = j.find("memory_checks"); it != j.end())
    r.options.memory_checks = check.boolean(*it, "memory_checks");
  if (const auto it = j.find("leaks"); it != j.end()) r.options.leaks = check.boolean(*it, "leaks");
  if (const auto it = j.find("promoted_sites"); it != j.end()) {
    if (!it->is_array())
      check.fail("promoted_sites",
                 "must be an array of code addresses (it is " + Checker::kind(*it) + ")");
    if (it->size() > kMaxPromotedSites)
      check.fail("promoted_sites",
                 "lists more than " + std::to_string(kMaxPromotedSites) + " code addresses");
    for (std::size_t i = 0; i < it->size(); ++i)
      r.options.promoted_sites.push_back(static_cast<std::uint64_t>(
          check.integer((*it)[i], "promoted_sites[" + std::to_string(i) + "]", 0,
                        std::numeric_limits<std::int64_t>::max())));
  }
  if (const auto it = j.find("execution_timeout"); it != j.end())
    r.options.execution_seconds = check.seconds(*it, "execution_timeout");

  r.schedule = check.string(check.require(j, "schedule"), "schedule", kMaxReplayFileBytes);
  try {
    EncodedTest decoded = decode_test(r.schedule, threads);
    test.prefix = std::move(decoded.schedule);
    test.inputs = std::move(decoded.inputs);
    test.choices = std::move(decoded.choices);
    // Every option offered, as the exploration of graphs offers them: option 0 is the newest
    // store either way, so a schedule of any strategy keeps its meaning.
    test.every_option = true;
  } catch (const WireError& e) {
    check.fail("schedule", "is malformed: " + one_line(e.what()));
  }

  if (const auto it = j.find("bug"); it != j.end()) {
    if (!it->is_object()) check.fail("bug", "must be an object (it is " + Checker::kind(*it) + ")");
    if (const auto kind = it->find("kind"); kind != it->end())
      r.bug_kind = check.string(*kind, "bug.kind", kMaxReplayFileBytes);
    if (const auto message = it->find("message"); message != it->end())
      r.bug_message = check.string(*message, "bug.message", kMaxReplayFileBytes);
    if (const auto global = it->find("check_global"); global != it->end()) {
      r.check_global = check.string(*global, "bug.check_global", kMaxReplayFileBytes);
      r.global_steps = static_cast<std::uint64_t>(
          check.integer(check.require(*it, "global_steps"), "bug.global_steps", 0,
                        static_cast<std::int64_t>(test.prefix.size())));
    }
  }
  return r;
}

ReplayFile load_replay_file(const std::string& path, ThreadRegistry& threads, TestDirective& test) {
  const std::string shown = one_line(path, 120);
  // Look before opening: a directory, a FIFO or /dev/zero would fail late, block or never end.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw DriverError("cannot open the replay file " + shown + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw DriverError("the replay file " + shown + " is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw DriverError("the replay file " + shown + " is not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxReplayFileBytes)
    throw DriverError("replay file " + shown + ": it is " + std::to_string(st.st_size) +
                      " bytes long; a weft replay file is at most " +
                      std::to_string(kMaxReplayFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DriverError("cannot open the replay file " + shown + ": " + std::strerror(errno));
  // Read what stat saw plus a byte, to notice a file that grew since past the bound.
  std::string text(static_cast<std::size_t>(st.st_size) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw DriverError("cannot read the replay file " + shown);
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxReplayFileBytes)
    throw DriverError("replay file " + shown + ": it is longer than " +
                      std::to_string(kMaxReplayFileBytes) + " bytes");
  return parse_replay_file(text, path, threads, test);
}

}  // namespace weft::driver
