// Unfolding-based testing (thesis Fig. 3.11 and Fig. 5.5): every test aims at possible extensions
// of the unfolding the tests so far have built, until there are none. Covering the unfolding
// covers every reachable local state of every thread (thesis §5.8), with one test per target at
// most and often far fewer tests than Mazurkiewicz traces (Example 9).
//
// A test aims at several targets at once where it can: after the first, every other target that
// can fire together with the ones chosen (their conditions form a co-set and none takes a
// condition another needs) joins the test. The thesis' tests run freely after their target and
// so cover more by chance; choosing the extra targets makes that deliberate (Pairs needs two
// tests for every n either way).
//
// Inputs (thesis §3.5): each branch on an input-dependent condition is an event of its thread
// that consumes only the thread's condition, the side taken its result; the other side, from the
// same condition, is a target. A test's inputs make every branch event of its configuration go
// the way it went (the path constraint of the configuration, solved), the target's branch the
// other way; a target no input reaches is dropped. With branch events about, a test aims at one
// target (its inputs are solved for it).
//
// Quasi-optimal POR (QPOR, POET §3.7) explores the same unfolding differently: not one test per
// event, but one per maximal configuration, each the leftmost branch of a node of its exploration
// tree (alternative_tree.hpp) that has an alternative, so that deadlocks and races are covered
// too.
//
// Stateful unfolding-based testing (thesis §7.4, Fig. 7.6) is the same search with cut-offs: the
// targets go through a complete prefix (complete_prefix.hpp), which adds events in an adequate
// order and hands out one target at a time, none past a cut-off. Its states need every shared
// access to be an event with its values, as the stateful strategy's (state_fingerprints.hpp).
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "../alternative_tree.hpp"
#include "../complete_prefix.hpp"
#include "../cut_off_events.hpp"
#include "../state_fingerprints.hpp"
#include "strategies.hpp"
#include "weft/explore/blocked_markings.hpp"
#include "weft/explore/deadlock_search.hpp"
#include "weft/explore/input_statistics.hpp"
#include "weft/explore/possible_extensions.hpp"
#include "weft/explore/unfolding.hpp"
#include "weft/symbolic/solver.hpp"

namespace weft::explorer {
namespace {

// How many pending targets a test tries to add to its first (each try is a co-check).
constexpr std::size_t kMergeTries = 256;
// The solver's search for deadlocks on condition variables and semaphores: its limit per query,
// and the deadlocks it finds before their tests run (then it searches again, past them).
constexpr unsigned kBlockedMarkingTimeoutMs = 60000;
constexpr std::size_t kBlockedMarkingsPerSearch = 64;

class UnfoldingSearch final : public Strategy, public UnfoldingView {
 public:
  // `tree`: explore maximal configurations with QPOR's tree, alternatives k-partial with k from
  // the configuration.
  UnfoldingSearch(const StrategyConfig& config, UnfoldingModel model, bool cut_offs = false,
                  bool tree = false)
      : initial_prefix_(config.initial_prefix),
        unfolding_(model),
        search_deadlocks_(config.search_deadlocks),
        record_written_values_(config.record_written_values) {
    if (cut_offs) prefix_.emplace(unfolding_);
    if (tree) tree_.emplace(unfolding_, config.alternatives);
    // QPOR's cut-offs (POET §3.8) need states, which need every shared access as an event.
    if (cut_offs || (tree && config.every_access_an_event)) cut_off_events_.emplace(unfolding_);
  }

  std::optional<TestDirective> next() override {
    TestDirective d;
    d.read_policy = ReadPolicy::kReadsCommute;
    d.track_inputs = true;
    // With cut-offs, a thread that loops must not keep the others from their cut-offs or ends.
    if (cut_off_events_) d.policy = SchedulePolicy::kStickyInTurns;
    aimed_.clear();
    if (!started_) {
      started_ = true;
      d.prefix = initial_prefix_;
      return d;
    }
    if (prefix_) return next_in_prefix(std::move(d));
    if (tree_) return next_in_tree(std::move(d));
    std::vector<Unfolding::Extension> chosen;
    std::vector<EventIndex> configuration;
    while (!targets_.empty() && chosen.empty()) {
      Unfolding::Extension x = std::move(targets_.back());
      targets_.pop_back();
      if (covered(x)) continue;
      chosen.push_back(std::move(x));
      add_compatible_targets(chosen, targets_);
      if (!solve_inputs(chosen, configuration, d, &targets_)) chosen.clear();
    }
    if (chosen.empty()) {
      if (search_deadlocks_ && unfolding_.events() != events_when_searched_) search_deadlocks();
      if (deadlock_tests_.empty()) return std::nullopt;
      d.prefix = std::move(deadlock_tests_.back().prefix);
      d.inputs = std::move(deadlock_tests_.back().inputs);
      deadlock_tests_.pop_back();
      return d;
    }
    const std::vector<EventIndex> schedule = unfolding_.schedule_of(configuration);
    d.prefix = prefix_of(schedule);
    stats_.targets_per_test_max =
        std::max<std::uint64_t>(stats_.targets_per_test_max, chosen.size());
    for (auto& x : chosen) {
      aimed_.push_back({std::move(x), d.prefix.size()});
      // (A branch is no step: its thread takes it running on from its last event.)
      if (aimed_.back().target.op.kind != OpKind::kSymbolicBranch)
        d.prefix.push_back(aimed_.back().target.thread);
    }
    return d;
  }

  void set_deadline(Deadline deadline) override {
    deadline_ = deadline;
    extensions_.set_deadline(&deadline_);
  }

  void observe(const Trace& trace) override {
    std::optional<StateFingerprints::Changes> changes;
    if (cut_off_events_) {
      if (!why_.empty()) return;
      changes = fingerprints_.changes_of(trace);
      // QPOR explores without cut-offs a program whose states the fingerprint cannot hold, if
      // it finds so at once; later, the cut-offs made so far may have been wrong: it stops.
      if (!changes && !prefix_ && tests_modelled_ == 0 && stats_.restarts == 0)
        cut_off_events_.reset();
      else if (!changes) {
        why_ = fingerprints_.why();
        return;
      }
    }
    for (const Event& e : trace.events)
      channel_events_ += domain_of(e.op.kind) == Domain::kChannel ? 1 : 0;
    for (const PendingThread& p : trace.pending)
      channel_events_ += domain_of(p.op.kind) == Domain::kChannel ? 1 : 0;
    model(trace, changes ? &*changes : nullptr);
    account_for_targets(trace);
    const auto started = std::chrono::steady_clock::now();
    std::vector<Unfolding::Extension> found = extensions_.update();
    stats_.extension_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    stats_.extensions += found.size() + flips_.size();
    ++tests_modelled_;
    sample_growth();
    // Nothing past a cut-off is explored: no extension that takes or reads what one produced.
    if (cut_off_events_) {
      const auto beyond = [this](const Unfolding::Extension& x) {
        return cut_off_events_->beyond(x);
      };
      std::erase_if(found, beyond);
      std::erase_if(flips_, beyond);
    }
    if (prefix_) {
      for (auto& x : found) prefix_->add_target(std::move(x));
      for (auto& x : flips_) prefix_->add_target(std::move(x));
      flips_.clear();
      return;
    }
    if (tree_) {
      for (auto& x : found) tree_->add_extension(std::move(x));
      for (auto& x : flips_) tree_->add_extension(std::move(x));
      flips_.clear();
      tree_->observe(fired_);
      return;
    }
    for (auto& x : found) targets_.push_back(std::move(x));
    for (auto& x : flips_) targets_.push_back(std::move(x));
    flips_.clear();
  }

  const UnfoldingView* unfolding() const override { return this; }
  const StateMatching* state_matching() const override {
    if (prefix_) {
      matching_.states = prefix_->states();
      matching_.cut_offs = prefix_->cut_offs();
    } else if (cut_off_events_) {
      matching_.states = cut_off_events_->states();
      matching_.cut_offs = cut_off_events_->cut_offs();
    } else {
      return nullptr;
    }
    return &matching_;
  }

  std::string dot(const UnfoldingNames& names) const override {
    return explorer::unfolding_dot(unfolding_, sites_, names);
  }

  GlobalStateSearch search_global_state(const GlobalStateQuery& query) const override {
    GlobalStateSearch out;
    if (!record_written_values_) {
      out.problem = "the strategy was not asked to record written values";
      return out;
    }
    return explorer::search_global_state(record(), query);
  }

  // What the SMT searches read besides the unfolding (written values only if recorded).
  UnfoldingRecord record() const {
    UnfoldingRecord r;
    r.unfolding = &unfolding_;
    r.sites = &sites_;
    r.written = &written_;
    r.written_expressions = &written_expressions_;
    r.pool = &pool_;
    r.branch_constraints = &branch_constraints_;
    r.inputs = input_variables_;
    r.input_keys = input_keys_;
    return r;
  }

  // A growth sample each time the events pass a power of two (memory_bytes walks the
  // unfolding, so not more often).
  void sample_growth() {
    if (unfolding_.events() < next_growth_sample_) return;
    while (next_growth_sample_ <= unfolding_.events()) next_growth_sample_ *= 2;
    stats_.growth.push_back({tests_modelled_, unfolding_.events(), unfolding_.conditions(),
                             unfolding_.memory_bytes() + extensions_.memory_bytes(),
                             extensions_.co_checks(),
                             stats_.extension_seconds - extension_seconds_at_start_});
  }

  const UnfoldingStatistics& statistics() const override {
    stats_.events = unfolding_.events();
    stats_.conditions = unfolding_.conditions();
    stats_.co_checks = extensions_.co_checks();
    stats_.bytes = unfolding_.memory_bytes() + extensions_.memory_bytes();
    return stats_;
  }

  const InputStatistics* input_statistics() const override {
    const symbolic::SolverStatistics& s = solver_.statistics();
    input_stats_.solver_queries = s.queries;
    input_stats_.solver_calls = s.solver_calls;
    input_stats_.cache_hits = s.cache_hits;
    input_stats_.solver_seconds = std::chrono::duration<double>(s.time).count();
    return &input_stats_;
  }
  const char* uncovered() const override {
    if (tree_) return nullptr;  // every maximal configuration: deadlocks and races too
    return search_deadlocks_ ? "data races" : "deadlocks and data races";
  }
  std::string gaps() const override {
    std::string out;
    if (!why_.empty()) out = "it stopped: " + why_;
    if (missed_)
      out += std::string(out.empty() ? "" : "; ") + std::to_string(missed_) +
             " events of the unfolding could not be reached by the schedule computed for them";
    if (const std::uint64_t skipped = extensions_.combinations_skipped())
      out += std::string(out.empty() ? "" : "; ") + std::to_string(skipped) +
             " operations touch so many objects that their possible extensions were not all "
             "computed";
    // Its conditions do not say when a receive or a selective wait is blocked: the targets it
    // computes past one may be unreachable, and local states behind them missed
    // (unfolding_differential_test.cpp, UnfoldingChannelDifferential).
    if (channel_events_)
      out += std::string(out.empty() ? "" : "; ") + std::to_string(channel_events_) +
             " channel operations ran or waited, whose blocking the unfolding does not model yet "
             "(use --strategy optimal for programs with channels)";
    if (blocked_search_timed_out_)
      out += std::string(out.empty() ? "" : "; ") +
             "the search for deadlocks on condition variables and semaphores timed out in the "
             "solver (" +
             std::to_string(kBlockedMarkingTimeoutMs / 1000) + " s)";
    if (nondeterministic_)
      out += std::string(out.empty() ? "" : "; ") + std::to_string(nondeterministic_) +
             " times a thread did something else from the same point of the unfolding (its "
             "behaviour depends on state the events do not show)";
    return out;
  }

 private:
  // Stateful unfolding (thesis Fig. 7.6): the prefix adds the ready events up to a target no test
  // reached, and the test aims at that one.
  // Inputs that take every branch of the configuration reaching `chosen` its way and the
  // targets' other ways (thesis §3.5), into `d` with that configuration. If the extra targets
  // ask too much, the first alone (the others go back to `left_out`, if given). False when no
  // input reaches the first: it is no event of the program.
  bool solve_inputs(std::vector<Unfolding::Extension>& chosen,
                    std::vector<EventIndex>& configuration, TestDirective& d,
                    std::vector<Unfolding::Extension>* left_out) {
    configuration = configuration_of(needed_by(chosen));
    Inputs inputs = inputs_for(configuration, chosen);
    if (!inputs.solved() && chosen.size() > 1) {
      if (left_out)
        for (std::size_t i = 1; i < chosen.size(); ++i) left_out->push_back(std::move(chosen[i]));
      chosen.resize(1);
      configuration = configuration_of(needed_by(chosen));
      inputs = inputs_for(configuration, chosen);
    }
    if (!inputs.solved()) {
      count_unsolved(inputs.answer);
      return false;
    }
    input_stats_.flips += flips_chosen(chosen);
    d.inputs = std::move(inputs.values);
    return true;
  }

  std::optional<TestDirective> next_in_prefix(TestDirective d) {
    if (!why_.empty()) return std::nullopt;
    std::vector<Unfolding::Extension> chosen;
    std::vector<EventIndex> configuration;
    while (chosen.empty()) {
      std::optional<Unfolding::Extension> x = prefix_->next();
      if (!x) return std::nullopt;
      chosen.push_back(std::move(*x));
      std::vector<Unfolding::Extension> others = prefix_->open_targets(kMergeTries);
      add_compatible_targets(chosen, others);
      // The prefix still holds the targets left out: it offers them again.
      if (!solve_inputs(chosen, configuration, d, nullptr)) chosen.clear();
    }
    d.prefix = prefix_of(unfolding_.schedule_of(configuration));
    for (auto& target : chosen) {
      aimed_.push_back({std::move(target), d.prefix.size()});
      if (aimed_.back().target.op.kind != OpKind::kSymbolicBranch)
        d.prefix.push_back(aimed_.back().target.thread);
    }
    return d;
  }

  // QPOR: the right child of the deepest node with an alternative (alternative_tree.hpp) whose
  // branches inputs can take: replay the node's configuration, then the alternative, then run on
  // with the node's disabled events asleep.
  std::optional<TestDirective> next_in_tree(TestDirective d) {
    const auto branch = tree_->next([&](const AlternativeTree::Branch& b) {
      std::vector<EventIndex> configuration = b.replay;
      configuration.insert(configuration.end(), b.alternative.begin(), b.alternative.end());
      std::vector<Unfolding::Extension> targets;
      if (b.extension) targets.push_back(*b.extension);
      Inputs inputs = inputs_for(configuration, targets);
      if (!inputs.solved()) {
        count_unsolved(inputs.answer);
        return false;
      }
      d.inputs = std::move(inputs.values);
      return true;
    });
    if (!branch) return std::nullopt;
    d.prefix = prefix_of(branch->replay);
    d.sleep_from = d.prefix.size();
    const std::vector<ThreadId> then = prefix_of(branch->alternative);
    d.prefix.insert(d.prefix.end(), then.begin(), then.end());
    if (branch->extension) {
      if (branch->extension->op.kind == OpKind::kSymbolicBranch)
        ++input_stats_.flips;
      else
        d.prefix.push_back(branch->extension->thread);
    }
    // A branch on inputs is no scheduling choice: the inputs keep it from going its way again.
    for (EventIndex e : branch->asleep)
      if (const UnfoldingEvent& ev = unfolding_.event(e); ev.op.kind != OpKind::kSymbolicBranch)
        d.sleep.push_back({ev.thread, ev.op});
    return d;
  }

  // With cut-offs: a new event's change of the state decides whether it is a cut-off (the
  // prefix learns both); one seen again must change it as before. Whether it is a cut-off.
  bool note_change(EventIndex fired, bool added, std::uint64_t change) {
    if (added) {
      const bool cut_off = cut_off_events_->add(fired, change);
      if (prefix_) prefix_->add_event(fired, change, cut_off);
      return cut_off;
    }
    if (!cut_off_events_->same_change(fired, change) && why_.empty())
      why_ =
          "an event changed the state differently from before: the state is more than the "
          "fingerprint holds (heap addresses, the time)";
    return cut_off_events_->is_cut_off(fired);
  }

  // Searches the unfolding for deadlocks and queues a test into each new one (thesis §6.3).
  void search_deadlocks() {
    const auto started = std::chrono::steady_clock::now();
    events_when_searched_ = unfolding_.events();
    DeadlockCandidates found = find_deadlocks(unfolding_, {&held_, &extensions_.next_operations()});
    // Threads blocked for good on condition variables, semaphores and futex words: from the
    // solver, past the sets known already. Once it has timed out it is not asked again (the
    // unfolding only grows); the verdict says so.
    if (!blocked_search_timed_out_) {
      std::vector<std::vector<ConditionIndex>> known(deadlocks_seen_.begin(),
                                                     deadlocks_seen_.end());
      known.insert(known.end(), deadlocks_tried_.begin(), deadlocks_tried_.end());
      if (!deadlock_solver_)
        deadlock_solver_ = std::make_unique<symbolic::Solver>(kBlockedMarkingTimeoutMs);
      const BlockedMarkings blocked =
          find_blocked_markings(record(), extensions_.next_operations(), known, *deadlock_solver_,
                                kBlockedMarkingsPerSearch);
      stats_.deadlock_solver_calls += blocked.solver_calls;
      blocked_search_timed_out_ = !blocked.complete;
      if (blocked.more) events_when_searched_ = kSearchAgain;
      found.sets.insert(found.sets.end(), blocked.sets.begin(), blocked.sets.end());
    }
    for (const auto& set : found.sets) {
      // One a test ran into already: its threads' conditions are among a deadlock's last ones.
      const bool seen =
          std::any_of(deadlocks_seen_.begin(), deadlocks_seen_.end(), [&](const auto& last) {
            return std::includes(last.begin(), last.end(), set.begin(), set.end());
          });
      if (seen || !deadlocks_tried_.insert(set).second) continue;
      ++stats_.deadlock_candidates;
      const std::vector<EventIndex> configuration = configuration_of(set);
      // With branch events in it, only inputs that take them their ways reach it.
      Inputs inputs = inputs_for(configuration, {});
      if (!inputs.solved()) {
        count_unsolved(inputs.answer);
        continue;
      }
      deadlock_tests_.push_back(
          {prefix_of(unfolding_.schedule_of(configuration)), std::move(inputs.values)});
    }
    stats_.deadlock_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }

  // The mutexes the thread holds at each thread condition of an event it fired.
  void note_held(const UnfoldingEvent& ev) {
    const ConditionIndex after = ev.postset.front();
    if (held_.count(after)) return;
    std::vector<ObjectKey> held;
    if (const auto it = held_.find(ev.preset.front()); it != held_.end()) held = it->second;
    if (acquires_mutex(ev.op)) held.push_back(mutex_of(ev.op));
    if (releases_mutex(ev.op))
      if (auto it = std::find(held.begin(), held.end(), mutex_of(ev.op)); it != held.end())
        held.erase(it);
    if (!held.empty()) held_.emplace(after, std::move(held));
  }

  struct Aim {
    Unfolding::Extension target;
    std::size_t step;  // where in the prefix it fires
  };

  bool covered(const Unfolding::Extension& x) const {
    return unfolding_.find_event(x.preset, x.context, x.op) != kInitialCondition;
  }

  // The scheduling steps of a schedule of events: a branch on inputs is none (its thread takes
  // it as it runs on from its event before).
  std::vector<ThreadId> prefix_of(const std::vector<EventIndex>& schedule) const {
    std::vector<ThreadId> prefix;
    for (EventIndex e : schedule)
      if (unfolding_.event(e).op.kind != OpKind::kSymbolicBranch)
        prefix.push_back(unfolding_.event(e).thread);
    return prefix;
  }

  static std::size_t flips_chosen(const std::vector<Unfolding::Extension>& chosen) {
    return static_cast<std::size_t>(std::count_if(
        chosen.begin(), chosen.end(),
        [](const Unfolding::Extension& x) { return x.op.kind == OpKind::kSymbolicBranch; }));
  }

  static std::vector<ConditionIndex> needed_by(const std::vector<Unfolding::Extension>& chosen) {
    std::vector<ConditionIndex> needed;
    for (const auto& x : chosen) {
      needed.insert(needed.end(), x.preset.begin(), x.preset.end());
      needed.insert(needed.end(), x.context.begin(), x.context.end());
    }
    return needed;
  }

  // Input values under which the configuration's branch events go their way and each target
  // branch the other way (thesis §3.5); the answer unless satisfiable.
  struct Inputs {
    symbolic::Answer answer = symbolic::Answer::kSatisfiable;
    std::vector<InputValue> values;
    bool solved() const { return answer == symbolic::Answer::kSatisfiable; }
  };
  Inputs inputs_for(const std::vector<EventIndex>& configuration,
                    const std::vector<Unfolding::Extension>& targets) {
    std::vector<symbolic::Constraint> path;
    for (EventIndex e : configuration)
      if (const auto it = branch_constraints_.find(e); it != branch_constraints_.end())
        path.push_back(it->second);
    for (const Unfolding::Extension& x : targets)
      if (x.op.kind == OpKind::kSymbolicBranch)
        path.push_back({other_sides_.at(x.preset.front()).condition, x.op.result != 0});
    if (path.empty()) return {};
    // One conjunction: the solver leaves out the constraints that share no input with its target
    // as holding already under the current values, and the branch events come from executions
    // with different values.
    symbolic::ExprId all = symbolic::kConcrete;
    for (const symbolic::Constraint& c : path) {
      symbolic::ExprId term = pool_.is_nonzero(c.condition);
      if (!c.holds) term = pool_.unary(symbolic::ExprKind::kNot, term);
      all = all == symbolic::kConcrete ? term : pool_.binary(symbolic::ExprKind::kAnd, all, term);
    }
    const symbolic::Solution s = solver_.solve(pool_, {}, {all, true}, input_variables_);
    Inputs out{s.answer, {}};
    if (!out.solved()) return out;
    for (std::size_t i = 0; i < input_keys_.size(); ++i)
      out.values.push_back({input_keys_[i], s.values[i]});
    std::sort(out.values.begin(), out.values.end(),
              [](const InputValue& a, const InputValue& b) { return a.key < b.key; });
    return out;
  }

  void count_unsolved(symbolic::Answer answer) {
    ++(answer == symbolic::Answer::kUnknown ? input_stats_.solver_unknown
                                            : input_stats_.infeasible);
  }

  // The input's number in pool_ (the same in every execution).
  std::uint32_t input_number(const InputRead& read) {
    const auto [it, added] =
        input_numbers_.try_emplace(read.key, static_cast<std::uint32_t>(input_keys_.size()));
    if (added) {
      input_keys_.push_back(read.key);
      input_variables_.push_back({read.width, 0, read.key.packed()});
    }
    return it->second;
  }

  std::vector<EventIndex> configuration_of(const std::vector<ConditionIndex>& needed) const {
    return unfolding_.configuration_of(needed);
  }

  // Moves to `chosen` targets of `pool` that can fire in the same test (see the file comment).
  void add_compatible_targets(std::vector<Unfolding::Extension>& chosen,
                              std::vector<Unfolding::Extension>& pool) {
    std::vector<ConditionIndex> all, consumed, observed;
    const auto take = [&](const Unfolding::Extension& x) {
      all.insert(all.end(), x.preset.begin(), x.preset.end());
      all.insert(all.end(), x.context.begin(), x.context.end());
      consumed.insert(consumed.end(), x.preset.begin(), x.preset.end());
      observed.insert(observed.end(), x.context.begin(), x.context.end());
    };
    const auto meets = [](const std::vector<ConditionIndex>& a,
                          const std::vector<ConditionIndex>& b) {
      return std::any_of(a.begin(), a.end(), [&](ConditionIndex c) {
        return std::find(b.begin(), b.end(), c) != b.end();
      });
    };
    take(chosen.front());
    std::size_t tries = 0;
    for (std::size_t i = pool.size(); i-- > 0 && tries < kMergeTries;) {
      const Unfolding::Extension& x = pool[i];
      if (covered(x) || meets(x.preset, consumed) || meets(x.preset, observed) ||
          meets(x.context, consumed))
        continue;
      ++tries;
      std::vector<ConditionIndex> with = all;
      with.insert(with.end(), x.preset.begin(), x.preset.end());
      with.insert(with.end(), x.context.begin(), x.context.end());
      std::sort(with.begin(), with.end());
      with.erase(std::unique(with.begin(), with.end()), with.end());
      if (!unfolding_.concurrent(with)) continue;
      take(x);
      chosen.push_back(std::move(pool[i]));
      pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // Place replication gives each thread a copy of every variable (thesis §3.2), so the threads
  // must be known before the first event (§3.7); and memory places must not be split once they
  // have conditions (unfolding.hpp). A test that shows one more thread, or an access that splits
  // a place, makes the exploration start over with them; the tests so far are not needed again
  // (the one that showed it is modelled afresh), and in most programs the first test shows
  // every thread there is and how each variable is accessed.
  void refresh_model(const Trace& trace) {
    bool stale = false;
    for (const Event& e : trace.events) stale |= unfolding_.learn_places(e.op);
    for (const PendingThread& p : trace.pending) stale |= unfolding_.learn_places(p.op);
    std::vector<ThreadId> threads = unfolding_.copy_holders();
    if (unfolding_.model() == UnfoldingModel::kPlaceReplication) {
      const std::size_t known = threads.size();
      const auto add = [&](ThreadId t) {
        if (std::find(threads.begin(), threads.end(), t) == threads.end()) threads.push_back(t);
      };
      for (const Event& e : trace.events) {
        add(e.thread);
        if (e.op.kind == OpKind::kThreadCreate) add(static_cast<ThreadId>(e.op.object));
      }
      if (threads.size() != known) {
        if (unfolding_.events() > 0)
          stale = true;
        else
          unfolding_.set_copy_holders(threads);
      }
    }
    if (stale) {
      ++stats_.restarts;
      stats_.growth.clear();
      next_growth_sample_ = kFirstGrowthSample;
      tests_modelled_ = 0;
      extension_seconds_at_start_ = stats_.extension_seconds;
      MemoryPlaces places = unfolding_.places();
      unfolding_ = Unfolding(unfolding_.model());
      unfolding_.set_places(std::move(places));
      unfolding_.set_copy_holders(std::move(threads));
      extensions_ = PossibleExtensions(unfolding_);
      extensions_.set_deadline(&deadline_);
      if (prefix_) prefix_.emplace(unfolding_);
      if (cut_off_events_) cut_off_events_.emplace(unfolding_);
      if (tree_) tree_->reset();
      targets_.clear();
      aimed_.clear();
      missed_ = 0;
      held_.clear();
      events_when_searched_ = 0;
      blocked_search_timed_out_ = false;
      deadlocks_tried_.clear();
      deadlocks_seen_.clear();
      deadlock_tests_.clear();
      sites_.clear();
      written_.clear();
      written_expressions_.clear();
      branch_constraints_.clear();
      other_sides_.clear();
      flips_.clear();
    }
  }

  // Fires the execution's events in the unfolding (thesis Fig. 5.5, lines 7-16) and learns what
  // each thread does next from each of its conditions. With cut-offs, the prefix learns each
  // event's `changes` of the state.
  void model(const Trace& trace, const StateFingerprints::Changes* changes) {
    refresh_model(trace);
    fired_.clear();
    const InputObservations& in = trace.symbolic;
    if (!in.inputs.empty()) ++input_stats_.executions_with_inputs;
    input_stats_.unconstrained_concretisations += in.unconstrained_concretisations;
    std::vector<std::uint32_t> numbers;  // this execution's input numbers in pool_
    for (const InputRead& read : in.inputs) numbers.push_back(input_number(read));
    std::size_t next_branch = 0;
    Unfolding::Marking marking;
    std::vector<ConditionIndex> at;  // each thread's condition, by ThreadId
    std::vector<bool> done;
    Beyond beyond;
    const auto learn = [&](ConditionIndex c, std::optional<Operation> op,
                           const std::vector<ConditionIndex>& held) {
      // A result the conditions decide (a semaphore's count, a trylock's) is not the thread's.
      if (op) op->result = 0;
      if (extensions_.learn(c, op, held) == PossibleExtensions::Learned::kDifferent)
        ++nondeterministic_;
    };
    // The branches a thread took before event `step`, as events of its own (thesis §3.5).
    const auto fire_branches_before = [&](std::size_t step) {
      for (; next_branch < in.branches.size() && in.branches[next_branch].step <= step;
           ++next_branch) {
        const SymbolicBranch& b = in.branches[next_branch];
        if (beyond.thread(b.thread)) continue;
        if (b.thread >= at.size() || at[b.thread] == kInitialCondition) {
          at.resize(std::max<std::size_t>(at.size(), b.thread + 1), kInitialCondition);
          done.resize(at.size(), false);
        }
        Event e;
        e.thread = b.thread;
        e.op.kind = OpKind::kSymbolicBranch;
        e.op.object = b.site;
        e.op.result = b.taken;
        const auto [fired, added] = unfolding_.fire(marking, e);
        fired_.push_back(fired);
        const UnfoldingEvent& ev = unfolding_.event(fired);
        if (search_deadlocks_) note_held(ev);
        if (changes && note_change(fired, added, changes->branches[next_branch]))
          beyond.cut_off(ev);
        if (added) {
          sites_.push_back(b.site);
          const symbolic::ExprId condition = pool_.import(in.expressions, b.condition, numbers);
          branch_constraints_[fired] = {condition, b.taken};
          if (b.kind == BranchKind::kConcretisation) ++input_stats_.concretisations;
          if (b.kind == BranchKind::kBranch) {  // the other side, from the same condition
            other_sides_[ev.preset.front()] = {condition, !b.taken};
            Unfolding::Extension other{b.thread, e.op, {ev.preset.front()}, {}};
            other.op.result = !b.taken;
            flips_.push_back(std::move(other));
          }
        }
        learn(ev.preset.front(), e.op, {});
        at[b.thread] = ev.postset.front();
      }
    };
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      deadline_.check();  // a long execution's events cost more each (their causes)
      fire_branches_before(i);
      const Event& e = trace.events[i];
      // The end of the process comes last, when no other thread can run: nothing follows it,
      // so it adds no local state, and as an event it would take (and put back) every condition.
      if (e.op.kind == OpKind::kProcessExit) {
        if (e.thread < at.size() && at[e.thread] != kInitialCondition && !beyond.thread(e.thread))
          learn(at[e.thread], e.op, {});
        continue;
      }
      if (changes) {
        std::vector<ConditionIndex> touched;
        const Beyond::Past past = beyond.skips(e, unfolding_, marking, touched);
        // A thread that was not past one is stopped by what it takes: what it does next from its
        // condition is still an operation another configuration may reach.
        if (past == Beyond::Past::kNewly && e.thread < at.size() &&
            at[e.thread] != kInitialCondition)
          learn(at[e.thread], e.op, touched);
        if (past != Beyond::Past::kNo) continue;
      }
      std::vector<ConditionIndex> held = unfolding_.held_before(marking, e.thread, e.op);
      const auto [fired, added] = unfolding_.fire(marking, e);
      fired_.push_back(fired);
      const UnfoldingEvent& ev = unfolding_.event(fired);
      if (search_deadlocks_) note_held(ev);
      const bool cut_off = changes && note_change(fired, added, changes->events[i]);
      if (cut_off) beyond.cut_off(ev);
      if (added) {
        sites_.push_back(i < trace.sites.size() ? trace.sites[i] : 0);
        if (record_written_values_ && writes_value(e.op.kind) && i < trace.values.size()) {
          written_.emplace(fired, trace.values[i]);
          if (const auto x = trace.values[i].written_expression;
              x != 0 && (trace.values[i].known & AccessValues::kWrittenFromInputs))
            written_expressions_.emplace(fired, pool_.import(in.expressions, x, numbers));
        }
      }
      learn(ev.preset.front(), e.op, unfolding_.held_after(ev, std::move(held)));
      if (e.thread >= at.size()) {
        at.resize(e.thread + 1, kInitialCondition);
        done.resize(e.thread + 1, false);
      }
      at[e.thread] = ev.postset.front();
      if (i < trace.finished_thread.size() && trace.finished_thread[i]) done[e.thread] = true;
      if (e.op.kind == OpKind::kThreadCreate) {
        const auto child = static_cast<ThreadId>(e.op.object);
        if (child >= at.size()) {
          at.resize(child + 1, kInitialCondition);
          done.resize(child + 1, false);
        }
        at[child] = ev.postset.back();
      }
      // Where the other threads were when the event's conditions appeared: the search for the
      // threads that can use them starts there.
      // (Not those of a cut-off: nothing takes them.)
      if (added && !cut_off)
        for (ConditionIndex c : ev.postset)
          if (unfolding_.condition(c).kind != ConditionKind::kThread) extensions_.produced(c, at);
    }
    fire_branches_before(trace.events.size());
    // Where a thread went past a cut-off, what it did next is left unknown: nothing follows.
    for (ThreadId t = 0; t < at.size(); ++t)
      if (at[t] != kInitialCondition && done[t] && !beyond.thread(t))
        learn(at[t], std::nullopt, {});
    if (search_deadlocks_ && trace.outcome == Outcome::kDeadlock) {
      std::vector<ConditionIndex> last;
      for (ConditionIndex c : at)
        if (c != kInitialCondition) last.push_back(c);
      std::sort(last.begin(), last.end());
      deadlocks_seen_.push_back(std::move(last));
    }
    bool pending_beyond = true;  // every thread a bound kept from going on is past a cut-off
    for (const PendingThread& p : trace.pending) {
      if (p.thread >= at.size() || at[p.thread] == kInitialCondition || done[p.thread]) continue;
      if (beyond.thread(p.thread)) continue;
      pending_beyond = false;
      learn(at[p.thread], p.op, unfolding_.marked_for(marking, p.thread, p.op));
    }
    // A bound that stopped only threads past cut-offs left out nothing the search explores.
    if (changes && pending_beyond &&
        (trace.outcome == Outcome::kBoundReached || trace.outcome == Outcome::kTimeout))
      ++matching_.bounds_covered;
  }

  // The threads and conditions of one execution past its cut-offs (POET §3.8): a thread after
  // its cut-off event, and every event that takes or reads what a cut-off produced or what an
  // event past one would have taken, is caused by the cut-off and stays out of the unfolding.
  class Beyond {
   public:
    bool thread(ThreadId t) const { return t < threads_.size() && threads_[t]; }
    // A cut-off fired: its thread, and what it produced, are past it.
    void cut_off(const UnfoldingEvent& ev) {
      mark_thread(ev.thread);
      for (ConditionIndex c : ev.postset) conditions_.insert(c);
      if (ev.op.kind == OpKind::kThreadCreate) mark_thread(static_cast<ThreadId>(ev.op.object));
    }
    // Whether `e` is past a cut-off: not, its thread was, or it takes or reads (`touched`, the
    // conditions it would) what a cut-off or an event past one produced or would have taken.
    // Past, it is marked so, with what it touches.
    enum class Past { kNo, kThread, kNewly };
    Past skips(const Event& e, Unfolding& unfolding, const Unfolding::Marking& marking,
               std::vector<ConditionIndex>& touched) {
      const bool joins_past =
          e.op.kind == OpKind::kThreadJoin && thread(static_cast<ThreadId>(e.op.object));
      if (!thread(e.thread) && !joins_past && conditions_.empty()) return Past::kNo;
      touched = unfolding.marked_for(marking, e.thread, e.op);
      Past past = Past::kThread;
      if (!thread(e.thread)) {
        if (!joins_past && std::none_of(touched.begin(), touched.end(), [this](ConditionIndex c) {
              return conditions_.count(c) > 0;
            }))
          return Past::kNo;
        past = Past::kNewly;
      }
      mark_thread(e.thread);
      conditions_.insert(touched.begin(), touched.end());
      if (e.op.kind == OpKind::kThreadCreate) mark_thread(static_cast<ThreadId>(e.op.object));
      return past;
    }

   private:
    void mark_thread(ThreadId t) {
      if (t >= threads_.size()) threads_.resize(t + 1, false);
      threads_[t] = true;
    }
    std::vector<bool> threads_;
    std::unordered_set<ConditionIndex> conditions_;
  };

  // Whether the last test reached what it aimed at; a target it could not fire because its
  // thread was blocked there is no event of the program (the model offers, say, a condition
  // variable wake with no signal to take) and is dropped.
  void account_for_targets(const Trace& trace) {
    const bool cut = trace.outcome == Outcome::kBoundReached ||
                     trace.outcome == Outcome::kTimeout || !trace.failures.empty() ||
                     is_bug(trace.outcome);
    for (Aim& a : aimed_) {
      if (covered(a.target)) continue;
      if (trace.diverged_at && *trace.diverged_at == a.step) {  // blocked: not an event
        ++stats_.infeasible;
        continue;
      }
      if (trace.diverged_at && *trace.diverged_at < a.step &&
          std::any_of(aimed_.begin(), aimed_.end(),
                      [&](const Aim& b) { return b.step == *trace.diverged_at; })) {
        targets_.push_back(std::move(a.target));  // an earlier target blocked: try again
        continue;
      }
      if (!cut)
        ++(a.target.op.kind == OpKind::kSymbolicBranch ? input_stats_.divergences : missed_);
    }
    aimed_.clear();
  }

  std::vector<ThreadId> initial_prefix_;
  bool started_ = false;
  Unfolding unfolding_;
  PossibleExtensions extensions_{unfolding_};
  Deadline deadline_;  ///< the run's time limit (set_deadline)
  std::vector<Unfolding::Extension> targets_;
  std::vector<Aim> aimed_;
  std::uint64_t missed_ = 0;
  std::uint64_t channel_events_ = 0;  // events of channel operations seen (see gaps())
  std::uint64_t nondeterministic_ = 0;
  mutable UnfoldingStatistics stats_;
  static constexpr std::size_t kFirstGrowthSample = 1024;
  std::size_t next_growth_sample_ = kFirstGrowthSample;
  std::uint64_t tests_modelled_ = 0;  // since the last restart
  double extension_seconds_at_start_ = 0;
  bool search_deadlocks_ = false;
  std::unordered_map<ConditionIndex, std::vector<ObjectKey>> held_;  // omitted: none
  std::size_t events_when_searched_ = 0;
  static constexpr std::size_t kSearchAgain = ~std::size_t{0};
  bool blocked_search_timed_out_ = false;
  std::unique_ptr<symbolic::Solver> deadlock_solver_;  // made at the first search that needs it
  std::set<std::vector<ConditionIndex>> deadlocks_tried_;
  std::vector<std::vector<ConditionIndex>> deadlocks_seen_;  // each sorted
  struct DeadlockTest {
    std::vector<ThreadId> prefix;
    std::vector<InputValue> inputs;
  };
  std::vector<DeadlockTest> deadlock_tests_;
  std::vector<std::uint64_t> sites_;  // by event: the code address that first performed it
  bool record_written_values_ = false;
  std::unordered_map<EventIndex, AccessValues> written_;  // write events, as first run
  std::unordered_map<EventIndex, symbolic::ExprId> written_expressions_;  // in pool_
  // Inputs (thesis §3.5): every execution's expressions in one pool, each input one number.
  symbolic::ExpressionPool pool_;
  std::map<InputKey, std::uint32_t> input_numbers_;
  std::vector<InputKey> input_keys_;                                         // by number
  std::vector<symbolic::InputVariable> input_variables_;                     // by number
  std::unordered_map<EventIndex, symbolic::Constraint> branch_constraints_;  // branch events
  // By thread condition: the side of its branch no test took yet, as a constraint.
  std::unordered_map<ConditionIndex, symbolic::Constraint> other_sides_;
  std::vector<Unfolding::Extension> flips_;  // found by the last model()
  symbolic::Solver solver_;
  mutable InputStatistics input_stats_;
  // Stateful unfolding: the prefix with cut-offs, the states, why it stopped (empty: it did not).
  std::optional<CompletePrefix> prefix_;
  // QPOR: the exploration tree, and the events the last test fired, in order.
  std::optional<AlternativeTree> tree_;
  std::vector<EventIndex> fired_;
  // Cut-offs (both): which events are cut-offs; QPOR has none where the fingerprint cannot hold
  // the program's states.
  std::optional<CutOffEvents> cut_off_events_;
  StateFingerprints fingerprints_;
  mutable StateMatching matching_;
  std::string why_;
};

}  // namespace

WEFT_STRATEGY_ROWS(
    unfolding_search,
    {"unfolding",
     "unfolding testing with a copy of each variable per thread (thesis ch. 3): every reachable "
     "local state of every thread; not deadlocks or races",
     50, ReadPolicy::kReadsCommute, kBuildsUnfolding,
     [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(
           std::make_unique<UnfoldingSearch>(config, UnfoldingModel::kPlaceReplication));
     }},
    {"contextual",
     "contextual unfolding testing: every reachable local state of every thread, often in far "
     "fewer tests than traces; not deadlocks or races",
     60, ReadPolicy::kReadsCommute, kBuildsUnfolding,
     [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(
           std::make_unique<UnfoldingSearch>(config, UnfoldingModel::kContextual));
     }},
    {"qpor",
     "quasi-optimal partial-order reduction (POET §3.7): one test per maximal configuration of "
     "the unfolding, found by k-partial alternatives; every interleaving's bugs",
     45, ReadPolicy::kReadsCommute, kTakesAlternatives | kMatchesStatesWhenItCan,
     [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(std::make_unique<UnfoldingSearch>(
           config, UnfoldingModel::kPlaceReplication, /*cut_offs=*/false, /*tree=*/true));
     }},
    {"stateful-unfolding",
     "stateful unfolding-based testing (thesis §7.4): the unfolding up to cut-offs, events that "
     "reach a state a smaller configuration reached; every reachable local state, not deadlocks "
     "or races (needs --points=all)",
     58, ReadPolicy::kReadsCommute, kMatchesStates, [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(std::make_unique<UnfoldingSearch>(
           config, UnfoldingModel::kPlaceReplication, /*cut_offs=*/true));
     }})

}  // namespace weft::explorer
