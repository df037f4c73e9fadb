// `weft run` (and `weft check` once it has built the program): explore a program built by weft-cc
// and say what was found. In stages, each a method of RunCommand: configure, explore in rounds
// (race-directed scheduling points), check global states (--check-global), decide the verdict
// (explorer::decide, the one decision both front ends use), and write the reports (replay file,
// text, JSON and the report files rendered from it).
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

#include "command_parts.hpp"
#include "weft/driver/bug_parts.hpp"
#include "weft/driver/global_check.hpp"
#include "weft/driver/json_stream.hpp"
#include "weft/driver/native_report.hpp"
#include "weft/driver/option_checks.hpp"
#include "weft/driver/replay_file.hpp"
#include "weft/driver/report.hpp"
#include "weft/driver/symbolizer.hpp"
#include "weft/driver/verdict_text.hpp"
#include "weft/explore/exploration.hpp"
#include "weft/explore/thread_model.hpp"
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
  file.schedule =
      encode_test(bug.schedule, bug.trace.symbolic.values(), threads, bug.trace.choices);
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
  if (round.state_matching) {                           // each round matches states afresh
    if (!total.state_matching) total.state_matching.emplace();
    total.state_matching->states += round.state_matching->states;
    total.state_matching->cut_offs += round.state_matching->cut_offs;
  }
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
  const std::string dot = strategy.unfolding() ? strategy.unfolding()->dot(names) : "";
  std::FILE* f = std::fopen(settings.dump_unfolding.c_str(), "w");
  bool written = f && std::fwrite(dot.data(), 1, dot.size(), f) == dot.size();
  if (f) written = std::fclose(f) == 0 && written;
  if (!written)
    throw DriverError("cannot write the unfolding to " + settings.dump_unfolding + ": " +
                      std::strerror(errno) + "; give --dump-unfolding a writable path");
}

// "a, b, c and 4 more".
std::string listed(const std::vector<std::string>& items, std::size_t most) {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) text += (i ? ", " : "") + items[i];
  if (items.size() > most) text += " and " + std::to_string(items.size() - most) + " more";
  return text;
}

// What weft saw only in part (Trace::caveats), as the user reads it, each list sorted and
// without repeats.
struct SeenInPart {
  /// Weak atomics in the program's own code, and in library headers it compiled in
  /// (libstdc++'s shared_ptr counts, stop_token): both are explored as sequentially
  /// consistent, and the text says whose they are.
  std::vector<std::string> weak_atomics, weak_in_library;
  std::vector<std::string> kernel_talk, unseen_libraries, signal_handlers, semaphore_resets;

  bool weak_memory() const { return !weak_atomics.empty() || !weak_in_library.empty(); }
  /// Synchronisation weft does not see may order a race's accesses: a library's, or the
  /// kernel's (a pipe written by one thread and read by the other).
  bool races_may_be_false() const { return !unseen_libraries.empty() || !kernel_talk.empty(); }
};

SeenInPart seen_in_part(const std::set<Caveat>& caveats, Symbolizer& symbols) {
  SeenInPart seen;
  for (const Caveat& c : caveats) {
    if (c.kind == CaveatKind::kKernelCommunication)
      seen.kernel_talk.push_back(symbols.render(c.what));
    if (c.kind == CaveatKind::kUnseenLibrary) seen.unseen_libraries.push_back(c.what);
    if (c.kind == CaveatKind::kSignalHandler)
      seen.signal_handlers.push_back(symbols.render(c.what));
    if (c.kind == CaveatKind::kSemaphoreReset)
      seen.semaphore_resets.push_back(symbols.render(c.what));
    if (c.kind != CaveatKind::kWeakAtomics && c.kind != CaveatKind::kLibraryAtomics) continue;
    const std::string where = symbols.render(c.what);
    const auto pc = first_code_mark(c.what);
    const bool system = c.kind == CaveatKind::kLibraryAtomics ||
                        (pc && *pc != 0 && symbols.code(*pc).file.starts_with("/usr/"));
    (system ? seen.weak_in_library : seen.weak_atomics).push_back(where);
  }
  for (auto* list : {&seen.weak_atomics, &seen.weak_in_library, &seen.kernel_talk,
                     &seen.signal_handlers, &seen.semaphore_resets}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return seen;
}

class RunCommand {
 public:
  RunCommand(const Program& program, const ExploreSettings& settings)
      : program_(program), settings_(settings), round_program_(program) {}

  int run() {
    configure();
    explore_in_rounds();
    check_global_states();
    decide_verdict();
    return write_reports();
  }

 private:
  // ---- configure: the options checked, the strategy's configuration and the loop's limits.
  void configure() {
    check_options(program_.options, settings_);
    check_report_paths(settings_.reports);
    // The predicate is checked against the program's variables before anything runs.
    if (!settings_.check_global.empty()) {
      Symbolizer types(program_.path, 0);
      global_.emplace(settings_.check_global, types);
    }
    // The estimate (a few percent more executions) where a time limit may cut a run short, or
    // its progress is watched. (Not for --max-executions: those are the search's to run.)
    explorer::ExploreOptions options = settings_;
    options.estimate_size = settings_.estimate_when_useful &&
                            (settings_.max_seconds > 0 || (!settings_.quiet && isatty(2)));
    options.stop_on_first_bug = settings_.stop_on_first_bug && settings_.stop_on.empty();
    config_ = explorer::strategy_config(options);
    config_.record_written_values = global_.has_value();
    config_.every_access_an_event = program_.options.points == "all";
    // States matched hold each thread's registers, stack and thread-local storage.
    const explorer::StrategyInfo& strategy = explorer::strategy_info(settings_.strategy);
    round_program_.options.local_states =
        config_.every_access_an_event &&
        (strategy.has(explorer::kMatchesStates) || strategy.has(explorer::kMatchesStatesWhenItCan));
    limits_ = explorer::exploration_limits(options);
    // --stop-on matches the bug's kind and its message as the user reads it, memory named (a
    // race names its variable, which the raw message holds as an address mark) but without the
    // places in the code, whose file names would match too.
    if (!settings_.stop_on.empty())
      limits_.stop_at = [this](const explorer::FoundBug& bug) {
        return symbols().render(without_code_places(bug.message)).find(settings_.stop_on) !=
                   std::string::npos ||
               std::string(outcome_name(bug.outcome)).find(settings_.stop_on) != std::string::npos;
      };
    limits_.max_memory_bytes =
        settings_.weft_memory_mb > 0
            ? settings_.weft_memory_mb << 20
            : static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / 2;
    // Race-directed scheduling points: with --points=sync, a run that goes on past a data race
    // starts over with the race's two instructions as scheduling points, so that what the race
    // enables (an assertion it breaks, a crash) is explored too. Each round is a whole
    // exploration over the points of the round before plus the new ones; the last round, which
    // found no new race, is the one whose completeness the verdict states.
    race_directed_ =
        settings_.race_points && program_.options.points == "sync" && !limits_.stop_on_first_bug;
    promoted_.insert(program_.options.promoted_sites.begin(),
                     program_.options.promoted_sites.end());
    // (With dfs, --check-global reads every execution's states: each must be run.)
    check_every_state_ =
        global_ && !explorer::strategy_info(settings_.strategy).has(explorer::kBuildsUnfolding);
    // The threads' steps can be learned and executions made of known steps computed
    // (thread_model.hpp): with every shared access an event, from the events' values; with
    // synchronisation points only, from what the threads' code between events read and wrote.
    // ExitBlock-RW prunes by what the blocks read and write, and the lockset checks every
    // access: with synchronisation points only, what the code between events did (the
    // segments), which every execution must record. The thread model, whose executions come
    // without them and are not run (so not checked), stays off for both.
    const bool reads_segments =
        settings_.strategy == explorer::StrategyKind{"exitblock-rw"} || settings_.lockset;
    if (reads_segments && program_.options.points != "all")
      round_program_.options.record_segments = true;
    round_program_.options.lockset = settings_.lockset;
    // The thread model computes executions of sequentially consistent steps: not under TSO;
    // under RC11 those whose atomics are all seq_cst (thread_model.hpp).
    // Nor for an exploration of graphs, which runs one execution of each.
    const bool tso = memory_model() == MemoryModel::kTso;
    const bool graphs = explorer::strategy_info(settings_.strategy).has(explorer::kExploresGraphs);
    if (settings_.thread_model != "off" && !check_every_state_ && !reads_segments && !tso &&
        !graphs) {
      const bool segments = program_.options.points != "all";
      round_program_.options.record_segments = segments;
      modelled_.emplace(settings_.thread_model == "check" ? explorer::ModelledRunner::Mode::kCheck
                                                          : explorer::ModelledRunner::Mode::kOn,
                        program_.options.max_steps_per_thread, segments,
                        memory_model() == MemoryModel::kRc11);
    }
  }

  // ---- explore in rounds: each a whole exploration with a fresh fork server and strategy.
  void explore_in_rounds() {
    Progress progress(!settings_.quiet, settings_.max_seconds);
    started_ = std::chrono::steady_clock::now();
    explorer::Statistics total;
    std::set<std::string> unrestored;
    for (;;) {
      ++rounds_;
      const std::uint64_t executions_before = total.executions;
      explore_round(progress, total);
      unrestored.insert(result_.unrestored_state.begin(), result_.unrestored_state.end());
      bugs_not_kept_ += result_.bugs_not_kept;
      program_peak_kib_ = std::max(program_peak_kib_, server_->peak_rss_kib());
      add_statistics(total, result_.stats);
      std::vector<std::uint64_t> fresh;
      bool user_stop = false;
      keep_round_bugs(executions_before, fresh, user_stop);
      const bool budget_left =
          (limits_.max_executions == 0 || total.executions < limits_.max_executions) &&
          (limits_.max_seconds == 0 || seconds_spent() < limits_.max_seconds);
      if (!race_directed_ || fresh.empty() || user_stop || !budget_left ||
          !result_.unsupported.empty() || result_.out_of_memory)
        break;
      promoted_.insert(fresh.begin(), fresh.end());
    }
    progress.finish();
    result_.stats = total;
    result_.unrestored_state = std::move(unrestored);
    result_.bugs.clear();
    for (auto& b : found_) result_.bugs.push_back(std::move(b.bug));  // one copy of each trace
    // Each execution's states hold the values its inputs had; others were not tried.
    if (check_every_state_ && every_state_read_inputs_ &&
        std::none_of(result_.bugs.begin(), result_.bugs.end(), [](const explorer::FoundBug& b) {
          return b.outcome == Outcome::kGlobalState;
        }))
      add_gap(
          "--check-global with dfs checks the states of the executions run, and the program "
          "reads inputs, whose other values were not tried (--strategy contextual solves for "
          "them)");
  }

  void explore_round(Progress& progress, const explorer::Statistics& total) {
    // Sites promoted to scheduling points make plain accesses events: a thread's history is
    // then told otherwise, and the model starts over.
    if (modelled_ && round_program_.options.record_segments &&
        round_program_.options.promoted_sites.size() != promoted_.size())
      modelled_.emplace(modelled_->mode(), program_.options.max_steps_per_thread, true,
                        memory_model() == MemoryModel::kRc11);
    round_program_.options.promoted_sites.assign(promoted_.begin(), promoted_.end());
    server_.reset();  // one fork server at a time
    server_ = std::make_unique<ForkServer>(round_program_, threads_);
    if (limits_.max_seconds > 0)
      server_->set_run_deadline(started_ +
                                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(limits_.max_seconds)));
    explorer::ExplorationLimits round_limits = limits_;
    if (limits_.max_seconds > 0)
      round_limits.max_seconds = std::max(limits_.max_seconds - seconds_spent(), 1e-3);
    config_.time_budget = round_limits.max_seconds;
    strategy_ = explorer::make_strategy(config_);
    if (limits_.max_executions > 0)
      round_limits.max_executions =
          limits_.max_executions - std::min(limits_.max_executions - 1, total.executions);
    if (race_directed_)
      round_limits.stop_at = [this](const explorer::FoundBug& bug) {
        return (limits_.stop_at && limits_.stop_at(bug)) || !new_race_sites(bug).empty();
      };
    round_limits.on_execution = [&](const explorer::Statistics& s) {
      explorer::Statistics so_far = total;
      add_statistics(so_far, s);
      progress.update(so_far);
    };
    const std::uint64_t modelled_before = modelled_ ? modelled_->modelled() : 0;
    const std::function<Trace(const TestDirective&)> run_for_real = [&](const TestDirective& d) {
      if (!check_every_state_) return server_->run(d);
      if (!global_resolved_) {
        global_->resolve(symbols(), threads_);
        global_resolved_ = true;
      }
      Trace t = server_->run(d);
      global_->check_every_state(t, threads_);
      every_state_read_inputs_ |= !t.symbolic.inputs.empty();
      return t;
    };
    const ReadPolicy policy = explorer::read_policy_of(settings_.strategy);
    try {
      result_ = modelled_
                    ? explorer::run_exploration_in_place(
                          *strategy_, policy,
                          [&](const TestDirective& d) -> const Trace& {
                            return modelled_->run(d, run_for_real);
                          },
                          round_limits)
                    : explorer::run_exploration(*strategy_, policy, run_for_real, round_limits);
    } catch (const explorer::ModelError& e) {
      throw DriverError(e.what());
    }
    if (modelled_) result_.stats.modelled = modelled_->modelled() - modelled_before;
    // A strategy names the code it stopped at by {pc:} marks: said as file, line and function.
    if (!result_.strategy_gaps.empty())
      result_.strategy_gaps = symbols().render(result_.strategy_gaps);
  }

  // The round's bugs, each distinct one kept once over every round; `fresh`: the race sites
  // not yet scheduling points; `user_stop`: one is the bug --stop-on names.
  void keep_round_bugs(std::uint64_t executions_before, std::vector<std::uint64_t>& fresh,
                       bool& user_stop) {
    prepare_symbols(result_.bugs, symbols());
    for (const auto& bug : result_.bugs) {
      // A race by its instructions (explorer::bug_key); others by their message as the user
      // reads it: the marks in the raw one carry addresses (a local's frames) that may differ
      // between rounds for the same bug.
      const std::string key =
          std::string(outcome_name(bug.outcome)) + ":" +
          (bug.outcome == Outcome::kDataRace ? explorer::bug_key(bug.outcome, bug.message)
                                             : bug_message(bug, symbols()));
      // The cap on kept bugs holds for the whole run, over every round (SIZE_MAX: counted only).
      const bool room = found_.size() < limits_.max_bugs_kept;
      const auto [known, new_bug] = seen_.try_emplace(key, room ? found_.size() : SIZE_MAX);
      if (new_bug && room) {
        found_.push_back({bug, round_program_.options.promoted_sites});
        found_.back().bug.execution += executions_before;  // numbered across rounds
      } else if (new_bug) {
        ++bugs_not_kept_;
      } else if (known->second != SIZE_MAX) {
        found_[known->second].bug.repeats += bug.repeats + 1;
      }
      for (std::uint64_t site : new_race_sites(bug)) fresh.push_back(site);
      if (limits_.stop_at && limits_.stop_at(bug)) user_stop = true;
    }
  }

  // ---- check global states: --check-global, once the unfolding is complete (thesis §6.2).
  void check_global_states() {
    if (!global_ || check_every_state_) return;
    global_->resolve(symbols(), threads_);
    if (!result_.exhausted || !result_.unsupported.empty()) {
      global_note_ =
          "--check-global was not asked: the exploration stopped before the unfolding "
          "was complete" +
          std::string(result_.bugs.empty() ? "" : " (--all-bugs explores on past bugs)");
      return;
    }
    global_result_ = check_global_state(
        *strategy_, *global_, [&](const TestDirective& d) { return server_->run(d); }, threads_);
    global_note_ = global_result_->note;
    if (global_result_->bug) {
      ++result_.stats.executions;
      global_result_->bug->execution = result_.stats.executions;
      found_.push_back({*global_result_->bug, round_program_.options.promoted_sites});
      result_.bugs.push_back(*global_result_->bug);
    } else if (global_result_->answer == GlobalCheckResult::Answer::kUndecided) {
      add_gap(global_note_);
    }
  }

  // ---- decide the verdict (explorer::decide) and say why it is incomplete, in the command
  // line's words.
  void decide_verdict() {
    // An execution changed process state the worker does not restore: the executions after it
    // may have started from it, so no verdict of "explored completely" (process-state.md).
    for (const auto& what : result_.unrestored_state)
      unrestored_text_ += (unrestored_text_.empty() ? "" : ", ") + what;
    decision_ = explorer::decide(result_, strategy_->exhaustive(), limits_);
    code_ = exit_code_of(decision_.verdict);
    seen_in_part_ = seen_in_part(result_.caveats, symbols());
    // Why the exploration is incomplete, also when bugs were found (with --all-bugs or
    // --stop-on the caller may still ask whether the rest was covered).
    VerdictWords words;
    words.strategy = explorer::strategy_name(settings_.strategy);
    words.unfolding = explorer::strategy_info(settings_.strategy).has(explorer::kBuildsUnfolding);
    words.unsupported = symbols().render(result_.unsupported);
    words.first_bound = symbols().render(result_.first_bound_message);
    words.fixed_inputs = std::to_string(program_.options.nondet_value) + " (--nondet)";
    words.input_gaps = symbols().render(describe_input_gaps(result_.stats.inputs));
    words.unrestored = unrestored_text_;
    words.restore_hint = "run with --fresh-process";
    words.kernel_talk = listed(seen_in_part_.kernel_talk, 3);
    words.unseen_libraries = listed(seen_in_part_.unseen_libraries, 3);
    words.signal_handlers = listed(seen_in_part_.signal_handlers, 3);
    words.semaphore_resets = listed(seen_in_part_.semaphore_resets, 3);
    words.stop_on_first_bug = "--all-bugs explores on";
    words.chosen_bug = "the first bug that --stop-on names";
    words.limits = "--max-executions or --time-limit";
    words.memory_limit =
        "--weft-memory-limit (" + group_digits(limits_.max_memory_bytes >> 20) + " MiB)";
    words.optimal_choice = "--strategy optimal";
    why_ = incompleteness_text(decision_.why, result_, words);
  }

  // ---- write the reports: the unfolding, the replay file, then JSON or text.
  int write_reports() {
    if (!settings_.dump_unfolding.empty())
      write_unfolding(*strategy_, threads_, symbols(), settings_);
    prepare_symbols(result_.bugs, symbols());
    write_replay();
    if (settings_.json || settings_.reports.any()) {
      // The result JSON is the model every report form renders.
      const nlohmann::json j = result_json();
      if (settings_.reports.any()) {
        nlohmann::json whole = j;  // the report files are made from the whole document
        whole["bugs"] = nlohmann::json::array();
        for (std::size_t i = 0; i < result_.bugs.size(); ++i) whole["bugs"].push_back(bug_json(i));
        std::error_code ec;
        write_report_files(settings_.reports, whole, fs::current_path(ec).string());
      }
      if (settings_.json) {
        std::fflush(stdout);
        write_json_streaming(stdout, j, "bugs", result_.bugs.size(),
                             [this](std::size_t i) { return bug_json(i); });
        return code_;
      }
    }
    std::printf("%s", bugs_text().c_str());
    print_verdict();
    return code_;
  }

  // The replay file holds the bug that stopped the run: the one --stop-on names, if any.
  void write_replay() {
    replay_path_ =
        settings_.replay_file.empty() ? default_replay_file(program_.path) : settings_.replay_file;
    if (limits_.stop_at)
      for (std::size_t i = 0; i < result_.bugs.size(); ++i)
        if (limits_.stop_at(result_.bugs[i])) {
          replayed_bug_ = i;
          break;
        }
    if (replayed_bug_ >= result_.bugs.size()) return;
    const auto& bug = result_.bugs[replayed_bug_];
    const std::string program_path = settings_.program_is_temporary
                                         ? keep_program_beside(replay_path_, program_.path)
                                         : fs::absolute(program_.path).string();
    Program replayed = program_;
    replayed.options.promoted_sites = found_[replayed_bug_].promoted;
    replayed.options.lockset = round_program_.options.lockset;  // the replay checks it too
    write_replay_file(replay_path_, program_path, replayed, bug, threads_,
                      bug_message(bug, symbols()), settings_.check_global);
    // The replay file names the program; `weft check` builds it in a temporary directory, so
    // its replay command needs only the file.
    replay_command_ = "weft replay " +
                      (settings_.program_is_temporary ? "" : shell_word(program_.path) + " ") +
                      shell_word(replay_path_);
  }

  nlohmann::json bug_json(std::size_t i) {
    const auto& bug = result_.bugs[i];
    const bool replayed = i == replayed_bug_;
    auto j = native_bug_json(bug, threads_, symbols(), replayed ? replay_command_ : "");
    if (replayed) j["replay_file"] = replay_path_;
    j["promoted_sites"] = found_[i].promoted.size();
    j["execution"] = bug.execution;
    j["repeats"] = bug.repeats;
    if (bug.outcome == Outcome::kDataRace && seen_in_part_.races_may_be_false())
      j["may_be_false"] = true;
    return j;
  }

  nlohmann::json result_json() {
    // "off" (not asked for, or not applicable), "on", "check", or why it stopped computing.
    std::string thread_model_state = "off";
    if (modelled_)
      thread_model_state = modelled_->model().usable()
                               ? settings_.thread_model
                               : "disabled: " + modelled_->model().disabled_reason();
    nlohmann::json j = {{"verdict", verdict_name(code_)},
                        {"exit_code", code_},
                        {"complete", decision_.complete()},
                        {"complete_within_bounds", decision_.within_bounds()},
                        {"program", program_.path},
                        {"strategy", explorer::strategy_name(settings_.strategy)},
                        {"points", program_.options.points},
                        {"statistics", statistics_json(result_.stats, program_peak_kib_)},
                        {"thread_model", thread_model_state},
                        {"promoted_sites", promoted_.size()},
                        {"rounds", rounds_}};
    if (!result_.answered_by.empty()) j["answered_by"] = result_.answered_by;
    if (global_) {
      const char* answer = "not asked";
      if (global_result_)
        answer = global_result_->answer == GlobalCheckResult::Answer::kReached       ? "reached"
                 : global_result_->answer == GlobalCheckResult::Answer::kUnreachable ? "unreachable"
                                                                                     : "undecided";
      j["check_global"] = {
          {"predicate", settings_.check_global}, {"answer", answer}, {"note", global_note_}};
      if (global_result_)
        j["check_global"]["search"] = {{"events", global_result_->search.events},
                                       {"translated", global_result_->search.translated},
                                       {"formula_nodes", global_result_->search.formula_nodes},
                                       {"seconds", global_result_->search.seconds}};
    }
    if (!why_.empty()) {
      j["incomplete_because"] = why_;
      j["incomplete_code"] = explorer::incompleteness_code(decision_.why);
    }
    if (!unrestored_text_.empty()) j["unrestored_state"] = result_.unrestored_state;
    if (bugs_not_kept_ > 0) j["bugs_not_kept"] = bugs_not_kept_;
    // The model explored; the places whose weaker orderings allow more than it.
    j["memory_model"] = memory_model() == MemoryModel::kTso    ? "x86-tso"
                        : memory_model() == MemoryModel::kRc11 ? "rc11"
                                                               : "sequential-consistency";
    // What --symmetry assumed: the threads one thread created at one function are
    // interchangeable; what the verdict covers rests on it.
    if (settings_.thread_symmetry) j["thread_symmetry"] = true;
    const SeenInPart& seen = seen_in_part_;
    if (!seen.weak_atomics.empty()) j["weak_atomics"] = seen.weak_atomics;
    if (!seen.weak_in_library.empty()) j["weak_atomics_in_libraries"] = seen.weak_in_library;
    if (!seen.kernel_talk.empty()) j["kernel_communication"] = seen.kernel_talk;
    if (!seen.unseen_libraries.empty()) j["unseen_libraries"] = seen.unseen_libraries;
    if (!seen.signal_handlers.empty()) j["signal_handlers"] = seen.signal_handlers;
    if (!seen.semaphore_resets.empty()) j["semaphore_resets"] = seen.semaphore_resets;
    // Libraries of weft-lib's cache the program loaded: built by weft-cc, so seen.
    std::set<std::string> instrumented;
    const std::string cache = program_.options.library_cache ? library_cache_directory() : "";
    if (!cache.empty() && server_)
      for (const MappedCode& m : server_->libraries())
        if (m.path.starts_with(cache + "/")) instrumented.insert(m.path.substr(cache.size() + 1));
    if (!instrumented.empty()) j["instrumented_libraries"] = instrumented;
    j["weft_version"] = WEFT_VERSION;
    if (!settings_.source.empty()) {
      j["source"] = settings_.source;
      j["build"] = {{"reused", settings_.build_reused}};
    }
    return j;
  }

  // The bugs as text; the bugs of one execution share one interleaving, each marked at its step.
  std::string bugs_text() {
    const std::string replay = replay_command_.empty() ? "" : replay_with_hint(replay_command_);
    std::string text;
    for (std::size_t i = 0; i < result_.bugs.size();) {
      std::size_t end = i + 1;
      while (end < result_.bugs.size() && result_.bugs[end].execution == result_.bugs[i].execution)
        ++end;
      std::vector<const explorer::FoundBug*> group;
      std::size_t promoted_count = 0;
      bool enabled_by_races = false;
      for (std::size_t k = i; k < end; ++k) {
        group.push_back(&result_.bugs[k]);
        promoted_count = std::max(promoted_count, found_[k].promoted.size());
        enabled_by_races |=
            !found_[k].promoted.empty() && result_.bugs[k].outcome != Outcome::kDataRace;
      }
      const bool has_replay = replayed_bug_ >= i && replayed_bug_ < end;
      std::string group_replay;
      if (has_replay)
        group_replay = end - i == 1
                           ? replay
                           : replay + " [replays bug " + std::to_string(replayed_bug_ + 1) + "]";
      text += format_native_bugs(group, i + 1, threads_, symbols(), group_replay);
      for (std::size_t k = i; k < end; ++k)
        if (result_.bugs[k].repeats > 0)
          text += "  Bug " + std::to_string(k + 1) + " happened " +
                  group_digits(result_.bugs[k].repeats) + " more time" +
                  (result_.bugs[k].repeats == 1 ? "" : "s") +
                  (result_.bugs[k].outcome == Outcome::kDataRace
                       ? " (the same two instructions, on any memory, in any execution).\n"
                       : ".\n");
      if (enabled_by_races)
        text += "  Found with the instructions of the data races above as scheduling points (" +
                group_digits(promoted_count) + " promoted).\n";
      text += "\n";
      i = end;
    }
    return text;
  }

  // The verdict line and the notes after it.
  void print_verdict() {
    const SeenInPart& seen = seen_in_part_;
    // A state reached is one of the bugs above; what else the check says gets its own line.
    if (!global_note_.empty() &&
        !(global_result_ && global_result_->answer == GlobalCheckResult::Answer::kReached))
      std::printf("weft: %s\n", global_note_.c_str());
    switch (code_) {
      case kExitBug:
        std::printf("weft: %s bug%s found", group_digits(result_.bugs.size()).c_str(),
                    result_.bugs.size() == 1 ? "" : "s");
        // After the first bug the rest is unexplored by design; say so only when asked for more.
        if (!why_.empty() && !limits_.stop_on_first_bug)
          std::printf("; the exploration is incomplete: %s", why_.c_str());
        break;
      case kExitNoBug:
        std::printf("weft: no bug found; every behaviour %s%swas explored",
                    memory_model() == MemoryModel::kTso    ? "under x86-TSO "
                    : memory_model() == MemoryModel::kRc11 ? "under RC11 "
                    : seen.weak_memory()                   ? "under sequential consistency "
                                                           : "",
                    settings_.thread_symmetry
                        ? "up to the order of threads taken as interchangeable (--symmetry) "
                        : "");
        // What weft makes stronger than the language: fewer behaviours than C/C++ allows.
        if (memory_model() == MemoryModel::kRc11)
          std::printf(
              " (synchronisation besides atomics taken as acquiring and releasing its object)");
        if (!result_.answered_by.empty())
          std::printf(" (answered by %s)", result_.answered_by.c_str());
        break;
      case kExitUsage:
        std::printf("weft: %s", why_.c_str());
        break;
      default:
        // Every interleaving was explored, some executions up to the thread or step bound
        // only: a "true within bounds", never a proof.
        if (decision_.within_bounds())
          std::printf("weft: no bug found within the bounds: %s", why_.c_str());
        else
          std::printf("weft: no bug found, but the exploration is incomplete: %s", why_.c_str());
        break;
    }
    std::printf(" (%s)\n", format_statistics(result_.stats).c_str());
    if (!promoted_.empty())
      std::printf(
          "weft: %s instruction%s of data races became scheduling points (race-directed), in %s "
          "rounds of exploration; the verdict is that of the last round\n",
          group_digits(promoted_.size()).c_str(), promoted_.size() == 1 ? "" : "s",
          group_digits(rounds_).c_str());
    const bool races = std::any_of(result_.bugs.begin(), result_.bugs.end(),
                                   [](const auto& b) { return b.outcome == Outcome::kDataRace; });
    if (races && seen.races_may_be_false()) {
      std::string unseen;
      if (!seen.unseen_libraries.empty())
        unseen = "synchronisation inside " + listed(seen.unseen_libraries, 3) +
                 ", which weft did not compile,";
      if (!seen.kernel_talk.empty())
        unseen += std::string(unseen.empty() ? "" : " or ") + "communication through the kernel (" +
                  listed(seen.kernel_talk, 3) + "), which weft does not see,";
      std::printf("weft: the data races above may be false: %s may order those accesses\n",
                  unseen.c_str());
    }
    // What else limits the verdict when its reason is another (a sampling strategy's, a bound):
    // said, not lost. (A complete one says --symmetry in its own line.)
    if (settings_.thread_symmetry && code_ != kExitBug && code_ != kExitNoBug)
      std::printf(
          "weft: also, threads started at one function were taken as interchangeable "
          "(--symmetry): what was explored covers the behaviours up to their order\n");
    if (code_ != kExitBug && decision_.why != explorer::Incompleteness::kUnseenLibrary &&
        !seen.unseen_libraries.empty())
      std::printf(
          "weft: also, the program uses %s, which weft did not compile and which can synchronise "
          "threads with its own atomic instructions: what it orders, weft does not see\n",
          listed(seen.unseen_libraries, 3).c_str());
    if (code_ != kExitBug && decision_.why != explorer::Incompleteness::kKernelCommunication &&
        !seen.kernel_talk.empty())
      std::printf(
          "weft: also, the threads talked through the kernel (%s): the orders of those messages "
          "were not explored\n",
          listed(seen.kernel_talk, 3).c_str());
    if (bugs_not_kept_ > 0)
      std::printf(
          "weft: %s more distinct bugs were found and not kept: only the first %s are "
          "reported, to bound weft's memory\n",
          group_digits(bugs_not_kept_).c_str(), group_digits(limits_.max_bugs_kept).c_str());
    if (seen.weak_memory())
      std::printf(
          "weft: %s atomics weaker than seq_cst (at %s), which weft explores %s: behaviours only "
          "a weaker memory model allows were not explored\n",
          seen.weak_atomics.empty() ? "library code the program compiled in uses"
                                    : "the program uses",
          listed(seen.weak_atomics.empty() ? seen.weak_in_library : seen.weak_atomics, 3).c_str(),
          memory_model() == MemoryModel::kTso
              ? "as x86 runs them (--memory-model=tso; the C/C++ model, and ARM, allow more)"
          : memory_model() == MemoryModel::kRc11
              ? "as sequentially consistent (RC11 is modelled for the program's own atomics of "
                "up to 8 bytes, each location accessed at one size; a library's internals keep "
                "their contract with the processor)"
          : settings_.memory_model.has_value()
              ? "as sequentially consistent (--memory-model=tso explores x86's store buffers, "
                "rc11 the C/C++ model)"
              : sc_only_strategy_note().c_str());
    if (!unrestored_text_.empty() && code_ == kExitBug)
      std::printf(
          "weft: the program changed process state weft does not restore between executions "
          "(%s); a bug found after it may depend on it: check with --fresh-process\n",
          unrestored_text_.c_str());
  }

  // ---- helpers
  MemoryModel memory_model() const { return explorer::memory_model_of(settings_); }
  // Without --memory-model, a strategy that does not explore RC11 explores sequential
  // consistency: what the verdict's note on weak atomics says of it.
  std::string sc_only_strategy_note() const {
    return std::string("as sequentially consistent (--strategy ") +
           explorer::strategy_info(settings_.strategy).name +
           " explores sequential consistency only; the C/C++ model, which weft explores by "
           "default, needs one of " +
           explorer::strategies_taking(explorer::kExploresOptions) + ")";
  }
  // The program's symbols, made once per fork server (they need its load base and libraries).
  Symbolizer& symbols() {
    if (!symbols_) symbols_.emplace(program_.path, server_->load_base(), server_->libraries());
    return *symbols_;
  }
  std::vector<std::uint64_t> new_race_sites(const explorer::FoundBug& bug) const {
    std::vector<std::uint64_t> sites = race_sites(bug);
    std::erase_if(sites, [&](std::uint64_t site) { return promoted_.count(site) != 0; });
    return sites;
  }
  double seconds_spent() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  void add_gap(const std::string& gap) {
    result_.strategy_gaps += (result_.strategy_gaps.empty() ? "" : "; ") + gap;
  }

  const Program& program_;
  const ExploreSettings& settings_;
  // configure
  std::optional<GlobalCheck> global_;
  explorer::StrategyConfig config_;
  explorer::ExplorationLimits limits_;
  bool race_directed_ = false;
  bool check_every_state_ = false;
  std::optional<explorer::ModelledRunner> modelled_;
  // explore in rounds
  ThreadRegistry threads_;
  Program round_program_;
  std::unique_ptr<ForkServer> server_;
  std::optional<Symbolizer> symbols_;
  std::unique_ptr<explorer::Strategy> strategy_;  // the last round's
  std::chrono::steady_clock::time_point started_;
  std::set<std::uint64_t> promoted_;
  explorer::ExplorationResult result_;
  std::vector<RoundBug> found_;
  std::map<std::string, std::size_t> seen_;  // each bug's index in `found_`
  std::uint64_t bugs_not_kept_ = 0;
  std::size_t rounds_ = 0;
  std::uint64_t program_peak_kib_ = 0;  // of the program's processes, over every round
  bool every_state_read_inputs_ = false;
  bool global_resolved_ = false;
  // check global states
  std::optional<GlobalCheckResult> global_result_;
  std::string global_note_;
  // decide the verdict
  explorer::Decision decision_;
  int code_ = kExitUsage;
  std::string why_;
  std::string unrestored_text_;
  SeenInPart seen_in_part_;
  // write the reports
  std::string replay_path_;
  std::size_t replayed_bug_ = 0;
  std::string replay_command_;
};

}  // namespace

int explore_and_report(const Program& program, const ExploreSettings& settings) {
  return RunCommand(program, settings).run();
}

}  // namespace weft::driver
