// The `weft` command line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <utility>

#include "weft/driver/commands.hpp"

namespace {

using weft::driver::ExploreSettings;
using weft::driver::Program;

// The options that belong to some strategies (StrategyInfo::takes), by the bit a row sets.
constexpr std::pair<weft::explorer::StrategyTakes, const char*> kStrategyOptions[] = {
    {weft::explorer::kTakesSleepSets, "--no-sleep-sets"},
    {weft::explorer::kTakesExecutions, "--executions"},
    {weft::explorer::kTakesExecutions, "--seed"},
    {weft::explorer::kTakesDepth, "--depth"},
    {weft::explorer::kTakesDepth, "--pct-steps"},
    {weft::explorer::kTakesBound, "--bound"},
    {weft::explorer::kTakesTimeBudget, "--time-limit"},
    {weft::explorer::kTakesReductions, "--pv-reduction"},
    {weft::explorer::kTakesReductions, "--symmetry"},
    {weft::explorer::kTakesAlternatives, "--alternatives"},
    {weft::explorer::kBuildsUnfolding, "--deadlocks"},
    {weft::explorer::kSearchesDeadlocks, "--deadlocks"},
    {weft::explorer::kBuildsUnfolding, "--dump-unfolding"},
    {weft::explorer::kBuildsUnfolding, "--check-global"},
    {weft::explorer::kVisitsEveryState, "--check-global"}};

// "Exploration strategy: optimal (...), dpor-cr (...; takes --no-sleep-sets), ...", from the
// table of strategies.
std::string strategy_help() {
  std::string help = "Exploration strategy:";
  for (const auto& s : weft::explorer::strategies()) {
    std::string takes;
    for (const auto& [option, name] : kStrategyOptions)
      if (s.has(option) && takes.find(name) == std::string::npos)
        takes += (takes.empty() ? "; takes " : ", ") + std::string(name);
    help +=
        std::string(help.back() == ':' ? " " : ", ") + s.name + " (" + s.description + takes + ")";
  }
  return help;
}

// Options shared by `check` and `run`, in the groups --help lists them in, by purpose.
void add_exploration_options(CLI::App& cmd, ExploreSettings& s, Program& p, std::string& strategy) {
  const std::string unfoldings =
      weft::explorer::strategies_taking(weft::explorer::kBuildsUnfolding);
  cmd.option_defaults()->group("Exploration");
  cmd.add_option("--strategy", strategy, strategy_help())
      ->default_str(
          "optimal, or portfolio with --time-limit (but optimal with --memory-model=rc11)");
  cmd.add_option("--points", p.options.points,
                 "Scheduling points: sync (synchronisation and atomics; plain accesses are "
                 "checked for data races) or all (every shared access)")
      ->check(CLI::IsMember({"sync", "all"}))
      ->capture_default_str();
  cmd.add_option_function<std::string>(
         "--memory-model",
         [&s, &p](const std::string& model) {
           p.options.memory_model = model;
           s.memory_model = weft::parse_memory_model(model);
         },
         "The memory model the executions follow: sc (sequential consistency: every store is "
         "seen at once), tso (x86-TSO: each thread's stores wait in a store buffer, which "
         "fences, locked instructions and synchronisation drain) or rc11 (the C/C++ model: a "
         "load may read any store coherence and happens-before allow; strategy optimal, a DPOR, "
         "dfs, random, pct or a bounded search); docs/memory-models.md")
      ->check(CLI::IsMember({"sc", "tso", "rc11"}))
      ->default_str("rc11, or sc with a strategy that does not explore it");
  cmd.add_flag(
      "--all-bugs", [&s](std::int64_t) { s.stop_on_first_bug = false; },
      "Keep exploring after the first bug");
  cmd.add_option("--stop-on", s.stop_on,
                 "Keep exploring past other bugs, and stop at the first whose kind or message "
                 "contains this text (e.g. \"reach_error\" or \"data race\")");
  cmd.add_flag(
      "--no-race-points", [&s](std::int64_t) { s.race_points = false; },
      "With --points=sync, keep the instructions of data races found from becoming scheduling "
      "points (one round of exploration: what a race enables stays unexplored)");
  cmd.add_flag("--deadlocks", s.search_deadlocks,
               "With --strategy " + unfoldings +
                   ": search the unfolding for deadlocks (mutexes, joins, condition variables, "
                   "semaphores), also ones no test ran into, and run a test into each (thesis "
                   "§6.2, §6.3); with --strategy " +
                   weft::explorer::strategies_taking(weft::explorer::kSearchesDeadlocks) +
                   ": reverse lock chain analysis where a block cannot take its lock, and the "
                   "check for condition deadlocks (ExitBlock-DD, Bruening and Chapin §6)");
  cmd.add_flag("--lockset", s.lockset,
               "Check every execution with Eraser's lockset: report each location two threads "
               "access, one writing, with no lock held at every access (a locking-discipline "
               "violation, predicted even where no execution runs the two as a race); with "
               "--strategy exitblock or exitblock-rw, the verdict then says whether the "
               "discipline their completeness rests on held");
  cmd.add_option("--check-global", s.check_global,
                 "With --points=all and --strategy " + unfoldings +
                     ": once the unfolding is built, search its global states for one where EXPR "
                     "holds (C arithmetic and comparisons over global variables, at(THREAD, LINE) "
                     "for a thread's place), "
                     "with Z3, and run a test into it (thesis §6.2); with --strategy dfs, check "
                     "every state of every execution")
      ->type_name("EXPR");
  cmd.add_flag(
      "--no-sleep-sets", [&s](std::int64_t) { s.sleep_sets = false; },
      "Disable sleep sets (dfs, dpor, dpor-cr)");
  cmd.add_option_function<std::string>(
         "--thread-model",
         [&s](const std::string& mode) {
           s.thread_model = mode;
           s.thread_model_given = true;
         },
         "Compute the executions whose every step weft has seen the threads take in earlier "
         "ones instead of running them (on; not under tso, and under rc11 only executions "
         "whose atomics are all seq_cst), always run them (off), or run them too and stop if "
         "the two differ (check)")
      ->check(CLI::IsMember({"on", "off", "check"}))
      ->default_str("on");
  cmd.add_option("--executions", s.random_executions,
                 "Executions of the random and pct strategies, walks of estimate")
      ->capture_default_str();
  cmd.add_flag(
      "--no-estimate", [&s](std::int64_t) { s.estimate_when_useful = false; },
      "Do not estimate optimal DPOR's size (random walks, about 5% of the executions, made when "
      "--time-limit may cut the run short or the progress line is shown)");
  cmd.add_option("--seed", s.seed, "Seed of the random and pct strategies")->capture_default_str();
  cmd.add_option("--depth", s.pct_depth,
                 "With --strategy pct: the depth of the bugs it aims at, the number of ordering "
                 "constraints a bug needs (depth - 1 priority change points per execution)")
      ->check(CLI::Range(1u, weft::explorer::kMaxPctDepth))
      ->capture_default_str();
  cmd.add_option("--alternatives", s.alternatives,
                 "With --strategy qpor: k of its k-partial alternatives, the disabled events an "
                 "alternative must conflict with (1: cheap, some tests may be redundant; large: "
                 "optimal, one test per maximal configuration)")
      ->check(CLI::Range(1u, weft::explorer::kMaxAlternatives))
      ->capture_default_str();
  cmd.add_option("--bound", s.max_bound,
                 "With --strategy preemption-bound or delay-bound: the highest bound to explore "
                 "(default: raise it until every schedule was run)");
  cmd.add_flag("--pv-reduction", s.pv_reduction,
               "With --strategy reachability: ignore the races of a completed sem_post (the P/V "
               "reduction of Lei and Carver; fewer sequences, the same behaviours)");
  cmd.add_flag("--symmetry", s.thread_symmetry,
               "With --strategy reachability: take the threads one thread created at the same "
               "start function as interchangeable, and run one order of them where they make the "
               "same call with the same past (thread symmetry of Lei and Carver; the verdict "
               "covers the behaviours up to that assumption)");
  cmd.add_option("--pct-steps", s.pct_steps,
                 "With --strategy pct: the steps among which the change points are placed (0: the "
                 "longest execution so far)")
      ->capture_default_str();
  cmd.add_flag("--count-traces", s.count_traces,
               "Also count the distinct Mazurkiewicz traces among the executions (costs a "
               "fingerprint per execution; shows how much a strategy's reduction leaves)");
  cmd.option_defaults()->group("Bounds");
  cmd.add_option("--max-executions", s.max_executions,
                 "Stop after this many executions (0: no limit)")
      ->capture_default_str();
  cmd.add_option("--time-limit", s.max_seconds, "Stop after this many seconds (0: no limit)")
      ->capture_default_str();
  cmd.add_option("--weft-memory-limit", s.weft_memory_mb,
                 "weft's own resident memory, in MiB, at which the run stops with its verdict so "
                 "far (0: half of the machine's memory)")
      ->capture_default_str();
  cmd.add_option("--execution-timeout", p.options.execution_seconds,
                 "Wall-clock seconds one execution may take before it is stopped (0: none)")
      ->capture_default_str();
  cmd.add_option("--memory-limit", p.options.memory_mb,
                 "Resident memory one execution may use, in MiB (0: none)")
      ->capture_default_str();
  cmd.add_option("--max-steps", p.options.max_steps_per_thread,
                 "Bound on the visible operations, and on the inputs read, of one thread in one "
                 "execution; a thread that reaches it stops there (the other threads run on)")
      ->capture_default_str();
  cmd.add_option("--max-threads", p.options.max_threads,
                 "Bound on the threads of one execution, main included; a pthread_create beyond it "
                 "stops its caller there (the other threads run on)")
      ->capture_default_str();
  cmd.option_defaults()->group("Program under test");
  cmd.add_option_function<std::int64_t>(
         "--nondet",
         [&p](const std::int64_t& value) {
           p.options.nondet_value = value;
           p.options.explore_inputs = false;
         },
         "Fixed inputs: every __VERIFIER_nondet_* and weft_input_* call returns this value "
         "instead of the values weft explores (then the verdict cannot cover every input)")
      ->type_name("INT");
  cmd.add_flag("--show-output", p.options.show_output,
               "Let the program's output through while exploring (it is hidden by default)");
  cmd.add_flag("--keep-spinning", p.options.keep_spinning,
               "Let threads go around busy-wait loops up to --max-steps, instead of stopping a "
               "thread after an iteration that neither left the loop nor changed anything (such "
               "executions are redundant: others run the writes it waits for first)");
  cmd.add_flag(
      "--no-memory-checks", [&p](std::int64_t) { p.options.memory_checks = false; },
      "Do not check heap accesses and frees for memory errors (use after free, overflows, "
      "double and invalid frees); frees are then not scheduling points either");
  cmd.add_flag("--leaks", p.options.leaks,
               "Report heap blocks still allocated when the program exits, once per allocation "
               "site");
  cmd.add_flag(
      "--no-library-cache", [&p](std::int64_t) { p.options.library_cache = false; },
      "Do not put the instrumented libraries of weft-lib's cache first on the program's library "
      "path (docs/process-state.md)");
  cmd.add_flag("--fresh-process", p.options.fresh_process,
               "Fork a fresh process for every execution, instead of one worker process that "
               "restores its memory after each (slower; for programs that change other process "
               "state, such as signal handlers or the working directory)");
  cmd.option_defaults()->group("Output");
  cmd.add_flag("--json", s.json, "Print the result as JSON on stdout");
  cmd.add_option("--replay-file", s.replay_file,
                 "Where to write the replay file of the first bug (default: "
                 "weft-replay-PROGRAM.json in the current directory)");
  cmd.add_option("--dump-unfolding", s.dump_unfolding,
                 "With --strategy " + unfoldings +
                     ": write the unfolding the tests built to this file, in Graphviz's dot "
                     "language (dot -Tsvg FILE -o FILE.svg draws it)")
      ->type_name("FILE.dot");
  cmd.add_option("--sarif", s.reports.sarif,
                 "Also write the result as SARIF 2.1.0 to this file (for GitHub code scanning and "
                 "SARIF viewers: each bug with its locations and interleaving)")
      ->type_name("FILE");
  cmd.add_option("--junit", s.reports.junit,
                 "Also write the result as a JUnit XML report to this file (a failure per bug)")
      ->type_name("FILE");
  cmd.add_option("--html", s.reports.html,
                 "Also write the result as one self-contained HTML page to this file (each "
                 "bug's interleaving as swimlanes, with its source lines)")
      ->type_name("FILE");
  cmd.add_flag("-q,--quiet", s.quiet, "No progress line on stderr");
}

// Splits `weft run [weft options] PROG [program arguments...]` at PROG: every word after it is
// the program's, verbatim, dashes included (a downloader's `-l x` must reach the downloader, and
// its `--json` must not switch weft to JSON). PROG is the first word that is neither a weft
// option nor the value of one; `--` before it is accepted. Returns the index of PROG in `args`
// (args.size() if there is none).
std::size_t program_position(const CLI::App& cmd, const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") return i + 1;
    if (word.size() < 2 || word[0] != '-') return i;
    if (word.find('=') != std::string::npos) continue;  // --option=value
    const CLI::Option* option = cmd.get_option_no_throw(word);
    // An unknown option is left to CLI11, which names it; a known one may take the next word.
    if (option && option->get_expected_min() > 0) ++i;
  }
  return args.size();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "weft: systematic testing of multithreaded C and C++ programs.\n"
      "Exit codes: 0 explored completely, no bug; 1 bug found; 2 usage or build error;\n"
      "3 no bug found but the exploration was incomplete (a bound or time limit was hit)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "weft " WEFT_VERSION " (built for LLVM " WEFT_LLVM_VERSION ")",
                       "Print weft's version and the LLVM it was built for, and exit");

  ExploreSettings settings;
  Program program;
  std::string strategy;  // "": optimal, or the portfolio when there is a time limit
  std::string source;
  std::vector<std::string> compiler_flags;
  auto* check = app.add_subcommand(
      "check",
      "Compile FILE.c or FILE.cpp with weft-cc and explore it (weft check FILE [options] "
      "[-- compiler flags])");
  check->add_option("file", source, "C or C++ source file")->required();
  add_exploration_options(*check, settings, program, strategy);
  check->add_option("compiler_flags", compiler_flags, "Flags for the compiler (after --)")
      ->group("Compile");
  check
      ->add_flag_callback(
          "--no-build-cache", [&] { settings.build_cache = false; },
          "Build the program even if an unchanged build of it was kept, and keep none "
          "(builds are kept in $WEFT_BUILD_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/weft/builds)")
      ->group("Compile");

  std::vector<std::string> command;
  auto* run = app.add_subcommand(
      "run", "Explore a program built by weft-cc (weft run [options] ./prog [args])");
  add_exploration_options(*run, settings, program, strategy);
  // PROG and its arguments are split off before parsing (program_position); the positional
  // option is there for --help only.
  std::vector<std::string> help_only;
  run->add_option("PROG", help_only,
                  "The program and its arguments: every word after PROG is the program's");

  std::vector<std::string> replay_args;
  bool gdb = false, replay_json = false;
  auto* replay = app.add_subcommand(
      "replay", "Re-execute a bug from its replay file (weft replay [./prog] FILE)");
  replay->add_option("args", replay_args, "[program] replay-file")->required()->expected(1, 2);
  replay->add_flag("--gdb", gdb, "Run it under gdb, stopped at the bug");
  replay->add_flag("--json", replay_json, "Print the result as JSON");
  weft::driver::ReportFiles replay_reports;
  replay->add_option("--sarif", replay_reports.sarif, "Also write the replayed bug as SARIF 2.1.0")
      ->type_name("FILE");
  replay
      ->add_option("--junit", replay_reports.junit,
                   "Also write the replayed bug as a JUnit XML report")
      ->type_name("FILE");
  replay
      ->add_option("--html", replay_reports.html,
                   "Also write the replayed bug as one self-contained HTML page")
      ->type_name("FILE");

  std::vector<std::string> words(argv + 1, argv + argc);
  std::reverse(words.begin(), words.end());  // CLI11 takes the arguments last-first
  {
    // The words after `run`: weft's options, then the program's command line.
    std::vector<std::string> forward(argv + 1, argv + argc);
    const std::size_t run_at = static_cast<std::size_t>(
        std::find(forward.begin(), forward.end(), "run") - forward.begin());
    bool only_options_before = true;  // `run` is the subcommand, not an option's value
    for (std::size_t i = 0; i < run_at && i < forward.size(); ++i)
      if (forward[i].empty() || forward[i][0] != '-') only_options_before = false;
    if (run_at < forward.size() && only_options_before) {
      const std::vector<std::string> rest(forward.begin() + static_cast<long>(run_at) + 1,
                                          forward.end());
      const std::size_t prog = program_position(*run, rest);
      command.assign(rest.begin() + static_cast<long>(prog), rest.end());
      std::vector<std::string> mine(forward.begin(),
                                    forward.begin() + static_cast<long>(run_at) + 1);
      const std::size_t weft_words =
          prog > 0 && prog <= rest.size() && rest[prog - 1] == "--" ? prog - 1 : prog;
      mine.insert(mine.end(), rest.begin(), rest.begin() + static_cast<long>(weft_words));
      words.assign(mine.rbegin(), mine.rend());
      // A weft option after the program is the program's argument; the program may well take
      // one of that name, so this is said, not refused.
      for (std::size_t i = 1; i < command.size(); ++i) {
        const std::string& word = command[i];
        if (word.size() < 3 || word.compare(0, 2, "--") != 0) continue;
        const std::string name = word.substr(0, word.find('='));
        if (run->get_option_no_throw(name) == nullptr) continue;
        std::fprintf(stderr,
                     "weft: note: %s comes after the program, so it is the program's argument, "
                     "not weft's option (weft run [options] ./prog [args])\n",
                     name.c_str());
        break;
      }
    }
  }

  try {
    app.parse(words);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, as every other usage error: what is wrong, and where the options are listed.
    std::fprintf(stderr,
                 "weft: error: %s (weft --help lists the commands, weft run --help the options)\n",
                 e.what());
    return weft::driver::kExitUsage;
  }

  try {
    // The portfolio does not explore RC11's options (docs/memory-models.md).
    if (strategy.empty())
      strategy = settings.memory_model == weft::MemoryModel::kRc11 ? "optimal"
                 : settings.max_seconds > 0                        ? "portfolio"
                                                                   : "optimal";
    const auto kind = weft::explorer::parse_strategy(strategy);
    if (!kind) {
      std::fprintf(stderr, "weft: unknown strategy '%s' (--strategy takes one of: %s)\n",
                   strategy.c_str(), weft::explorer::strategy_names().c_str());
      return weft::driver::kExitUsage;
    }
    settings.strategy = *kind;
    // Without --memory-model (settings.memory_model unset), the C/C++ model where the strategy
    // explores it; the others explore sequential consistency, and the verdict names the atomics
    // they took as seq_cst.
    program.options.memory_model =
        std::string(weft::memory_model_name(weft::explorer::memory_model_of(settings)));
    // An option of another strategy would be ignored by this one: refuse it instead. (The
    // time limit bounds every strategy; the unfolding's options have their own checks.)
    if (*check || *run) {
      using namespace weft::explorer;
      constexpr unsigned kRefused = kTakesSleepSets | kTakesExecutions | kTakesDepth | kTakesBound |
                                    kTakesReductions | kTakesAlternatives;
      const CLI::App& used = *check ? *check : *run;
      const StrategyInfo& row = strategy_info(*kind);
      for (const auto& [option, name] : kStrategyOptions)
        if ((option & kRefused) != 0 && used.count(name) > 0 && !row.has(option)) {
          std::fprintf(stderr,
                       "weft: error: option %s is not used by --strategy %s (it is for %s)\n", name,
                       row.name, strategies_taking(option).c_str());
          return weft::driver::kExitUsage;
        }
    }
    if (*check) return weft::driver::check_command(source, compiler_flags, program, settings);
    if (*run) {
      if (command.empty()) {
        std::fprintf(stderr,
                     "weft: error: no program given (weft run [options] PROG [arguments...])\n");
        return weft::driver::kExitUsage;
      }
      program.path = command.front();
      program.args.assign(command.begin() + 1, command.end());
      return weft::driver::run_command(program, settings);
    }
    const std::string file = replay_args.back();
    const std::string path = replay_args.size() == 2 ? replay_args.front() : "";
    return weft::driver::replay_command(file, path, gdb, replay_json, replay_reports);
  } catch (const weft::driver::DriverError& e) {
    std::fprintf(stderr, "weft: error: %s\n", e.what());
    return weft::driver::kExitUsage;
  }
}
