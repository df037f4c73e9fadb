// Bad input never crashes weft: `weft replay` on hundreds of mutated replay files (wrong types in
// every field, absurd numbers, truncation, edited schedules, junk, files that are not files) exits
// with 2 and exactly one `weft: error:` line, within a time limit. And `weft check` removes its
// temporary directory, keeping the program beside the replay file when a bug needs it.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// One shared scratch directory: the program `weft check` built, its replay file, and a TMPDIR
// of its own so that whatever weft leaves in it is seen.
class ReplayFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "weft-replay-file-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    scratch_ = pattern;
    fs::create_directory(tmp());
    check_ = weft("check " + quote(std::string(WEFT_NATIVE_FIXTURES) + "/lost_update.c") +
                  " -q --replay-file " + quote(base_file().string()));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }

  static fs::path tmp() { return scratch_ / "tmp"; }
  static fs::path base_file() { return scratch_ / "base.json"; }

  // Runs weft with TMPDIR set to tmp(), stopped after 20 s (timeout's exit code 124 fails the
  // exit-code checks).
  static CliRun weft(const std::string& args) {
    const fs::path out = scratch_ / "stdout", err = scratch_ / "stderr";
    const std::string command = "TMPDIR=" + quote(tmp().string()) + " timeout -k 5 20 " +
                                std::string(WEFT_BIN) + " " + args + " </dev/null >" +
                                quote(out.string()) + " 2>" + quote(err.string());
    const int status = std::system(command.c_str());
    CliRun r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
  }

  static std::vector<std::string> leftovers() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(tmp())) names.push_back(e.path().filename());
    return names;
  }

  static fs::path scratch_;
  static CliRun check_;
};

fs::path ReplayFiles::scratch_;
CliRun ReplayFiles::check_;

TEST_F(ReplayFiles, CheckRemovesItsTemporaryDirectoryAndReplayUsesTheKeptProgram) {
  ASSERT_EQ(check_.exit_code, 1) << check_.out << check_.err;
  EXPECT_TRUE(leftovers().empty()) << leftovers().front();
  const fs::path kept = scratch_ / "base.bin";
  ASSERT_TRUE(fs::exists(kept));
  EXPECT_EQ(json::parse(read_text(base_file()))["program"].get<std::string>(), kept.string());
  EXPECT_NE(check_.out.find("weft replay " + base_file().string()), std::string::npos)
      << check_.out;

  const CliRun replay = weft("replay --json " + quote(base_file().string()));
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  EXPECT_TRUE(json::parse(replay.out, nullptr, false).value("reproduced", false)) << replay.out;
}

TEST_F(ReplayFiles, CheckWithoutABugOrWithACompilerErrorKeepsNothing) {
  const fs::path replay = scratch_ / "clean.json";
  const CliRun clean =
      weft("check " + quote(std::string(WEFT_NATIVE_FIXTURES) + "/locked_counter.c") +
           " -q --replay-file " + quote(replay.string()));
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_FALSE(fs::exists(replay));
  EXPECT_FALSE(fs::exists(scratch_ / "clean.bin"));
  const CliRun broken =
      weft("check " + quote(std::string(WEFT_NATIVE_FIXTURES) + "/does_not_compile.c") + " -q");
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_TRUE(leftovers().empty()) << leftovers().front();
}

// Stopped while it explores (an execution that spins until the 10 s execution timeout), weft
// check still removes its directory: timeout(1) sends SIGINT to its process group, as Ctrl-C does.
TEST_F(ReplayFiles, CheckInterruptedByCtrlCRemovesItsTemporaryDirectory) {
  const std::string source = quote(std::string(WEFT_NATIVE_FIXTURES) + "/endless_loop.c");
  const std::string command = "TMPDIR=" + quote(tmp().string()) + " timeout -s INT 3 " +
                              std::string(WEFT_BIN) + " check -q " + source +
                              " >/dev/null 2>&1 </dev/null";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 124);  // timeout's "it timed out"
  EXPECT_TRUE(leftovers().empty()) << leftovers().front();
}

// A replay file whose schedule leads into an endless loop (the thread spins on a flag that main,
// never scheduled again, would set) is stopped at the file's execution time limit.
TEST_F(ReplayFiles, ReplayOfAnEndlessExecutionStopsAtTheTimeLimit) {
  const fs::path program = scratch_ / "endless_loop";
  const std::string build = quote((fs::path(WEFT_BIN).parent_path() / "weft-cc").string()) +
                            " -O0 " + quote(std::string(WEFT_NATIVE_FIXTURES) + "/endless_loop.c") +
                            " -o " + quote(program.string());
  ASSERT_EQ(std::system(build.c_str()), 0);
  const fs::path file = scratch_ / "endless.json";
  write_text(file, json({{"weft_replay", 1},
                         {"program", program.string()},
                         {"schedule", "w1:0,0.0"},
                         {"execution_timeout", 1}})
                       .dump());
  const CliRun r = weft("replay " + quote(file.string()));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("time limit of 1 s"), std::string::npos) << r.out;
}

// ---- the mutations ---------------------------------------------------------------------------

struct Mutation {
  std::string name;
  std::string text;
  std::string field;  ///< the field the message must name ("" when the file is not JSON at all)
};

std::string with(const json& base, const std::string& field, const std::string& value_json) {
  json j = base;
  j[field] = json::parse(value_json);
  return j.dump(2);
}

std::vector<Mutation> wrong_values(const json& base) {
  // Per field, values of the wrong type, and numbers out of the field's range.
  const std::vector<std::string> not_string = {"null", "true", "0",       "-1",          "1.5",
                                               "[]",   "{}",   "[\"a\"]", "99999999999", "1e300"};
  const std::vector<std::string> not_integer = {"null",
                                                "false",
                                                "\"10\"",
                                                "1.5",
                                                "[]",
                                                "{}",
                                                "1e300",
                                                "-1e300",
                                                "[1]",
                                                "0",
                                                "-1",
                                                "99999999999",
                                                "18446744073709551615",
                                                "18446744073709551616",
                                                "10000001"};
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"weft_replay", {"null", "\"1\"", "0", "2", "-1", "1.5", "[]", "{}", "99999999999", "true"}},
      {"program",
       [&] {
         auto v = not_string;
         v.push_back("\"\"");
         v.push_back("\"a\\u0000b\"");
         v.push_back("\"" + std::string(5000, 'p') + "\"");
         return v;
       }()},
      {"args",
       {"null", "\"-v\"", "1", "{}", "[1]", "[\"a\", null]", "[[\"a\"]]", "[\"a\\u0000\"]",
        "[true]", "[{}]"}},
      {"points",
       [&] {
         auto v = not_string;
         v.push_back("\"\"");
         v.push_back("\"some\"");
         v.push_back("\"SYNC\"");
         return v;
       }()},
      {"max_steps_per_thread", not_integer},
      {"max_threads",
       [&] {
         auto v = not_integer;
         v.push_back("1000001");
         v.push_back("4294967295");
         return v;
       }()},
      {"nondet",
       {"null", "true", "\"0\"", "1.5", "[]", "{}", "1e300", "-1e300", "9223372036854775808",
        "18446744073709551615", "-9223372036854775809"}},
      {"keep_spinning", {"null", "0", "1", "\"true\"", "[]", "{}", "1.5"}},
      {"memory_checks", {"null", "0", "1", "\"true\"", "[]", "{}", "1.5"}},
      {"leaks", {"null", "0", "1", "\"true\"", "[]", "{}", "1.5"}},
      {"execution_timeout",
       {"null", "true", "\"10\"", "[]", "{}", "-1", "-0.5", "1e300", "1000001",
        "18446744073709551616"}},
      {"schedule",
       [&] {
         auto v = not_string;
         v.push_back("\"\"");
         v.push_back("\"w1\"");
         return v;
       }()},
      {"bug",
       {"null", "1", "\"bug\"", "[]", "true", "{\"kind\": 1}", "{\"message\": []}",
        "{\"message\": null}"}},
  };
  std::vector<Mutation> out;
  for (const auto& [field, values] : cases)
    for (const auto& v : values) {
      const std::string expect = field == "bug" && v.starts_with("{") && v.find("kind") != v.npos
                                     ? "bug.kind"
                                 : field == "bug" && v.starts_with("{")  ? "bug.message"
                                 : field == "args" && v.starts_with("[") ? "args["
                                                                         : field;
      out.push_back({field + " = " + v.substr(0, 40), with(base, field, v), expect});
    }
  for (const char* field : {"weft_replay", "program", "schedule"}) {
    json j = base;
    j.erase(field);
    out.push_back({std::string("no ") + field, j.dump(), j.contains("weft_replay") ? field : ""});
  }
  return out;
}

// Every strict prefix that drops the closing brace, one every 2 bytes.
std::vector<Mutation> truncations(const std::string& text) {
  std::vector<Mutation> out;
  const std::size_t close = text.rfind('}');
  for (std::size_t n = 0; n < close; n += 2)
    out.push_back({"truncated to " + std::to_string(n) + " bytes", text.substr(0, n), ""});
  return out;
}

// The recorded schedule with one step replaced by, or with an extra, malformed step.
std::vector<Mutation> edited_schedules(const json& base, std::mt19937& random) {
  const std::vector<std::string> bad_steps = {"",
                                              "x",
                                              "0*0",
                                              "0*",
                                              "*3",
                                              "0*-1",
                                              "0*1e3",
                                              "0*99999999999",
                                              "0*18446744073709551616",
                                              "1",
                                              "0.",
                                              ".0",
                                              "0..1",
                                              "0.x",
                                              "00",
                                              " 0",
                                              "0*3*3",
                                              "0.4294967296",
                                              "0\n",
                                              "w1:0",
                                              "0*10000001",
                                              "0*0x10",
                                              "0.-1",
                                              "0*+2"};
  const std::string schedule = base["schedule"].get<std::string>();
  std::vector<std::string> steps;
  std::stringstream in(schedule.substr(3));
  for (std::string step; std::getline(in, step, ',');) steps.push_back(step);
  std::vector<Mutation> out;
  for (int i = 0; i < 120; ++i) {
    auto edited = steps;
    const std::string& bad = bad_steps[random() % bad_steps.size()];
    const std::size_t at = random() % (edited.size() + 1);
    if (random() % 2 && at < edited.size())
      edited[at] = bad;
    else
      edited.insert(edited.begin() + static_cast<long>(at), bad);
    std::string text = "w1:";
    for (std::size_t k = 0; k < edited.size(); ++k) text += (k ? "," : "") + edited[k];
    json j = base;
    j["schedule"] = text;
    out.push_back({"schedule " + text, j.dump(2), "schedule"});
  }
  // The prefix, and steps that add up past the bound only together.
  for (const char* s :
       {"w2:0", "W1:0", "w1;0", "0*2,0.0", "w1:0*9999999,0*2", "w1:0*5000000,0.0*5000000,0"}) {
    json j = base;
    j["schedule"] = s;
    out.push_back({std::string("schedule ") + s, j.dump(2), "schedule"});
  }
  return out;
}

std::vector<Mutation> junk(std::mt19937& random) {
  std::vector<Mutation> out;
  for (int i = 0; i < 30; ++i) {
    std::string text(1 + random() % 64, ' ');
    for (char& c : text) c = static_cast<char>(random() % 256);
    out.push_back({"junk " + std::to_string(i), text, ""});
  }
  out.push_back({"nested 100000 deep", std::string(100000, '[') + std::string(100000, ']'), ""});
  out.push_back({"nested in a field",
                 "{\"weft_replay\":1,\"program\":\"p\",\"schedule\":\"w1:\",\"x\":" +
                     std::string(5000, '[') + std::string(5000, ']') + "}",
                 ""});
  out.push_back({"a JSON array", "[1, 2]", ""});
  out.push_back({"a JSON string", "\"w1:0\"", ""});
  out.push_back({"invalid UTF-8 in a string", "{\"weft_replay\":1,\"program\":\"\xff\"}", ""});
  return out;
}

void expect_one_error_line(const CliRun& r, const std::string& what, const std::string& field) {
  EXPECT_EQ(r.exit_code, 2) << what << "\nstderr: " << r.err;
  EXPECT_TRUE(r.err.starts_with("weft: error: ")) << what << "\nstderr: " << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << what << "\nstderr: " << r.err;
  if (!field.empty()) {
    EXPECT_NE(r.err.find("field \"" + field), std::string::npos) << what << "\nstderr: " << r.err;
  }
}

TEST_F(ReplayFiles, EveryMutatedReplayFileIsOneErrorLineAndExitCode2) {
  ASSERT_EQ(check_.exit_code, 1) << check_.err;
  const std::string text = read_text(base_file());
  const json base = json::parse(text);
  std::mt19937 random(17);
  std::vector<Mutation> mutations = wrong_values(base);
  for (const auto& more : {truncations(text), edited_schedules(base, random), junk(random)})
    mutations.insert(mutations.end(), more.begin(), more.end());
  ASSERT_GE(mutations.size(), 400u);
  const fs::path file = scratch_ / "mutated.json";
  for (const auto& m : mutations) {
    write_text(file, m.text);
    expect_one_error_line(weft("replay " + quote(file.string())), m.name, m.field);
  }
  std::printf("%zu mutated replay files, each rejected with exit code 2\n", mutations.size());
}

TEST_F(ReplayFiles, FilesThatAreNotReplayFilesOrProgramsAreOneErrorLine) {
  ASSERT_EQ(check_.exit_code, 1) << check_.err;
  const fs::path fifo = scratch_ / "fifo", big = scratch_ / "big.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  write_text(big, "");
  fs::resize_file(big, std::uintmax_t{65} << 20);  // sparse
  for (const std::string& path : {scratch_.string(), (scratch_ / "missing.json").string(),
                                  fifo.string(), std::string("/dev/zero"), big.string()})
    expect_one_error_line(weft("replay " + quote(path)), path, "");

  // Valid files whose program is missing, a directory, not executable, or not built by weft-cc.
  const json base = json::parse(read_text(base_file()));
  const fs::path plain = scratch_ / "plain";
  write_text(plain, "not a program");
  const fs::path file = scratch_ / "program.json";
  for (const std::string& program :
       {std::string("/no/such/program"), scratch_.string(), plain.string(),
        std::string("/bin/true"), std::string("/dev/null")}) {
    json j = base;
    j["program"] = program;
    write_text(file, j.dump());
    expect_one_error_line(weft("replay " + quote(file.string())), program, "");
    expect_one_error_line(weft("run -q " + quote(program)), "run " + program, "");
  }
  // The program given on the command line instead of the file's.
  expect_one_error_line(
      weft("replay " + quote(scratch_.string()) + " " + quote(base_file().string())),
      "replay DIR FILE", "");
}

// A program built by another version of weft-cc (here: its protocol marker edited) is refused
// before it is started, in one line: it would not understand how weft talks to it.
TEST_F(ReplayFiles, AProgramBuiltByAnotherVersionIsOneErrorLine) {
  ASSERT_EQ(check_.exit_code, 1) << check_.err;
  std::string bytes = read_text(scratch_ / "base.bin");
  const std::string marker = "weft-protocol-v";
  const auto at = bytes.find(marker);
  ASSERT_NE(at, std::string::npos);
  bytes[at + marker.size()] = bytes[at + marker.size()] == '0' ? '1' : '0';
  const fs::path older = scratch_ / "older.bin";
  write_text(older, bytes);
  fs::permissions(older, fs::perms::owner_all);
  const CliRun r = weft("run -q " + quote(older.string()));
  expect_one_error_line(r, "older.bin", "");
  EXPECT_NE(r.err.find("built by a different version of weft-cc: rebuild it"), std::string::npos)
      << r.err;
}

TEST_F(ReplayFiles, OptionValuesOutOfRangeAreOneErrorLine) {
  ASSERT_EQ(check_.exit_code, 1) << check_.err;
  const std::string program = quote((scratch_ / "base.bin").string());
  for (const char* option :
       {"--max-steps 0", "--max-steps 10000001", "--max-threads 0", "--max-threads 4000000000",
        "--execution-timeout -1", "--execution-timeout inf", "--execution-timeout nan",
        "--execution-timeout 1e300", "--time-limit -5", "--time-limit nan",
        "--memory-limit 18446744073709551615"})
    expect_one_error_line(weft(std::string("run -q ") + option + " " + program), option, "");
}

}  // namespace
