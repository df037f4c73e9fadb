// Exploration strategies: given what was observed, choose the next test.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/explore/deadline.hpp"
#include "weft/explore/global_state.hpp"
#include "weft/explore/input_statistics.hpp"
#include "weft/explore/size_estimate.hpp"
#include "weft/explore/unfolding_dot.hpp"
#include "weft/explore/unfolding_statistics.hpp"
#include "weft/trace/directive.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

/// What a strategy that builds an unfolding offers besides its tests (thesis ch. 3-6):
/// Strategy::unfolding() returns it, or nullptr for a strategy that builds none.
class UnfoldingView {
 public:
  virtual ~UnfoldingView() = default;
  /// What it built so far.
  virtual const UnfoldingStatistics& statistics() const = 0;
  /// The unfolding in Graphviz's dot language (unfolding_dot.hpp).
  virtual std::string dot(const UnfoldingNames& names) const = 0;
  /// A test into a global state of the unfolding where `query` may hold (thesis §6.2), for a
  /// strategy built with StrategyConfig::record_written_values (else it says it cannot).
  virtual GlobalStateSearch search_global_state(const GlobalStateQuery& query) const = 0;
};

/// What a stateful strategy (thesis ch. 7) matched: the abstract states it explored, and the
/// nodes it cut off because their state had been explored before.
struct StateMatching {
  std::uint64_t states = 0;
  std::uint64_t cut_offs = 0;
  /// Executions that a bound (or their time limit) stopped after a state explored before: what
  /// the bound left out lies below that state, explored, so they leave no gap.
  std::uint64_t bounds_covered = 0;
  friend bool operator==(const StateMatching&, const StateMatching&) = default;
};

/// Every strategy is driven the same way: ask next() for a directive, run it, hand the observed
/// trace to observe(), repeat until next() returns nullopt (the strategy is exhausted). The
/// strategies own all exploration state; the runner that executes a directive is stateless, so it
/// can live in another process or on another machine (Saarikivi et al. §IV).
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// The next test to run, or nullopt when the strategy has nothing left to explore.
  virtual std::optional<TestDirective> next() = 0;
  /// The trace observed when running the directive last returned by next().
  virtual void observe(const Trace& trace) = 0;
  /// Whether exhausting this strategy means every behaviour was covered (false for random).
  virtual bool exhaustive() const { return true; }
  /// For a strategy that is not exhaustive: what its executions did cover, for the verdict
  /// (PCT's probability of finding a bug of its depth), or "".
  virtual std::string coverage() const { return {}; }
  /// The estimate of how many executions the strategy will run in all (size_estimate.hpp), for
  /// one built with StrategyConfig::estimate_size; else nullptr.
  virtual const SizeEstimate* size_estimate() const { return nullptr; }
  /// How the strategy explored inputs, or nullptr if it does not explore them.
  virtual const InputStatistics* input_statistics() const { return nullptr; }
  /// What a strategy that builds an unfolding offers of it; else nullptr.
  virtual const UnfoldingView* unfolding() const { return nullptr; }
  /// What a stateful strategy matched; else nullptr.
  virtual const StateMatching* state_matching() const { return nullptr; }
  /// For a strategy made of others (the portfolio): the one whose finishing covered every
  /// behaviour, for the verdict; else "".
  virtual std::string answered_by() const { return {}; }
  /// What exhausting it does not cover ("deadlocks and data races" for a strategy that covers
  /// every local state, not every global one), or nullptr.
  virtual const char* uncovered() const { return nullptr; }
  /// Why it did not cover all it set out to (one line), or "".
  virtual std::string gaps() const { return {}; }
  /// For a strategy made of others: whether the part that answered left nothing out at a bound,
  /// whatever the other parts' executions stopped at (a stateful search that closed the cycles
  /// the others unrolled up to the step bound).
  virtual bool answer_covers_bounds() const { return false; }
  /// The run's time limit: a strategy whose next() or observe() can take long on one execution
  /// (an unfolding of a long one) checks it in its loops and throws TimeLimitReached past it.
  virtual void set_deadline(Deadline) {}
};

/// Hands `trace` to `strategy` (observe) and says whether a bound or the execution's time limit
/// stopped it with behaviours left out: not when the strategy had, before the stop, reached a
/// state it explored before (StateMatching::bounds_covered).
bool observe_and_tell_bound_gap(Strategy& strategy, const Trace& trace);

/// A strategy, by the name `--strategy` takes: a row of the table of strategies (StrategyInfo).
/// The built-in ones have constants (StrategyKind::kPct); any row is StrategyKind{"its name"}.
class StrategyKind {
 public:
  /// The default strategy (optimal DPOR).
  constexpr StrategyKind() = default;
  constexpr explicit StrategyKind(std::string_view name) : name_(name) {}
  constexpr std::string_view name() const { return name_; }
  friend constexpr bool operator==(StrategyKind a, StrategyKind b) { return a.name_ == b.name_; }
  friend constexpr auto operator<=>(StrategyKind a, StrategyKind b) { return a.name_ <=> b.name_; }

  static const StrategyKind kDfs;   ///< every interleaving (the oracle)
  static const StrategyKind kDpor;  ///< Flanagan–Godefroid DPOR, every two accesses dependent
  static const StrategyKind kDporCommutingReads;  ///< DPOR where reads commute
  static const StrategyKind kOptimalDpor;         ///< source sets + wakeup trees: one run per trace
  static const StrategyKind kRandom;              ///< seeded random scheduling, a baseline
  static const StrategyKind kPct;                 ///< probabilistic concurrency testing
  static const StrategyKind kPreemptionBound;     ///< every schedule within k preemptions
  static const StrategyKind kDelayBound;          ///< every schedule within k delays
  static const StrategyKind kPortfolio;           ///< optimal DPOR if it fits the time, else shared
  static const StrategyKind kEstimate;            ///< only Knuth's estimate of optimal DPOR's size
  static const StrategyKind kUnfolding;           ///< unfolding testing with place replication
  static const StrategyKind kContextualUnfolding;  ///< contextual unfolding testing

 private:
  std::string_view name_ = "optimal";
};
inline constexpr StrategyKind StrategyKind::kDfs{"dfs"};
inline constexpr StrategyKind StrategyKind::kDpor{"dpor"};
inline constexpr StrategyKind StrategyKind::kDporCommutingReads{"dpor-cr"};
inline constexpr StrategyKind StrategyKind::kOptimalDpor{"optimal"};
inline constexpr StrategyKind StrategyKind::kRandom{"random"};
inline constexpr StrategyKind StrategyKind::kPct{"pct"};
inline constexpr StrategyKind StrategyKind::kPreemptionBound{"preemption-bound"};
inline constexpr StrategyKind StrategyKind::kDelayBound{"delay-bound"};
inline constexpr StrategyKind StrategyKind::kPortfolio{"portfolio"};
inline constexpr StrategyKind StrategyKind::kEstimate{"estimate"};
inline constexpr StrategyKind StrategyKind::kUnfolding{"unfolding"};
inline constexpr StrategyKind StrategyKind::kContextualUnfolding{"contextual"};

/// What a user chooses of a strategy, defined once: which one, and its parameters. What the
/// front ends offer (ExploreOptions) and what a strategy is built from (StrategyConfig) both
/// extend it.
struct StrategyChoice {
  StrategyKind strategy = StrategyKind::kOptimalDpor;
  /// Sleep sets (thesis §2.4) for DFS and both DPORs; optimal DPOR always uses them.
  bool sleep_sets = true;
  /// The unfolding strategies: once the unfolding is complete, search it for deadlocks (thesis
  /// §6.2, §6.3) and run a test into each one found. ExitBlock: reverse lock chain analysis
  /// where a block cannot take a lock, and the check for condition deadlocks (Bruening and
  /// Chapin §6, ExitBlock-DD), each with a run into what it found.
  bool search_deadlocks = false;
  /// Random, PCT and POS: how many executions, and the seed of the first.
  std::uint64_t random_executions = 1000;
  std::uint64_t seed = 1;
  /// PCT: the depth of the bugs it aims at (d: d-1 priority change points per execution), and
  /// the number of steps k among which the change points are placed (0: the longest execution
  /// seen so far, measured as it goes).
  std::uint32_t pct_depth = 3;
  std::uint64_t pct_steps = 0;
  /// The bounded searches: the highest bound to explore (they stop after its round).
  std::uint32_t max_bound = 0xffffffffu;
  /// Optimal DPOR: estimate how many executions it will run (size_estimate.hpp), with random
  /// walks among its executions (16 after every 320 of them; they count as executions too), so
  /// that a run cut short says what fraction it covered.
  bool estimate_size = false;
  /// Reachability testing: ignore the races of a completed sem_post (Lei and Carver §VII, the
  /// P/V reduction: V commutes with V, and with a P that found the count above zero).
  bool pv_reduction = false;
  /// Reachability testing: thread symmetry (Lei and Carver §VIII): of the threads one thread
  /// created to start at the same code, only one goes first where they would make the same
  /// call with the same past. Sound only if the program takes them as interchangeable, which
  /// weft cannot check (their data may differ); the verdict says it assumed so.
  bool thread_symmetry = false;
  /// Eraser's lockset check (explore/lockset.hpp) on every execution: each location accessed by
  /// two threads, one writing, with no lock held at every access, is reported (a prediction);
  /// ExitBlock's verdict rests on the discipline it checks.
  bool lockset = false;
  /// QPOR: the k of its k-partial alternatives, the disabled events an alternative must be in
  /// conflict with (1: cheap, some tests may end sleep-set blocked; large: optimal).
  std::uint32_t alternatives = 1;
  friend bool operator==(const StrategyChoice&, const StrategyChoice&) = default;
};

/// What a strategy is built from: the choice, and what the front end running it adds.
struct StrategyConfig : StrategyChoice {
  /// Unfolding strategies: keep what each write event wrote, for search_global_state.
  bool record_written_values = false;
  /// The portfolio: the seconds it has (it shares them among its strategies).
  double time_budget = 0;
  /// A schedule prefix the first execution follows (e.g. to start from a given interleaving).
  std::vector<ThreadId> initial_prefix;
  /// Every shared access is an event with its values (a native program run with --points=all):
  /// the strategies that match states (kMatchesStates) can run. The portfolio adds one then.
  bool every_access_an_event = false;
  /// The accesses have options (RC11): the tree searches explore them, without sleep sets
  /// (which steps commute is not yet worked out for options).
  bool access_options = false;
};

/// The options a strategy takes beyond the limits every strategy has (StrategyInfo::takes); the
/// command line refuses the unfolding's options for a strategy that builds none.
enum StrategyTakes : unsigned {
  kTakesSleepSets = 1u << 0,     ///< --no-sleep-sets
  kTakesExecutions = 1u << 1,    ///< --executions, --seed
  kTakesDepth = 1u << 2,         ///< --depth, --pct-steps
  kTakesBound = 1u << 3,         ///< --bound
  kTakesTimeBudget = 1u << 4,    ///< --time-limit, shared among its strategies
  kBuildsUnfolding = 1u << 5,    ///< --deadlocks, --dump-unfolding, --check-global (thesis ch. 6)
  kVisitsEveryState = 1u << 6,   ///< --check-global on every state of every execution
  kTakesReductions = 1u << 7,    ///< --pv-reduction, --symmetry
  kMatchesStates = 1u << 8,      ///< needs --points=all: its states hold the shared memory
  kTakesAlternatives = 1u << 9,  ///< --alternatives
  /// With --points=all, a part of it matches states (the portfolio's stateful testing): the
  /// program records its threads' local states for it.
  kMatchesStatesWhenItCan = 1u << 10,
  /// --deadlocks: looks for deadlocks its executions do not run into (ExitBlock-DD, §6).
  kSearchesDeadlocks = 1u << 11,
  /// --memory-model=tso: takes a store buffer's flushes as the steps of a thread of its own,
  /// like any other (the strategies that reason only about the trace's events).
  kWeakMemory = 1u << 12,
  /// --memory-model=rc11 (in process): explores each step's options too (which store a load
  /// reads, after which store a store goes), TestDirective::choices.
  kExploresOptions = 1u << 13,
  /// Explores the execution graphs of the C/C++ model, one execution each (strategies/trust.cpp):
  /// rc11 only, and never computes executions (the thread model computes interleavings).
  kExploresGraphs = 1u << 14,
};

/// One row of the table of strategies: all that the front ends (the command line, the in-process
/// API, the benchmarks) know of a strategy. Each file in src/explore/strategies/ lists its rows
/// (WEFT_STRATEGY_ROWS, strategies.hpp), and the table is made from those files: a new strategy
/// is its file and nothing else.
struct StrategyInfo {
  const char* name;         ///< as --strategy takes it
  const char* description;  ///< a few words for --help
  /// Where --help lists it (the default, 0, first); the order of the table.
  int order;
  ReadPolicy read_policy;  ///< the dependence between reads it explores with
  unsigned takes;          ///< StrategyTakes
  std::unique_ptr<Strategy> (*make)(const StrategyConfig& config);
  StrategyKind kind() const { return StrategyKind{name}; }
  bool has(StrategyTakes option) const { return (takes & option) != 0; }
};

/// Every strategy, the default first.
std::span<const StrategyInfo> strategies();
/// The row of `kind`; throws std::invalid_argument, naming the strategies, for a kind no row has.
const StrategyInfo& strategy_info(StrategyKind kind);

/// The dependence between reads that a strategy explores with.
ReadPolicy read_policy_of(StrategyKind kind);
std::unique_ptr<Strategy> make_strategy(const StrategyConfig& config);

const char* strategy_name(StrategyKind kind);
/// Parses a strategy's name ("optimal", "dpor-cr", "dpor", "dfs", "random", ...).
std::optional<StrategyKind> parse_strategy(std::string_view name);
/// The names, comma-separated, for messages ("optimal, dpor-cr, ...").
std::string strategy_names();
/// The names of the strategies that take `option`, for messages ("unfolding or contextual").
std::string strategies_taking(StrategyTakes option);

}  // namespace weft::explorer
