#include "weft/explore/deadlock_search.hpp"

#include <algorithm>
#include <set>

namespace weft::explorer {

namespace {

// What a waiting thread waits for: a mutex (its address), or a thread's end (the thread with the
// top bit set: addresses have 47 bits).
constexpr ObjectKey kEndOfThread = ObjectKey{1} << 63;

class Search {
 public:
  Search(const Unfolding& u, const ThreadConditionFacts& facts) : u_(u), facts_(facts) {
    for (const auto& [c, next] : *facts.next) {
      if (next && (next->kind == OpKind::kMutexLock || next->kind == OpKind::kThreadJoin))
        wanting_[wanted(*next)].push_back(c);
      if (!next && !held(c).empty()) ended_holding_.push_back(c);
    }
    for (auto& [mutex, list] : wanting_) {
      std::sort(list.begin(), list.end());
      // Those from which no event was fired: the lock a test stopped in (thesis Fig. 6.5,
      // line 17).
      if (!(mutex & kEndOfThread))
        for (ConditionIndex c : list)
          if (u_.consumers(c).empty()) stuck_[mutex].push_back(c);
    }
    std::sort(ended_holding_.begin(), ended_holding_.end());
  }

  DeadlockCandidates run() {
    // A thread waiting for a mutex that a thread which ended holds (Fig. 6.4's first case).
    for (ConditionIndex ended : ended_holding_)
      for (ObjectKey m : held(ended))
        for (ConditionIndex waiting : wanting(m))
          if (thread_of(waiting) != thread_of(ended)) found({waiting, ended});
    // Cycles of waiting threads, each holding what the next one wants (Fig. 6.4's SEARCH), where
    // a waiting thread also holds its own end (a join of it waits for it); each cycle is
    // searched from its smallest thread condition only.
    for (const auto& [resource, list] : wanting_)
      for (ConditionIndex start : list) {
        std::vector<ConditionIndex> set{start};
        extend(set, start);
      }
    return std::move(out_);
  }

 private:
  const std::vector<ObjectKey>& held(ConditionIndex c) const {
    static const std::vector<ObjectKey> kNone;
    const auto it = facts_.held->find(c);
    return it == facts_.held->end() ? kNone : it->second;
  }
  const std::vector<ConditionIndex>& wanting(ObjectKey m) const {
    static const std::vector<ConditionIndex> kNone;
    const auto it = wanting_.find(m);
    return it == wanting_.end() ? kNone : it->second;
  }
  static ObjectKey wanted(const Operation& next) {
    return next.kind == OpKind::kThreadJoin ? kEndOfThread | next.object : mutex_of(next);
  }
  ObjectKey wants(ConditionIndex c) const { return wanted(*facts_.next->at(c)); }
  // What a waiting thread keeps others from: the mutexes it holds, and its end.
  std::vector<ObjectKey> holds(ConditionIndex c) const {
    std::vector<ObjectKey> out = held(c);
    out.push_back(kEndOfThread | thread_of(c));
    return out;
  }
  std::uint64_t thread_of(ConditionIndex c) const { return u_.condition(c).key; }

  bool co_set(const std::vector<ConditionIndex>& set) {
    ++co_checks_;
    return u_.concurrent(set);
  }

  void found(std::vector<ConditionIndex> set) {
    std::sort(set.begin(), set.end());
    if (seen_.insert(set).second && co_set(set)) out_.sets.push_back(std::move(set));
  }

  // The event of c's thread before c that acquired mutex m (c's thread holds it at c).
  EventIndex acquisition(ConditionIndex c, ObjectKey m) const {
    for (EventIndex p = u_.condition(c).producer; p != kInitialCondition;
         p = u_.condition(u_.event(p).preset.front()).producer)
      if (acquires_mutex(u_.event(p).op) && mutex_of(u_.event(p).op) == m) return p;
    return kInitialCondition;
  }

  // The thread conditions that may want mutex m while c's thread holds it there (thesis
  // Lemma 9, Fig. 6.5): those from which a lock of m consumes the free condition the acquisition
  // of m before c consumed, or one that a release of that acquisition produced; and those that
  // want m with no event after them. Any other thread condition wanting m is in c's past or in
  // conflict with it.
  std::vector<ConditionIndex> wanting_while_held(ConditionIndex c, ObjectKey m) const {
    std::vector<ConditionIndex> out;
    if (const auto it = stuck_.find(m); it != stuck_.end()) out = it->second;
    const EventIndex acquired = acquisition(c, m);
    if (acquired == kInitialCondition) return wanting(m);  // not expected: then every one
    const UnfoldingEvent& e1 = u_.event(acquired);
    const auto locks_from = [&](ConditionIndex free) {
      for (EventIndex e2 : u_.consumers(free)) {
        const ConditionIndex c2 = u_.event(e2).preset.front();
        const auto next = facts_.next->find(c2);
        if (next != facts_.next->end() && next->second &&
            next->second->kind == OpKind::kMutexLock && mutex_of(*next->second) == m)
          out.push_back(c2);
      }
    };
    for (std::size_t i = 0; i < e1.preset.size(); ++i) {
      const Condition& free = u_.condition(e1.preset[i]);
      if (free.kind != ConditionKind::kMutex || free.key != m) continue;
      locks_from(e1.preset[i]);
      for (EventIndex e3 : u_.consumers(e1.postset[i])) {  // releases of the held condition
        const UnfoldingEvent& release = u_.event(e3);
        for (ConditionIndex after : release.postset)
          if (u_.condition(after).kind == ConditionKind::kMutex && u_.condition(after).key == m)
            locks_from(after);
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Adds to `set` (a co-set whose last member is `last`) a thread that wants what `last`
  // holds, until the cycle closes on the first member.
  void extend(std::vector<ConditionIndex>& set, ConditionIndex last) {
    const ConditionIndex first = set.front();
    for (ObjectKey m : holds(last))
      for (ConditionIndex next : (m & kEndOfThread) ? wanting(m) : wanting_while_held(last, m)) {
        if (next <= first) continue;  // the smallest member starts
        if (std::any_of(set.begin(), set.end(),
                        [&](ConditionIndex c) { return thread_of(c) == thread_of(next); }))
          continue;
        set.push_back(next);
        ++co_checks_;
        if (u_.concurrent(set)) {
          const auto next_holds = holds(next);
          if (std::find(next_holds.begin(), next_holds.end(), wants(first)) != next_holds.end())
            found(set);
          else
            extend(set, next);
        }
        set.pop_back();
      }
  }

  const Unfolding& u_;
  ThreadConditionFacts facts_;
  std::unordered_map<ObjectKey, std::vector<ConditionIndex>> wanting_;
  std::unordered_map<ObjectKey, std::vector<ConditionIndex>> stuck_;  // wanting, no event after
  std::vector<ConditionIndex> ended_holding_;
  std::set<std::vector<ConditionIndex>> seen_;
  DeadlockCandidates out_;
  std::uint64_t& co_checks_ = out_.co_checks;
};

}  // namespace

DeadlockCandidates find_deadlocks(const Unfolding& unfolding, const ThreadConditionFacts& facts) {
  return Search(unfolding, facts).run();
}

}  // namespace weft::explorer
