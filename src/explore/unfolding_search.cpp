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
#include <algorithm>
#include <chrono>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "strategies.hpp"
#include "weft/explore/deadlock_search.hpp"
#include "weft/explore/possible_extensions.hpp"
#include "weft/explore/unfolding.hpp"

namespace weft::explorer {
namespace {

// How many pending targets a test tries to add to its first (each try is a co-check).
constexpr std::size_t kMergeTries = 256;

class UnfoldingSearch final : public Strategy {
 public:
  UnfoldingSearch(const StrategyConfig& config, UnfoldingModel model)
      : initial_prefix_(config.initial_prefix),
        unfolding_(model),
        search_deadlocks_(config.search_deadlocks) {}

  std::optional<TestDirective> next() override {
    TestDirective d;
    d.read_policy = ReadPolicy::kReadsCommute;
    d.track_inputs = false;
    aimed_.clear();
    if (!started_) {
      started_ = true;
      d.prefix = initial_prefix_;
      return d;
    }
    std::vector<Unfolding::Extension> chosen;
    while (!targets_.empty() && chosen.empty()) {
      Unfolding::Extension x = std::move(targets_.back());
      targets_.pop_back();
      if (!covered(x)) chosen.push_back(std::move(x));
    }
    if (chosen.empty()) {
      if (search_deadlocks_ && unfolding_.events() != events_when_searched_) search_deadlocks();
      if (deadlock_tests_.empty()) return std::nullopt;
      d.prefix = std::move(deadlock_tests_.back());
      deadlock_tests_.pop_back();
      return d;
    }
    add_compatible_targets(chosen);

    std::vector<ConditionIndex> needed;
    for (const auto& x : chosen) {
      needed.insert(needed.end(), x.preset.begin(), x.preset.end());
      needed.insert(needed.end(), x.context.begin(), x.context.end());
    }
    const std::vector<EventIndex> schedule = unfolding_.schedule_of(configuration_of(needed));
    for (EventIndex e : schedule) d.prefix.push_back(unfolding_.event(e).thread);
    stats_.targets_per_test_max =
        std::max<std::uint64_t>(stats_.targets_per_test_max, chosen.size());
    for (auto& x : chosen) {
      aimed_.push_back({std::move(x), d.prefix.size()});
      d.prefix.push_back(aimed_.back().target.thread);
    }
    return d;
  }

  void observe(const Trace& trace) override {
    model(trace);
    account_for_targets(trace);
    const auto started = std::chrono::steady_clock::now();
    std::vector<Unfolding::Extension> found = extensions_.update();
    stats_.extension_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    stats_.extensions += found.size();
    for (auto& x : found) targets_.push_back(std::move(x));
  }

  std::string unfolding_dot(const UnfoldingNames& names) const override {
    return explorer::unfolding_dot(unfolding_, sites_, names);
  }

  const UnfoldingStatistics* unfolding_statistics() const override {
    stats_.events = unfolding_.events();
    stats_.conditions = unfolding_.conditions();
    stats_.co_checks = extensions_.co_checks();
    stats_.bytes = unfolding_.memory_bytes() + extensions_.memory_bytes();
    return &stats_;
  }

  bool explores_inputs() const override { return false; }
  const char* uncovered() const override {
    return search_deadlocks_ ? "data races, or deadlocks other than on mutexes"
                             : "deadlocks and data races";
  }
  std::string gaps() const override {
    std::string out;
    if (missed_)
      out = std::to_string(missed_) +
            " events of the unfolding could not be reached by the schedule computed for them";
    if (const std::uint64_t skipped = extensions_.combinations_skipped())
      out += std::string(out.empty() ? "" : "; ") + std::to_string(skipped) +
             " operations touch so many objects that their possible extensions were not all "
             "computed";
    if (nondeterministic_)
      out += std::string(out.empty() ? "" : "; ") + std::to_string(nondeterministic_) +
             " times a thread did something else from the same point of the unfolding (its "
             "behaviour depends on state the events do not show)";
    return out;
  }

 private:
  // Searches the unfolding for deadlocks and queues a test into each new one (thesis §6.3).
  void search_deadlocks() {
    const auto started = std::chrono::steady_clock::now();
    events_when_searched_ = unfolding_.events();
    const DeadlockCandidates found =
        find_deadlocks(unfolding_, {&held_, &extensions_.next_operations()});
    for (const auto& set : found.sets) {
      // One a test ran into already: its threads' conditions are among a deadlock's last ones.
      const bool seen =
          std::any_of(deadlocks_seen_.begin(), deadlocks_seen_.end(), [&](const auto& last) {
            return std::includes(last.begin(), last.end(), set.begin(), set.end());
          });
      if (seen || !deadlocks_tried_.insert(set).second) continue;
      ++stats_.deadlock_candidates;
      std::vector<ThreadId> prefix;
      for (EventIndex e : unfolding_.schedule_of(configuration_of(set)))
        prefix.push_back(unfolding_.event(e).thread);
      deadlock_tests_.push_back(std::move(prefix));
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
    return unfolding_.find_event(x.preset, x.context) != kInitialCondition;
  }

  // The events that must fire before conditions `needed` hold: their producers' causes.
  std::vector<EventIndex> configuration_of(const std::vector<ConditionIndex>& needed) const {
    std::vector<EventIndex> events;
    for (ConditionIndex c : needed)
      if (const EventIndex p = unfolding_.condition(c).producer; p != kInitialCondition) {
        const auto past = unfolding_.local_configuration(p);
        events.insert(events.end(), past.begin(), past.end());
      }
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
    return events;
  }

  // Adds to `chosen` pending targets that can fire in the same test (see the file comment).
  void add_compatible_targets(std::vector<Unfolding::Extension>& chosen) {
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
    for (std::size_t i = targets_.size(); i-- > 0 && tries < kMergeTries;) {
      const Unfolding::Extension& x = targets_[i];
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
      chosen.push_back(std::move(targets_[i]));
      targets_.erase(targets_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // Place replication gives each thread a copy of every variable (thesis §3.2), so the threads
  // must be known before the first event (§3.7). A test that shows one more makes the
  // exploration start over with copies for it too; the tests so far are not needed again (the
  // one that showed the thread is modelled afresh), and in most programs the first test shows
  // every thread there is.
  void include_threads_of(const Trace& trace) {
    if (unfolding_.model() != UnfoldingModel::kPlaceReplication) return;
    std::vector<ThreadId> threads = unfolding_.copy_holders();
    const std::size_t known = threads.size();
    const auto add = [&](ThreadId t) {
      if (std::find(threads.begin(), threads.end(), t) == threads.end()) threads.push_back(t);
    };
    for (const Event& e : trace.events) {
      add(e.thread);
      if (e.op.kind == OpKind::kThreadCreate) add(static_cast<ThreadId>(e.op.object));
    }
    if (threads.size() == known) return;
    if (unfolding_.events() > 0) {
      ++stats_.restarts;
      unfolding_ = Unfolding(UnfoldingModel::kPlaceReplication);
      extensions_ = PossibleExtensions(unfolding_);
      targets_.clear();
      aimed_.clear();
      missed_ = 0;
      held_.clear();
      events_when_searched_ = 0;
      deadlocks_tried_.clear();
      deadlocks_seen_.clear();
      deadlock_tests_.clear();
      sites_.clear();
    }
    unfolding_.set_copy_holders(std::move(threads));
  }

  // Fires the execution's events in the unfolding (thesis Fig. 5.5, lines 7-16) and learns what
  // each thread does next from each of its conditions.
  void model(const Trace& trace) {
    include_threads_of(trace);
    Unfolding::Marking marking;
    std::vector<ConditionIndex> at;  // each thread's condition, by ThreadId
    std::vector<bool> done;
    const auto learn = [&](ConditionIndex c, std::optional<Operation> op,
                           const std::vector<ConditionIndex>& held) {
      // A result the conditions decide (a semaphore's count, a trylock's) is not the thread's.
      if (op) op->result = 0;
      if (extensions_.learn(c, op, held) == PossibleExtensions::Learned::kDifferent)
        ++nondeterministic_;
    };
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const Event& e = trace.events[i];
      // The end of the process comes last, when no other thread can run: nothing follows it,
      // so it adds no local state, and as an event it would take (and put back) every condition.
      if (e.op.kind == OpKind::kProcessExit) {
        if (e.thread < at.size() && at[e.thread] != kInitialCondition)
          learn(at[e.thread], e.op, {});
        continue;
      }
      const auto [fired, added] = unfolding_.fire(marking, e);
      const UnfoldingEvent& ev = unfolding_.event(fired);
      if (search_deadlocks_) note_held(ev);
      if (added) sites_.push_back(i < trace.sites.size() ? trace.sites[i] : 0);
      std::vector<ConditionIndex> held(ev.preset.begin() + 1, ev.preset.end());
      held.insert(held.end(), ev.context.begin(), ev.context.end());
      learn(ev.preset.front(), e.op, held);
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
      if (added)
        for (ConditionIndex c : ev.postset)
          if (unfolding_.condition(c).kind != ConditionKind::kThread) extensions_.produced(c, at);
    }
    for (ThreadId t = 0; t < at.size(); ++t)
      if (at[t] != kInitialCondition && done[t]) learn(at[t], std::nullopt, {});
    if (search_deadlocks_ && trace.outcome == Outcome::kDeadlock) {
      std::vector<ConditionIndex> last;
      for (ConditionIndex c : at)
        if (c != kInitialCondition) last.push_back(c);
      std::sort(last.begin(), last.end());
      deadlocks_seen_.push_back(std::move(last));
    }
    for (const PendingThread& p : trace.pending) {
      if (p.thread >= at.size() || at[p.thread] == kInitialCondition || done[p.thread]) continue;
      learn(at[p.thread], p.op, unfolding_.marked_for(marking, p.thread, p.op));
    }
  }

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
      if (!cut) ++missed_;
    }
    aimed_.clear();
  }

  std::vector<ThreadId> initial_prefix_;
  bool started_ = false;
  Unfolding unfolding_;
  PossibleExtensions extensions_{unfolding_};
  std::vector<Unfolding::Extension> targets_;
  std::vector<Aim> aimed_;
  std::uint64_t missed_ = 0;
  std::uint64_t nondeterministic_ = 0;
  mutable UnfoldingStatistics stats_;
  bool search_deadlocks_ = false;
  std::unordered_map<ConditionIndex, std::vector<ObjectKey>> held_;  // omitted: none
  std::size_t events_when_searched_ = 0;
  std::set<std::vector<ConditionIndex>> deadlocks_tried_;
  std::vector<std::vector<ConditionIndex>> deadlocks_seen_;  // each sorted
  std::vector<std::vector<ThreadId>> deadlock_tests_;
  std::vector<std::uint64_t> sites_;  // by event: the code address that first performed it
};

}  // namespace

std::unique_ptr<Strategy> make_contextual_unfolding(const StrategyConfig& config) {
  return std::make_unique<UnfoldingSearch>(config, UnfoldingModel::kContextual);
}

std::unique_ptr<Strategy> make_unfolding(const StrategyConfig& config) {
  return std::make_unique<UnfoldingSearch>(config, UnfoldingModel::kPlaceReplication);
}

}  // namespace weft::explorer
