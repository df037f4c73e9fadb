#include "weft/driver/commands.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "weft/driver/bug_parts.hpp"
#include "weft/driver/global_check.hpp"
#include "weft/driver/json_stream.hpp"
#include "weft/driver/native_report.hpp"
#include "weft/driver/one_line.hpp"
#include "weft/driver/option_checks.hpp"
#include "weft/driver/replay_file.hpp"
#include "weft/driver/report.hpp"
#include "weft/driver/symbolizer.hpp"
#include "weft/driver/temporary_directory.hpp"
#include "weft/driver/verdict_text.hpp"
#include "weft/explore/exploration.hpp"
#include "weft/explore/thread_model.hpp"
#include "weft/explore/verdict.hpp"
#include "weft/trace/wire.hpp"

namespace weft::driver {
namespace {

namespace fs = std::filesystem;

/// The progress line on stderr, for runs longer than a second: rewritten in place on a
/// terminal, a line every few seconds otherwise. `time_limit` (seconds, 0: none) adds the time
/// left.
class Progress {
 public:
  Progress(bool enabled, double time_limit)
      : enabled_(enabled), tty_(isatty(2)), time_limit_(time_limit) {}
  void update(const explorer::Statistics& s) {
    if (!enabled_ || s.seconds < 1) return;
    const double gap = tty_ ? 0.25 : 5;
    if (shown_ && s.seconds - last_ < gap) return;
    last_ = s.seconds;
    shown_ = true;
    std::fprintf(stderr, tty_ ? "\r%s\x1b[K" : "%s\n", format_progress(s, time_limit_).c_str());
  }
  void finish() {
    if (enabled_ && tty_ && shown_) std::fprintf(stderr, "\r\x1b[K");
  }

 private:
  bool enabled_, tty_;
  double time_limit_;
  bool shown_ = false;
  double last_ = 0;
};

std::string default_replay_file(const std::string& program) {
  return "weft-replay-" + fs::path(program).filename().string() + ".json";
}

std::string shell_word(const std::string& s) {
  if (s.find_first_of(" '\"\\$`") == std::string::npos && !s.empty()) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `weft check` builds the program in a temporary directory that it removes: the replay file
// needs a copy that stays, beside it and named after it ("weft-replay-x.json" keeps
// "weft-replay-x.bin").
std::string keep_program_beside(const std::string& replay_path, const std::string& program) {
  fs::path kept = fs::path(replay_path).replace_extension(".bin");
  if (kept == fs::path(replay_path)) kept += ".bin";
  std::error_code ec;
  fs::copy_file(program, kept, fs::copy_options::overwrite_existing, ec);
  if (ec)
    throw DriverError("cannot keep the program for the replay file at '" + kept.string() +
                      "': " + ec.message());
  return fs::absolute(kept).string();
}

void write_replay_file(const std::string& path, const std::string& program_path,
                       const Program& program, const explorer::FoundBug& bug,
                       const ThreadRegistry& threads, const std::string& message,
                       const std::string& check_global) {
  ReplayFile file;
  file.program = program_path;
  file.args = program.args;
  file.options = program.options;
  file.schedule = encode_test(bug.schedule, bug.trace.symbolic.values(), threads);
  file.track_inputs = bug.trace.symbolic.tracked;
  file.bug_kind = outcome_name(bug.outcome);
  file.bug_message = message;
  if (bug.outcome == Outcome::kGlobalState) {
    file.check_global = check_global;
    file.global_steps = bug.step;
  }
  std::ofstream out(path);
  out << replay_file_text(file);
  if (!out)
    throw DriverError("cannot write the replay file '" + path + "': " + std::strerror(errno) +
                      " (give --replay-file a writable path)");
}

// weft_main reports DriverError as one `weft: error:` line with exit code 2; anything else
// escaping a command would end in std::terminate. Every command runs through this.
template <class Command>
int guarded(Command&& command) {
  try {
    return command();
  } catch (const DriverError& e) {
    throw DriverError(one_line(e.what(), 2000));
  } catch (const std::bad_alloc&) {
    throw DriverError("out of memory");
  } catch (const std::exception& e) {
    throw DriverError("internal error: " + one_line(e.what()));
  }
}

// A bug, and the race-directed scheduling points of the round that found it (its replay needs
// the same points).
struct RoundBug {
  explorer::FoundBug bug;
  std::vector<std::uint64_t> promoted;
};

// The code addresses of a data race's two accesses, from its report's {pc:...} marks.
std::vector<std::uint64_t> race_sites(const explorer::FoundBug& bug) {
  std::vector<std::uint64_t> code, data;
  if (bug.outcome == Outcome::kDataRace) collect_addresses(bug.message, code, data);
  return code;
}

void add_statistics(explorer::Statistics& total, const explorer::Statistics& round) {
  total.executions += round.executions;
  total.complete += round.complete;
  total.sleep_blocked += round.sleep_blocked;
  total.spin_blocked += round.spin_blocked;
  total.bound_reached += round.bound_reached;
  total.bugs += round.bugs;
  total.diverged += round.diverged;
  total.timeouts += round.timeouts;
  total.traces += round.traces;
  total.traces_counted = round.traces_counted;
  total.events += round.events;
  total.longest_execution = std::max(total.longest_execution, round.longest_execution);
  total.modelled += round.modelled;
  total.inputs += round.inputs;
  if (round.estimate) total.estimate = round.estimate;  // each round estimates afresh
  total.seconds += round.seconds;
  if (round.unfolding) {  // each round builds its unfolding afresh: the last one's, and all time
    const double before = total.unfolding ? total.unfolding->extension_seconds : 0;
    total.unfolding = round.unfolding;
    total.unfolding->extension_seconds += before;
  }
}

// --dump-unfolding: the unfolding in dot, its events at their source lines.
void write_unfolding(const explorer::Strategy& strategy, const ThreadRegistry& threads,
                     Symbolizer& symbols, const ExploreSettings& settings) {
  explorer::UnfoldingNames names;
  names.thread = [&](ThreadId t) { return threads.name(t); };
  names.site = [&](std::uint64_t site) {
    const SourceLocation where = symbols.code(site);
    return where.file.empty() ? std::string() : where.short_text();
  };
  names.object = [&](ObjectKey address) { return symbols.data(address); };
  const std::string dot = strategy.unfolding_dot(names);
  std::FILE* f = std::fopen(settings.dump_unfolding.c_str(), "w");
  bool written = f && std::fwrite(dot.data(), 1, dot.size(), f) == dot.size();
  if (f) written = std::fclose(f) == 0 && written;
  if (!written)
    throw DriverError("cannot write the unfolding to " + settings.dump_unfolding + ": " +
                      std::strerror(errno) + "; give --dump-unfolding a writable path");
}

int exit_code_of(explorer::Verdict verdict) {
  switch (verdict) {
    case explorer::Verdict::kBugFound:
      return kExitBug;
    case explorer::Verdict::kNoBugFound:
      return kExitNoBug;
    case explorer::Verdict::kUnsupported:
      return kExitUsage;  // the program used what weft does not model: no verdict at all
    case explorer::Verdict::kIncomplete:
      break;
  }
  return kExitIncomplete;
}

const char* verdict_name(int code) {
  switch (code) {
    case kExitNoBug:
      return "no bug";
    case kExitBug:
      return "bug";
    case kExitUsage:
      return "unsupported";
    default:
      return "incomplete";
  }
}

}  // namespace

static int run_command_unguarded(const Program& program, const ExploreSettings& settings) {
  check_options(program.options, settings);
  check_report_paths(settings.reports);
  // The result JSON is the model every report form renders: built when any of them is asked.
  const bool result_json = settings.json || settings.reports.any();
  // The predicate is checked against the program's variables before anything runs.
  std::optional<GlobalCheck> global;
  if (!settings.check_global.empty()) {
    Symbolizer types(program.path, 0);
    global.emplace(settings.check_global, types);
  }
  ThreadRegistry threads;
  // The estimate (a few percent more executions) where a time limit may cut a run short, or
  // its progress is watched. (Not for --max-executions: those are the search's to run.)
  explorer::ExploreOptions options = settings;
  options.estimate_size =
      settings.estimate_when_useful && (settings.max_seconds > 0 || (!settings.quiet && isatty(2)));
  options.stop_on_first_bug = settings.stop_on_first_bug && settings.stop_on.empty();
  explorer::StrategyConfig config = explorer::strategy_config(options);
  config.record_written_values = global.has_value();
  std::unique_ptr<explorer::Strategy> strategy;

  std::unique_ptr<ForkServer> server;
  std::optional<Symbolizer> symbols;
  explorer::ExplorationLimits limits = explorer::exploration_limits(options);
  // --stop-on matches the bug's kind and its message as the user reads it, memory named (a race
  // names its variable, which the raw message holds as an address mark) but without the places
  // in the code, whose file names would match too.
  if (!settings.stop_on.empty())
    limits.stop_at = [&settings, &symbols, &server, &program](const explorer::FoundBug& bug) {
      if (!symbols) symbols.emplace(program.path, server->load_base(), server->libraries());
      return symbols->render(without_code_places(bug.message)).find(settings.stop_on) !=
                 std::string::npos ||
             std::string(outcome_name(bug.outcome)).find(settings.stop_on) != std::string::npos;
    };
  limits.max_memory_bytes =
      settings.weft_memory_mb > 0
          ? settings.weft_memory_mb << 20
          : static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / 2;
  Progress progress(!settings.quiet, settings.max_seconds);

  // Race-directed scheduling points: with --points=sync, a run that goes on past a data race
  // starts over with the race's two instructions as scheduling points, so that what the race
  // enables (an assertion it breaks, a crash) is explored too. Each round is a whole
  // exploration over the points of the round before plus the new ones; the last round, which
  // found no new race, is the one whose completeness the verdict states.
  const bool race_directed =
      settings.race_points && program.options.points == "sync" && !limits.stop_on_first_bug;
  std::set<std::uint64_t> promoted(program.options.promoted_sites.begin(),
                                   program.options.promoted_sites.end());
  const auto new_race_sites = [&](const explorer::FoundBug& bug) {
    std::vector<std::uint64_t> sites = race_sites(bug);
    std::erase_if(sites, [&](std::uint64_t site) { return promoted.count(site) != 0; });
    return sites;
  };
  Program round_program = program;
  explorer::ExplorationResult result;
  explorer::Statistics total;
  std::vector<RoundBug> found;
  std::map<std::string, std::size_t> seen;  // each bug's index in `found`
  std::uint64_t bugs_not_kept = 0;
  std::set<std::string> unrestored;
  std::size_t rounds = 0;
  std::uint64_t program_peak_kib = 0;  // of the program's processes, over every round
  // With every shared access an event, the threads' steps can be learned and executions made
  // of known steps computed (thread_model.hpp).
  std::optional<explorer::ModelledRunner> modelled;
  // (With dfs, --check-global reads every execution's states: each must be run.)
  const bool check_every_state =
      global && !explorer::strategy_info(settings.strategy).has(explorer::kBuildsUnfolding);
  bool every_state_read_inputs = false;
  if (settings.thread_model != "off" && program.options.points == "all" && !check_every_state)
    modelled.emplace(settings.thread_model == "check" ? explorer::ModelledRunner::Mode::kCheck
                                                      : explorer::ModelledRunner::Mode::kOn,
                     program.options.max_steps_per_thread);
  const auto started = std::chrono::steady_clock::now();
  for (;;) {
    ++rounds;
    round_program.options.promoted_sites.assign(promoted.begin(), promoted.end());
    server.reset();  // one fork server at a time
    server = std::make_unique<ForkServer>(round_program, threads);
    if (limits.max_seconds > 0)
      server->set_run_deadline(started +
                               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(limits.max_seconds)));
    explorer::ExplorationLimits round_limits = limits;
    const double spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (limits.max_seconds > 0)
      round_limits.max_seconds = std::max(limits.max_seconds - spent, 1e-3);
    config.time_budget = round_limits.max_seconds;
    strategy = explorer::make_strategy(config);
    if (limits.max_executions > 0)
      round_limits.max_executions =
          limits.max_executions - std::min(limits.max_executions - 1, total.executions);
    if (race_directed)
      round_limits.stop_at = [&](const explorer::FoundBug& bug) {
        return (limits.stop_at && limits.stop_at(bug)) || !new_race_sites(bug).empty();
      };
    round_limits.on_execution = [&](const explorer::Statistics& s) {
      explorer::Statistics so_far = total;
      add_statistics(so_far, s);
      progress.update(so_far);
    };
    const std::uint64_t modelled_before = modelled ? modelled->modelled() : 0;
    const std::function<Trace(const TestDirective&)> run_for_real = [&](const TestDirective& d) {
      if (!check_every_state) return server->run(d);
      if (!symbols) {
        symbols.emplace(program.path, server->load_base(), server->libraries());
        global->resolve(*symbols, threads);
      }
      Trace t = server->run(d);
      global->check_every_state(t, threads);
      every_state_read_inputs |= !t.symbolic.inputs.empty();
      return t;
    };
    try {
      result = modelled ? explorer::run_exploration_in_place(
                              *strategy, explorer::read_policy_of(settings.strategy),
                              [&](const TestDirective& d) -> const Trace& {
                                return modelled->run(d, run_for_real);
                              },
                              round_limits)
                        : explorer::run_exploration(*strategy,
                                                    explorer::read_policy_of(settings.strategy),
                                                    run_for_real, round_limits);
    } catch (const explorer::ModelError& e) {
      throw DriverError(e.what());
    }
    if (modelled) result.stats.modelled = modelled->modelled() - modelled_before;
    unrestored.insert(result.unrestored_state.begin(), result.unrestored_state.end());
    bugs_not_kept += result.bugs_not_kept;
    program_peak_kib = std::max(program_peak_kib, server->peak_rss_kib());
    const std::uint64_t executions_before = total.executions;
    add_statistics(total, result.stats);
    std::vector<std::uint64_t> fresh;
    bool user_stop = false;
    if (!symbols) symbols.emplace(program.path, server->load_base(), server->libraries());
    prepare_symbols(result.bugs, *symbols);  // one llvm-symbolizer run for all of them
    for (const auto& bug : result.bugs) {
      // By the message as the user reads it: the marks in the raw one carry addresses (a
      // local's frames) that may differ between rounds for the same bug.
      if (!symbols) symbols.emplace(program.path, server->load_base(), server->libraries());
      // A race by its instructions (explorer::bug_key); others by their message as the user
      // reads it.
      const std::string key =
          std::string(outcome_name(bug.outcome)) + ":" +
          (bug.outcome == Outcome::kDataRace ? explorer::bug_key(bug.outcome, bug.message)
                                             : bug_message(bug, *symbols));
      // The cap on kept bugs holds for the whole run, over every round (SIZE_MAX: counted only).
      const bool room = found.size() < limits.max_bugs_kept;
      const auto [known, new_bug] = seen.try_emplace(key, room ? found.size() : SIZE_MAX);
      if (new_bug && room) {
        found.push_back({bug, round_program.options.promoted_sites});
        found.back().bug.execution += executions_before;  // numbered across rounds
      } else if (new_bug) {
        ++bugs_not_kept;
      } else if (known->second != SIZE_MAX) {
        found[known->second].bug.repeats += bug.repeats + 1;
      }
      for (std::uint64_t site : new_race_sites(bug)) fresh.push_back(site);
      if (limits.stop_at && limits.stop_at(bug)) user_stop = true;
    }
    const bool budget_left =
        (limits.max_executions == 0 || total.executions < limits.max_executions) &&
        (limits.max_seconds == 0 ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() <
             limits.max_seconds);
    if (!race_directed || fresh.empty() || user_stop || !budget_left ||
        !result.unsupported.empty() || result.out_of_memory)
      break;
    promoted.insert(fresh.begin(), fresh.end());
  }
  progress.finish();
  result.stats = total;
  result.unrestored_state = std::move(unrestored);
  result.bugs.clear();
  for (auto& b : found) result.bugs.push_back(std::move(b.bug));  // one copy of each trace

  // --check-global, once the unfolding is complete (thesis §6.2).
  std::optional<GlobalCheckResult> global_result;
  std::string global_note;
  // Each execution's states hold the values its inputs had; others were not tried.
  if (check_every_state && every_state_read_inputs &&
      std::none_of(result.bugs.begin(), result.bugs.end(),
                   [](const explorer::FoundBug& b) { return b.outcome == Outcome::kGlobalState; }))
    result.strategy_gaps += std::string(result.strategy_gaps.empty() ? "" : "; ") +
                            "--check-global with dfs checks the states of the executions run, "
                            "and the program reads inputs, whose other values were not tried "
                            "(--strategy contextual solves for them)";
  if (global && !check_every_state) {
    if (!symbols) symbols.emplace(program.path, server->load_base(), server->libraries());
    global->resolve(*symbols, threads);
    if (result.exhausted && result.unsupported.empty()) {
      global_result = check_global_state(
          *strategy, *global, [&](const TestDirective& d) { return server->run(d); }, threads);
      global_note = global_result->note;
      if (global_result->bug) {
        ++result.stats.executions;
        global_result->bug->execution = result.stats.executions;
        found.push_back({*global_result->bug, round_program.options.promoted_sites});
        result.bugs.push_back(*global_result->bug);
      } else if (global_result->answer == GlobalCheckResult::Answer::kUndecided) {
        result.strategy_gaps += (result.strategy_gaps.empty() ? "" : "; ") + global_note;
      }
    } else {
      global_note =
          "--check-global was not asked: the exploration stopped before the unfolding "
          "was complete" +
          std::string(result.bugs.empty() ? "" : " (--all-bugs explores on past bugs)");
    }
  }

  // Every interleaving was explored, some executions up to the thread or step bound only: a
  // "true within bounds", never a proof. (An execution cut by the time limit is not within a
  // bound: what it would have done is unknown.)
  // An execution changed process state the worker does not restore: the executions after it
  // may have started from it, so no verdict of "explored completely" (docs/process-state.md).
  std::string unrestored_text;
  for (const auto& what : result.unrestored_state)
    unrestored_text += (unrestored_text.empty() ? "" : ", ") + what;
  const explorer::Decision decision = explorer::decide(result, strategy->exhaustive(), limits);
  // What weft saw only in part, as the user reads it: the places of weak atomics, and what
  // talked through the kernel.
  if (!symbols) symbols.emplace(program.path, server->load_base(), server->libraries());
  // Weak atomics in the program's own code, and in library headers it compiled in (libstdc++'s
  // shared_ptr counts, stop_token): both are explored as sequentially consistent, and the text
  // says whose they are.
  std::vector<std::string> weak_atomics, weak_in_library, kernel_talk, unseen_libraries,
      signal_handlers;
  for (const Caveat& c : result.caveats) {
    if (c.kind == CaveatKind::kKernelCommunication) kernel_talk.push_back(symbols->render(c.what));
    if (c.kind == CaveatKind::kUnseenLibrary) unseen_libraries.push_back(c.what);
    if (c.kind == CaveatKind::kSignalHandler) signal_handlers.push_back(symbols->render(c.what));
    if (c.kind != CaveatKind::kWeakAtomics) continue;
    const std::string where = symbols->render(c.what);
    const auto pc = first_code_mark(c.what);
    const bool system = pc && *pc != 0 && symbols->code(*pc).file.starts_with("/usr/");
    (system ? weak_in_library : weak_atomics).push_back(where);
  }
  for (auto* list : {&weak_atomics, &weak_in_library, &kernel_talk, &signal_handlers}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  const bool weak_memory = !weak_atomics.empty() || !weak_in_library.empty();
  const auto listed = [](const std::vector<std::string>& items, std::size_t most) {
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < most; ++i) text += (i ? ", " : "") + items[i];
    if (items.size() > most) text += " and " + std::to_string(items.size() - most) + " more";
    return text;
  };
  const bool complete = decision.complete();
  const bool within_bounds = decision.within_bounds();
  const int code = exit_code_of(decision.verdict);

  if (!symbols) symbols.emplace(program.path, server->load_base(), server->libraries());
  if (!settings.dump_unfolding.empty()) write_unfolding(*strategy, threads, *symbols, settings);
  const std::string replay_path =
      settings.replay_file.empty() ? default_replay_file(program.path) : settings.replay_file;
  std::string text;
  // The replay file holds the bug that stopped the run: the one --stop-on names, if any.
  std::size_t replayed_bug = 0;
  if (limits.stop_at)
    for (std::size_t i = 0; i < result.bugs.size(); ++i)
      if (limits.stop_at(result.bugs[i])) {
        replayed_bug = i;
        break;
      }
  std::string replay, replay_command;
  prepare_symbols(result.bugs, *symbols);
  for (std::size_t i = 0; i < result.bugs.size(); ++i) {
    const auto& bug = result.bugs[i];
    if (i == replayed_bug) {
      const std::string program_path = settings.program_is_temporary
                                           ? keep_program_beside(replay_path, program.path)
                                           : fs::absolute(program.path).string();
      Program replayed = program;
      replayed.options.promoted_sites = found[i].promoted;
      write_replay_file(replay_path, program_path, replayed, bug, threads,
                        bug_message(bug, *symbols), settings.check_global);
      // The replay file names the program; `weft check` builds it in a temporary directory, so
      // its replay command needs only the file.
      replay_command = "weft replay " +
                       (settings.program_is_temporary ? "" : shell_word(program.path) + " ") +
                       shell_word(replay_path);
      replay = replay_with_hint(replay_command);
    }
  }
  const auto bug_json = [&](std::size_t i) {
    const auto& bug = result.bugs[i];
    auto j = native_bug_json(bug, threads, *symbols, i == replayed_bug ? replay_command : "");
    if (i == replayed_bug) j["replay_file"] = replay_path;
    j["promoted_sites"] = found[i].promoted.size();
    j["execution"] = bug.execution;
    j["repeats"] = bug.repeats;
    // Ordered, perhaps, by synchronisation weft does not see: a library's, or the kernel's (a
    // pipe written by one thread and read by the other orders what they did around it).
    if (bug.outcome == Outcome::kDataRace && (!unseen_libraries.empty() || !kernel_talk.empty()))
      j["may_be_false"] = true;
    return j;
  };
  // The bugs of one execution share one interleaving, with each bug marked at its step.
  for (std::size_t i = 0; !settings.json && i < result.bugs.size();) {
    std::size_t end = i + 1;
    while (end < result.bugs.size() && result.bugs[end].execution == result.bugs[i].execution)
      ++end;
    std::vector<const explorer::FoundBug*> group;
    std::size_t promoted_count = 0;
    bool enabled_by_races = false;
    for (std::size_t k = i; k < end; ++k) {
      group.push_back(&result.bugs[k]);
      promoted_count = std::max(promoted_count, found[k].promoted.size());
      enabled_by_races |=
          !found[k].promoted.empty() && result.bugs[k].outcome != Outcome::kDataRace;
    }
    const bool has_replay = replayed_bug >= i && replayed_bug < end;
    std::string group_replay;
    if (has_replay)
      group_replay = end - i == 1
                         ? replay
                         : replay + " [replays bug " + std::to_string(replayed_bug + 1) + "]";
    text += format_native_bugs(group, i + 1, threads, *symbols, group_replay);
    for (std::size_t k = i; k < end; ++k)
      if (result.bugs[k].repeats > 0)
        text += "  Bug " + std::to_string(k + 1) + " happened " +
                group_digits(result.bugs[k].repeats) + " more time" +
                (result.bugs[k].repeats == 1 ? "" : "s") +
                (result.bugs[k].outcome == Outcome::kDataRace
                     ? " (the same two instructions, on any memory, in any execution).\n"
                     : ".\n");
    if (enabled_by_races)
      text += "  Found with the instructions of the data races above as scheduling points (" +
              group_digits(promoted_count) + " promoted).\n";
    text += "\n";
    i = end;
  }

  // Why the exploration is incomplete, also when bugs were found (with --all-bugs or --stop-on
  // the caller may still ask whether the rest was covered).
  VerdictWords words;
  words.strategy = explorer::strategy_name(settings.strategy);
  words.unfolding = explorer::strategy_info(settings.strategy).has(explorer::kBuildsUnfolding);
  words.unsupported = symbols->render(result.unsupported);
  words.first_bound = symbols->render(result.first_bound_message);
  words.fixed_inputs = std::to_string(program.options.nondet_value) + " (--nondet)";
  words.input_gaps = symbols->render(describe_input_gaps(result.stats.inputs));
  words.unrestored = unrestored_text;
  words.restore_hint = "run with --fresh-process";
  words.kernel_talk = listed(kernel_talk, 3);
  words.unseen_libraries = listed(unseen_libraries, 3);
  words.signal_handlers = listed(signal_handlers, 3);
  words.stop_on_first_bug = "--all-bugs explores on";
  words.chosen_bug = "the first bug that --stop-on names";
  words.limits = "--max-executions or --time-limit";
  words.memory_limit =
      "--weft-memory-limit (" + group_digits(limits.max_memory_bytes >> 20) + " MiB)";
  words.optimal_choice = "--strategy optimal";
  const std::string why = incompleteness_text(decision.why, result, words);
  // "off" (not asked for, or not applicable), "on", "check", or why it stopped computing.
  std::string thread_model_state = "off";
  if (modelled)
    thread_model_state = modelled->model().usable()
                             ? settings.thread_model
                             : "disabled: " + modelled->model().disabled_reason();
  if (result_json) {
    nlohmann::json j = {{"verdict", verdict_name(code)},
                        {"exit_code", code},
                        {"complete", complete},
                        {"complete_within_bounds", within_bounds},
                        {"program", program.path},
                        {"strategy", explorer::strategy_name(settings.strategy)},
                        {"points", program.options.points},
                        {"statistics", statistics_json(result.stats, program_peak_kib)},
                        {"thread_model", thread_model_state},
                        {"promoted_sites", promoted.size()},
                        {"rounds", rounds}};
    if (global) {
      const char* answer = "not asked";
      if (global_result)
        answer = global_result->answer == GlobalCheckResult::Answer::kReached       ? "reached"
                 : global_result->answer == GlobalCheckResult::Answer::kUnreachable ? "unreachable"
                                                                                    : "undecided";
      j["check_global"] = {
          {"predicate", settings.check_global}, {"answer", answer}, {"note", global_note}};
      if (global_result)
        j["check_global"]["search"] = {{"events", global_result->search.events},
                                       {"translated", global_result->search.translated},
                                       {"formula_nodes", global_result->search.formula_nodes},
                                       {"seconds", global_result->search.seconds}};
    }
    if (!why.empty()) {
      j["incomplete_because"] = why;
      j["incomplete_code"] = explorer::incompleteness_code(decision.why);
    }
    if (!unrestored_text.empty()) j["unrestored_state"] = result.unrestored_state;
    if (bugs_not_kept > 0) j["bugs_not_kept"] = bugs_not_kept;
    // weft explores sequential consistency; the places whose weaker orderings allow more.
    j["memory_model"] = "sequential-consistency";
    if (!weak_atomics.empty()) j["weak_atomics"] = weak_atomics;
    if (!weak_in_library.empty()) j["weak_atomics_in_libraries"] = weak_in_library;
    if (!kernel_talk.empty()) j["kernel_communication"] = kernel_talk;
    if (!unseen_libraries.empty()) j["unseen_libraries"] = unseen_libraries;
    if (!signal_handlers.empty()) j["signal_handlers"] = signal_handlers;
    // Libraries of weft-lib's cache the program loaded: built by weft-cc, so seen.
    std::set<std::string> instrumented;
    const std::string cache = program.options.library_cache ? library_cache_directory() : "";
    if (!cache.empty() && server)
      for (const MappedCode& m : server->libraries())
        if (m.path.starts_with(cache + "/")) instrumented.insert(m.path.substr(cache.size() + 1));
    if (!instrumented.empty()) j["instrumented_libraries"] = instrumented;
    j["weft_version"] = WEFT_VERSION;
    if (!settings.source.empty()) j["source"] = settings.source;
    if (settings.reports.any()) {
      // The report files are made from the whole document.
      nlohmann::json whole = j;
      whole["bugs"] = nlohmann::json::array();
      for (std::size_t i = 0; i < result.bugs.size(); ++i) whole["bugs"].push_back(bug_json(i));
      std::error_code ec;
      write_report_files(settings.reports, whole, fs::current_path(ec).string());
    }
    if (settings.json) {
      std::fflush(stdout);
      write_json_streaming(stdout, j, "bugs", result.bugs.size(), bug_json);
      return code;
    }
  }
  std::printf("%s", text.c_str());
  // A state reached is one of the bugs above; what else the check says gets its own line.
  if (!global_note.empty() &&
      !(global_result && global_result->answer == GlobalCheckResult::Answer::kReached))
    std::printf("weft: %s\n", global_note.c_str());
  switch (code) {
    case kExitBug:
      std::printf("weft: %s bug%s found", group_digits(result.bugs.size()).c_str(),
                  result.bugs.size() == 1 ? "" : "s");
      // After the first bug the rest is unexplored by design; say so only when asked for more.
      if (!why.empty() && !limits.stop_on_first_bug)
        std::printf("; the exploration is incomplete: %s", why.c_str());
      break;
    case kExitNoBug:
      std::printf("weft: no bug found; every behaviour %swas explored",
                  weak_memory ? "under sequential consistency " : "");
      break;
    case kExitUsage:
      std::printf("weft: %s", why.c_str());
      break;
    default:
      if (within_bounds)
        std::printf("weft: no bug found within the bounds: %s", why.c_str());
      else
        std::printf("weft: no bug found, but the exploration is incomplete: %s", why.c_str());
      break;
  }
  std::printf(" (%s)\n", format_statistics(result.stats).c_str());
  if (!promoted.empty())
    std::printf(
        "weft: %s instruction%s of data races became scheduling points (race-directed), in %s "
        "rounds of exploration; the verdict is that of the last round\n",
        group_digits(promoted.size()).c_str(), promoted.size() == 1 ? "" : "s",
        group_digits(rounds).c_str());
  const bool races = std::any_of(result.bugs.begin(), result.bugs.end(),
                                 [](const auto& b) { return b.outcome == Outcome::kDataRace; });
  if (races && (!unseen_libraries.empty() || !kernel_talk.empty())) {
    std::string unseen;
    if (!unseen_libraries.empty())
      unseen =
          "synchronisation inside " + listed(unseen_libraries, 3) + ", which weft did not compile,";
    if (!kernel_talk.empty())
      unseen += std::string(unseen.empty() ? "" : " or ") + "communication through the kernel (" +
                listed(kernel_talk, 3) + "), which weft does not see,";
    std::printf("weft: the data races above may be false: %s may order those accesses\n",
                unseen.c_str());
  }
  if (bugs_not_kept > 0)
    std::printf(
        "weft: %s more distinct bugs were found and not kept: only the first %s are "
        "reported, to bound weft's memory\n",
        group_digits(bugs_not_kept).c_str(), group_digits(limits.max_bugs_kept).c_str());
  if (weak_memory)
    std::printf(
        "weft: %s atomics weaker than seq_cst (at %s), which weft explores as sequentially "
        "consistent: behaviours only a weaker memory model allows were not explored\n",
        weak_atomics.empty() ? "library code the program compiled in uses" : "the program uses",
        listed(weak_atomics.empty() ? weak_in_library : weak_atomics, 3).c_str());
  if (!unrestored_text.empty() && code == kExitBug)
    std::printf(
        "weft: the program changed process state weft does not restore between executions "
        "(%s); a bug found after it may depend on it: check with --fresh-process\n",
        unrestored_text.c_str());
  return code;
}

// The result JSON of a replay, for its report files: one execution, the bug it ended in (if
// any), in the form run_command's result has.
static nlohmann::json replay_result(const std::string& replay_file, const Program& program,
                                    const nlohmann::json& bug, const std::string& stopped) {
  const int code = !stopped.empty() ? kExitIncomplete : bug.is_null() ? kExitNoBug : kExitBug;
  nlohmann::json j = {{"verdict", verdict_name(code)},
                      {"exit_code", code},
                      {"complete", false},
                      {"program", program.path},
                      {"strategy", "replay"},
                      {"points", program.options.points},
                      {"replay_file", replay_file},
                      {"statistics", {{"executions", 1}}},
                      {"weft_version", WEFT_VERSION},
                      {"bugs", nlohmann::json::array()}};
  if (!bug.is_null()) j["bugs"].push_back(bug);
  if (!stopped.empty()) {
    j["incomplete_because"] = "the replayed execution was stopped: " + stopped;
    j["incomplete_code"] = "cut-short";
  }
  return j;
}

static int replay_command_unguarded(const std::string& replay_file, const std::string& program_path,
                                    bool under_gdb, bool json, const ReportFiles& reports) {
  check_report_paths(reports);
  ThreadRegistry threads;
  TestDirective directive;
  const ReplayFile file = load_replay_file(replay_file, threads, directive);
  Program program;
  program.path = program_path.empty() ? file.program : program_path;
  program.args = file.args;
  program.options.points = file.options.points;
  program.options.max_steps_per_thread = file.options.max_steps_per_thread;
  program.options.max_threads = file.options.max_threads;
  program.options.nondet_value = file.options.nondet_value;
  program.options.explore_inputs = file.options.explore_inputs;
  program.options.keep_spinning = file.options.keep_spinning;
  program.options.memory_checks = file.options.memory_checks;
  program.options.leaks = file.options.leaks;
  program.options.promoted_sites = file.options.promoted_sites;
  program.options.execution_seconds = file.options.execution_seconds;
  std::uint64_t base = 0;
  std::fflush(stdout);
  std::vector<MappedCode> libraries;
  const Trace trace =
      replay_execution(program, directive, threads, under_gdb, &base, json, &libraries);
  if (under_gdb) return kExitNoBug;  // the debugging session was the point
  std::error_code cwd_error;
  const std::string cwd = fs::current_path(cwd_error).string();
  if (trace.outcome == Outcome::kTimeout) {
    write_report_files(reports, replay_result(replay_file, program, nullptr, trace.message), cwd);
    if (json)
      std::printf(
          "%s\n",
          nlohmann::json({{"reproduced", false}, {"stopped", trace.message}}).dump(2).c_str());
    else
      std::printf("weft: the replayed execution was stopped: %s\n", trace.message.c_str());
    return kExitIncomplete;
  }
  Symbolizer symbols(program.path, base, std::move(libraries));

  const std::string& expected = file.bug_message;
  // The recorded bug may be any of the execution's bugs (not always its first).
  std::vector<explorer::FoundBug> bugs;
  for (const auto& f : trace.failures)
    if (is_bug(f.outcome)) bugs.push_back(explorer::found_bug(trace, &f));
  if (is_whole_execution_bug(trace.outcome)) bugs.push_back(explorer::found_bug(trace, nullptr));
  if (!file.check_global.empty()) {
    GlobalCheck global(file.check_global, symbols);
    global.resolve(symbols, threads);
    if (auto b = global.bug_in(trace, file.global_steps, threads)) bugs.push_back(std::move(*b));
  }
  std::optional<explorer::FoundBug> found;
  bool reproduced = false;
  for (const auto& b : bugs)
    if (bug_message(b, symbols) == expected) {
      found = b;
      reproduced = true;
    }
  if (!found && !bugs.empty()) found = bugs.front();
  if (reports.any()) {
    const nlohmann::json bug =
        found ? native_bug_json(*found, threads, symbols,
                                "weft replay " +
                                    (program_path.empty() ? "" : shell_word(program_path) + " ") +
                                    shell_word(replay_file))
              : nlohmann::json();
    write_report_files(reports, replay_result(replay_file, program, bug, ""), cwd);
  }
  if (json) {
    nlohmann::json out = {{"reproduced", reproduced}};
    if (found) out["bug"] = native_bug_json(*found, threads, symbols);
    std::printf("%s\n", out.dump(2).c_str());
  } else if (found) {
    std::printf("\n%s", format_native_bug(*found, threads, symbols, "").c_str());
    std::printf("weft: %s\n", reproduced ? "the bug was reproduced"
                                         : "a different bug happened than the one recorded");
  } else {
    std::printf(
        "weft: the replayed execution ended without a bug (%s); the program may depend "
        "on something weft does not control (time, randomness, files)\n",
        outcome_name(trace.outcome));
  }
  return found ? kExitBug : kExitNoBug;
}

static int check_command_unguarded(const std::string& source,
                                   const std::vector<std::string>& compiler_flags, Program program,
                                   const ExploreSettings& settings) {
  check_options(program.options, settings);  // before the build, which takes seconds
  check_report_paths(settings.reports);
  std::error_code ec;
  if (!fs::exists(source, ec)) throw DriverError("no such file: '" + source + "'");
  if (!fs::is_regular_file(source, ec)) throw DriverError("'" + source + "' is not a source file");
  const std::string ext = fs::path(source).extension().string();
  const bool cxx = ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C";
  if (!cxx && ext != ".c")
    throw DriverError("'" + source + "' is neither C (.c) nor C++ (.cpp, .cc, .cxx)");
  // The compilers live next to this executable (build tree or installation).
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path compiler = self.parent_path() / (cxx ? "weft-c++" : "weft-cc");
  if (!fs::exists(compiler, ec))
    throw DriverError("cannot find " + compiler.string() + " (weft's compiler wrapper)");
  // Removed on every way out; a bug's replay file gets its own copy of the program.
  const TemporaryDirectory dir("weft-check-");
  const std::string binary = dir.path() + "/" + fs::path(source).stem().string();
  std::string command = shell_word(compiler.string());
  bool has_opt = false;
  for (const auto& f : compiler_flags) has_opt |= f.starts_with("-O");
  if (!has_opt) command += " -O0";  // every access in the source stays an access
  command += cxx ? " -std=c++20" : "";
  // The source before the flags: libraries and objects given after `--` must follow the
  // program's object on the link line (preprocessor and code flags apply wherever they are).
  command += " " + shell_word(source);
  for (const auto& f : compiler_flags) command.append(" ").append(shell_word(f));
  command += " -o " + shell_word(binary);
  const int status = std::system(command.c_str());
  // system() ignores Ctrl-C while the compiler runs; the compiler died of it instead.
  if (status != -1 && WIFSIGNALED(status))
    throw DriverError("compiling '" + source + "' was interrupted");
  if (status != 0)
    throw DriverError("compiling '" + source + "' failed (the compiler's messages are above)");
  program.path = binary;
  ExploreSettings check_settings = settings;
  check_settings.program_is_temporary = true;
  check_settings.source = source;
  return run_command_unguarded(program, check_settings);
}

// The commands proper, each through guarded().

int run_command(const Program& program, const ExploreSettings& settings) {
  return guarded([&] { return run_command_unguarded(program, settings); });
}

int replay_command(const std::string& replay_file, const std::string& program_path, bool under_gdb,
                   bool json, const ReportFiles& reports) {
  return guarded([&] {
    return replay_command_unguarded(replay_file, program_path, under_gdb, json, reports);
  });
}

int check_command(const std::string& source, const std::vector<std::string>& compiler_flags,
                  Program program, const ExploreSettings& settings) {
  return guarded(
      [&] { return check_command_unguarded(source, compiler_flags, program, settings); });
}

}  // namespace weft::driver
