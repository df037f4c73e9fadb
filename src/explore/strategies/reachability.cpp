// Reachability testing (Lei and Carver, lei-carver-reachability-testing-richtest.txt): every
// partially ordered SYN-sequence once, without a history of the sequences run (§VII, Figs. 9,
// 10; docs/richtest.md, "Exactly once", for the one exception). Each
// execution is a prefix-based test run of a race variant; its SYN-sequence
// (reachability/syn_sequence.hpp) yields the variants of the race table (§VI, Fig. 7), of which
// GenerateVariants keeps a subset by two rules that travel with each variant: an old receiving
// event loses the old sending events from its race set (Fig. 10 lines 1-2), and a black one is
// not changed again (lines 3, 5-12).
//
// A variant is replayed as a schedule: its events in the order of the sequence it came from,
// then each changed receiving event's new partner. A receiving event whose partner was removed
// (unmatched, §VII, Fig. 11) keeps its place: the threads whose calls are old sleep until a new
// call completed on its line (SleepEntry::wake_on); if only they could run, the run ends there
// (a partial test run, counted as sleep-set blocked). An operation that merges two lines seen
// apart before restarts the exploration (syn_sequence.hpp, Lines). Two reductions of §VII-VIII
// are options: the P/V reduction, and thread symmetry (ThreadKinds below).
#include <algorithm>
#include <optional>

#include "../reachability/syn_sequence.hpp"
#include "strategies.hpp"
#include "weft/explore/race_table.hpp"

namespace weft::explorer {
namespace {

using reachability::Call;
using reachability::Clock;
using reachability::Lines;
using reachability::SynSequence;

// The threads of a trace by kind, for thread symmetry: two threads are of one kind when one
// thread created both to start at the same code (kThreadCreate's partner), and the program takes
// them as interchangeable (the user says so with --symmetry: weft cannot see whether their data
// make them differ).
class ThreadKinds {
  static bool takes_in_data(const Operation& op) {
    return reads_value(op.kind) || op.kind == OpKind::kAtomicSection ||
           op.kind == OpKind::kChannelReceive || op.kind == OpKind::kChannelSelect;
  }

 public:
  ThreadKinds(const Trace& trace, bool wanted) {
    if (!wanted) return;
    for (const Event& e : trace.events) {
      grow(e.thread);
      ops_[e.thread].push_back(&e.op);
      if (e.op.kind != OpKind::kThreadCreate || e.op.partner == 0) continue;
      const auto child = static_cast<ThreadId>(e.op.object);
      grow(child);
      kind_[child] = {e.thread, e.op.partner};
    }
  }

  /// Whether call `a` (operation `a_op`) and call `b` are the same call of two threads of one
  /// kind with the same past: the same operations, with the same results, before it, none of
  /// which took in data (a read or a received message could have brought them different
  /// values: tests/reachability_differential_test.cpp, ReachabilitySymmetry seed 49).
  bool interchangeable(const Call& a, const Operation& a_op, const Call& b,
                       const Operation& b_op) const {
    if (a.thread == b.thread || a.index != b.index || std::max(a.thread, b.thread) >= kind_.size())
      return false;
    if (kind_[a.thread].second == 0 || kind_[a.thread] != kind_[b.thread]) return false;
    Operation x = a_op, y = b_op;
    x.result = y.result = 0;
    if (!(x == y)) return false;
    const auto& pa = ops_[a.thread];
    const auto& pb = ops_[b.thread];
    if (pa.size() < a.index || pb.size() < b.index) return false;
    for (std::uint32_t i = 0; i < a.index; ++i)
      if (!(*pa[i] == *pb[i]) || takes_in_data(*pa[i])) return false;
    return true;
  }

 private:
  void grow(ThreadId t) {
    if (t >= kind_.size()) {
      kind_.resize(t + 1, {kNoThread, 0});
      ops_.resize(t + 1);
    }
  }
  std::vector<std::pair<ThreadId, ObjectKey>> kind_;  // by thread: creator, start code
  std::vector<std::vector<const Operation*>> ops_;    // by thread: its events' operations
};

struct Variant {
  std::vector<ThreadId> prefix;
  std::vector<bool> black;  // by position in the prefix
  /// By thread: how many of its calls are old (in the variant): those it completed in the
  /// prefix, and the next one unless the variant made it new.
  std::vector<std::uint32_t> old_calls;
  /// A key of each line whose next completion is an unmatched receiving event.
  std::vector<ObjectKey> unmatched;
  std::vector<SleepEntry> sleepers;
};

class ReachabilityTesting final : public Strategy {
 public:
  explicit ReachabilityTesting(const StrategyConfig& config)
      : pv_reduction_(config.pv_reduction),
        thread_symmetry_(config.thread_symmetry),
        first_prefix_(config.initial_prefix) {
    variants_.emplace_back();
  }

  std::optional<TestDirective> next() override {
    if (variants_.empty()) return std::nullopt;
    current_ = std::move(variants_.back());
    variants_.pop_back();
    TestDirective d;
    d.prefix = first_ ? first_prefix_ : current_.prefix;
    first_ = false;
    d.policy = SchedulePolicy::kSticky;
    d.read_policy = ReadPolicy::kReadsConflict;
    d.sleep_from = current_.prefix.size();
    d.sleep = current_.sleepers;
    return d;
  }

  void observe(const Trace& trace) override {
    ++runs_observed_;
    if (trace.diverged_at) {
      // The variant was not feasible after all: an OpenList judged too wide (syn_sequence.cpp),
      // or a program whose synchronisation depends on more than its schedule.
      ++not_replayed_;
      return;
    }
    generate_variants(trace);
  }

  std::string gaps() const override {
    if (!not_replayed_) return {};
    return std::to_string(not_replayed_) +
           " race variants could not be replayed (the program did not repeat the synchronisation "
           "of their prefix)";
  }

 private:
  // Fig. 10 on the sequence `trace` collected with current_.
  void generate_variants(const Trace& trace) {
    const std::uint64_t merges = lines_.late_merges();
    const SynSequence q(trace, lines_);
    if (lines_.late_merges() != merges && runs_observed_ > 1) {
      // An operation joined two objects that earlier sequences had as two lines (a selective
      // wait over channels seen apart before): the variants made from those would miss races
      // across them. Start again, with the lines as they are now, from this sequence as the
      // first one (any run can be §VII's Q0); merges only grow, so this happens at most once
      // per pair of objects. The sequences run before it may run again.
      variants_.clear();
      current_ = Variant{};
      generate_variants(trace);
      return;
    }
    const auto& events = q.events();
    const std::size_t old = std::min(current_.prefix.size(), events.size());

    // Old receiving events: those of the variant, and the first completion on each line the
    // variant left unmatched.
    std::vector<bool> old_receive(events.size(), false);
    std::fill_n(old_receive.begin(), old, true);
    // An unmatched one that is still without a partner (a partial run) stays so in the
    // variants that keep it: c-struct of it is its line's last completion.
    std::vector<std::pair<ObjectKey, Clock>> still_unmatched;
    for (ObjectKey u : current_.unmatched) {
      const ObjectKey line = lines_.find(u);
      bool filled = false;
      for (std::size_t j = old; j < events.size() && !filled; ++j)
        if (events[j].line == line) old_receive[j] = filled = true;
      if (filled) continue;
      Clock last;
      for (std::size_t j = old; j-- > 0;)
        if (events[j].line == line) {
          last = events[j].done;
          break;
        }
      still_unmatched.emplace_back(u, std::move(last));
    }
    const auto old_call = [&](const Call& c) {
      return c.thread < current_.old_calls.size() && c.index < current_.old_calls[c.thread];
    };

    const bool data_events = std::any_of(trace.events.begin(), trace.events.end(),
                                         [](const Event& e) { return accesses_memory(e.op); });
    const ThreadKinds kinds(trace, thread_symmetry_);
    std::vector<std::size_t> heading;
    std::vector<std::vector<Call>> race_sets(events.size());
    for (std::size_t j = 0; j < events.size(); ++j) {
      if (j < old && current_.black[j]) continue;  // black: not changed again (line 3)
      const Operation& op = trace.events[j].op;
      std::vector<std::pair<Call, const Operation*>> kept;  // for thread symmetry
      race_sets[j] = q.race_set(j, [&](const Call& c, const Operation& call) {
        if (old_receive[j] && old_call(c)) return true;  // lines 1-2
        // Thread symmetry (§VIII): a call of a thread of the same kind as the receiving
        // event's, or as a call already in the race set, with the same past, changes only
        // which of the interchangeable threads goes first.
        if (thread_symmetry_) {
          if (kinds.interchangeable(events[j].call, op, c, call)) return true;
          for (const auto& [k, k_op] : kept)
            if (kinds.interchangeable(k, *k_op, c, call)) return true;
        }
        // The P/V reduction (§VII): a completed V's races are ignored (V commutes with V, and
        // with a P that found the count above zero). Only where the paper's programs live: all
        // shared data behind semaphores, no memory access an event of the sequence. Otherwise
        // the order of two V's also orders the data accesses around them, and ignoring it
        // would lose behaviours (a data race across the semaphore).
        if (pv_reduction_ && !data_events && op.kind == OpKind::kSemPost &&
            domain_of(call.kind) == Domain::kSemaphore && call.object == op.object)
          return true;
        kept.emplace_back(c, &call);
        return false;
      });
      if (!race_sets[j].empty()) heading.push_back(j);
    }
    if (heading.empty()) return;

    RaceTableInput input;
    for (std::size_t h : heading) input.race_set_sizes.push_back(race_sets[h].size());
    input.receive_controls_receive = [&](std::size_t a, std::size_t b) {
      return q.in_past(heading[a], events[heading[b]].on_line);
    };
    input.receive_controls_send = [&](std::size_t jj, std::size_t i, std::size_t k) {
      return q.in_past(heading[jj], *q.call_clock(race_sets[heading[i]][k - 1]));
    };
    for (const RaceVariantRow& row : construct_race_table(input)) {
      std::vector<std::pair<std::size_t, Call>> changed;  // event, its new partner
      for (std::size_t c = 0; c < row.size(); ++c)
        if (row[c] > 0)
          changed.emplace_back(heading[c],
                               race_sets[heading[c]][static_cast<std::size_t>(row[c]) - 1]);
      if (auto v = derive(q, changed, old, still_unmatched)) variants_.push_back(std::move(*v));
    }
  }

  // The variant of q that gives each changed receiving event its new partner (Def. 7).
  std::optional<Variant> derive(const SynSequence& q,
                                const std::vector<std::pair<std::size_t, Call>>& changed,
                                std::size_t old,
                                const std::vector<std::pair<ObjectKey, Clock>>& still_unmatched) {
    const auto& events = q.events();
    const auto removed_by = [&](const Clock& c_struct) {
      return std::any_of(changed.begin(), changed.end(),
                         [&](const auto& x) { return q.in_past(x.first, c_struct); });
    };
    std::vector<bool> is_changed(events.size(), false);
    for (const auto& x : changed) is_changed[x.first] = true;

    Variant v;
    std::vector<std::uint32_t> calls;  // by thread: its events in the prefix
    std::vector<std::size_t> kept;     // the q position of each prefix event
    const auto count = [&](ThreadId t) -> std::uint32_t& {
      if (t >= calls.size()) calls.resize(t + 1, 0);
      return calls[t];
    };
    for (std::size_t j = 0; j < events.size(); ++j) {
      if (is_changed[j]) continue;
      const bool call_gone = removed_by(events[j].at_call);
      // (An event on no line completes with its call; a join also once the joined thread ended.)
      const bool completion_gone =
          events[j].line ? removed_by(events[j].on_line) : removed_by(events[j].done);
      if (!call_gone && !completion_gone) {
        v.prefix.push_back(events[j].call.thread);
        v.black.push_back(j < old && current_.black[j]);
        kept.push_back(j);
        ++count(events[j].call.thread);
      } else if (!completion_gone && events[j].line) {
        v.unmatched.push_back(events[j].line);
      }
    }
    for (const auto& [u, c_struct] : still_unmatched)
      if (!removed_by(c_struct)) v.unmatched.push_back(u);
    const std::size_t unchanged = v.prefix.size();  // the new partners come after them
    for (const auto& [x, partner] : changed) {
      if (count(partner.thread) != partner.index) return std::nullopt;  // cannot happen (Def. 7)
      v.prefix.push_back(partner.thread);
      v.black.push_back(true);  // line 7
      kept.push_back(x);
      ++count(partner.thread);
      // Lines 8-9: every receiving event that happens before x in the variant turns black.
      Clock past = *q.call_clock(partner);
      const Clock& before = events[x].on_line;
      if (past.size() < before.size()) past.resize(before.size(), 0);
      for (std::size_t t = 0; t < before.size(); ++t) past[t] = std::max(past[t], before[t]);
      for (std::size_t p = 0; p < unchanged; ++p)
        if (events[kept[p]].line && q.in_past(kept[p], past)) v.black[p] = true;
    }
    // Old calls: each thread's calls in the prefix, and its next one if the variant kept it
    // (its c-struct holds no changed receiving event; a thread whose creation was removed, or
    // the thread of a new partner, makes only new calls from there).
    ThreadId threads = static_cast<ThreadId>(calls.size());
    for (const reachability::SynEvent& e : events)
      threads = std::max<ThreadId>(threads, e.call.thread + 1);
    for (const auto& p : q.pending()) threads = std::max<ThreadId>(threads, p.call.thread + 1);
    count(threads - 1);
    v.old_calls = calls;
    for (ThreadId t = 0; t < threads; ++t) {
      const Clock* at = q.call_clock({t, calls[t]});
      if (at && !removed_by(*at)) ++v.old_calls[t];
    }
    // The old calls that must not fill an unmatched receiving event's place sleep until a new
    // call has.
    std::sort(v.unmatched.begin(), v.unmatched.end());
    v.unmatched.erase(std::unique(v.unmatched.begin(), v.unmatched.end()), v.unmatched.end());
    for (ObjectKey u : v.unmatched) {
      const std::vector<ObjectKey> objects = lines_.members(u);
      for (ThreadId t = 0; t < v.old_calls.size(); ++t) {
        if (v.old_calls[t] <= calls[t]) continue;  // its next call is new
        const Call next{t, calls[t]};
        if (q.call_line(next) != u) continue;
        v.sleepers.push_back({t, *q.call_op(next), objects});
      }
    }
    return v;
  }

  bool pv_reduction_;
  bool thread_symmetry_;
  std::vector<ThreadId> first_prefix_;
  bool first_ = true;
  Lines lines_;
  std::vector<Variant> variants_;  // a stack: the order does not matter (§VII), memory does
  Variant current_;
  std::uint64_t not_replayed_ = 0;
  std::uint64_t runs_observed_ = 0;
};

}  // namespace

WEFT_STRATEGY_ROWS(reachability,
                   {"reachability",
                    "reachability testing (Lei and Carver): every partially ordered "
                    "synchronisation sequence, without a history of those run",
                    55, ReadPolicy::kReadsConflict, kTakesReductions, made<ReachabilityTesting>})

}  // namespace weft::explorer
