// One execution per consistent execution graph of the C/C++ model (RC11), in memory linear in
// the size of an execution: TruSt (Kokologiannakis, Marmanis, Gladstein and Vafeiadis, "Truly
// stateless, optimal dynamic partial order reduction", POPL 2022, Algorithm 1).
//
// Events join the graph in one fixed order: the next event of the enabled thread of lowest id
// (SchedulePolicy::kLowest), so what joins next is a function of the graph. A read takes in
// turn each store it may read, a store each place in coherence order (forward revisits: the
// access's options, TestDirective::choices). When a store `a` joins, each read `r` of its
// location outside a's porf-prefix may read from it instead (a backward revisit): the graph
// keeps the events that joined up to r and a's porf-prefix, and r reads a. The revisit is made
// only from the one graph where every event it removes (and r) joined "maximally": a read
// reading, and a store being, the coherence-last store of those that joined before it or are in
// a's prefix, and a store read by none of those (the paper's IsMaximallyAdded). So every graph
// is reached once. As in GenMC, a store revisits only while the store right after it in
// coherence order stays (else two placements of it would give one graph).
//
// The runtime runs the real program: a graph is reached by running its events in an order that
// follows program order, reads-from, creation and joins, each access told which store to take
// (TestDirective::sources); the machine (rc11_machine.hpp) says whether that is consistent, and
// an execution that is not is abandoned. An update (read-modify-write) is one step but two
// events of the graph, its read and its write; when its read is revisited, its write joins
// again at once, with a new place in the order (GenMC's completeRevisitedRMW). An update that
// could read a store but for another update that read it is not run that way (the graph is
// inconsistent); the revisits its store would make are found all the same
// (Trace::taken_stores).
#include <algorithm>
#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "strategies.hpp"
#include "weft/trace/vector_clock.hpp"

namespace weft::explorer {
namespace {

using Kind = Trace::GraphAccess::Kind;
constexpr std::uint32_t kFirst = Trace::GraphAccess::kFirstValue;
constexpr std::uint32_t kNone = ~std::uint32_t{0};

// When the events of a step joined the graph: its read and its write (the same for a step that
// is not an update).
struct Stamps {
  std::uint64_t read = 0, write = 0;
};

// A test to run, with what the search knows of its prefix.
struct Item {
  TestDirective directive;
  std::vector<Stamps> stamps;  // of the prefix's steps
  // Steps from here on joined the graph in its execution: their other options and the
  // revisits their stores make are explored from it.
  std::size_t fresh = 0;
  // Steps of the prefix whose store joined anew: the revisits it makes are explored from it.
  std::vector<std::uint32_t> new_writes;
};

// An execution's graph, step by step.
class Graph {
 public:
  Graph(const Trace& trace, const Item& item, std::uint64_t& next_stamp) : trace_(trace) {
    const std::size_t n = trace.events.size();
    stamps_.resize(n);
    clocks_.resize(n);
    position_.resize(n);
    std::unordered_map<ThreadId, std::uint32_t> last, count, created_by;
    for (std::size_t i = 0; i < n; ++i) {
      const Event& e = trace.events[i];
      if (i < item.stamps.size()) {
        stamps_[i] = item.stamps[i];
      } else {
        stamps_[i].read = next_stamp++;
        stamps_[i].write = kind(i) == Kind::kUpdate ? next_stamp++ : stamps_[i].read;
      }
      VectorClock clock;
      if (const auto it = last.find(e.thread); it != last.end())
        clock = clocks_[it->second];
      else if (const auto c = created_by.find(e.thread); c != created_by.end())
        clock = clocks_[c->second];
      if (reads(i) && source(i) != kFirst) clock.join(clocks_[source(i)]);
      if (e.op.kind == OpKind::kThreadJoin)
        if (const auto it = last.find(static_cast<ThreadId>(e.op.object)); it != last.end())
          clock.join(clocks_[it->second]);
      if (e.op.kind == OpKind::kThreadCreate)
        created_by[static_cast<ThreadId>(e.op.object)] = static_cast<std::uint32_t>(i);
      position_[i] = ++count[e.thread];
      clock.set(e.thread, position_[i]);
      clocks_[i] = std::move(clock);
      last[e.thread] = static_cast<std::uint32_t>(i);
      if (kind(i) == Kind::kNone) continue;
      auto& order = coherence_[location(i)];
      if (order.empty()) order.push_back(kFirst);
      if (reads(i) && source(i) != kFirst)
        readers_[source(i)].push_back(static_cast<std::uint32_t>(i));
      if (writes(i)) {
        const auto after = std::find(order.begin(), order.end(), source(i));
        order.insert(after == order.end() ? order.end() : after + 1, static_cast<std::uint32_t>(i));
      }
    }
  }

  std::size_t size() const { return clocks_.size(); }
  Kind kind(std::size_t i) const {
    return i < trace_.graph.size() ? trace_.graph[i].kind : Kind::kNone;
  }
  bool reads(std::size_t i) const { return kind(i) == Kind::kLoad || kind(i) == Kind::kUpdate; }
  bool writes(std::size_t i) const { return kind(i) == Kind::kStore || kind(i) == Kind::kUpdate; }
  std::uint32_t source(std::size_t i) const { return trace_.graph[i].source; }
  ObjectKey location(std::size_t i) const { return trace_.graph[i].location; }
  const Stamps& stamps(std::size_t i) const { return stamps_[i]; }
  ThreadId thread(std::size_t i) const { return trace_.events[i].thread; }
  // Whether step k is in the porf-prefix of step i (i's own step included).
  bool in_prefix(std::size_t k, std::size_t i) const {
    return clocks_[i][thread(k)] >= position_[k];
  }
  // The location's stores in coherence order (kFirst first), every step's.
  const std::vector<std::uint32_t>& coherence(ObjectKey x) const { return coherence_.at(x); }
  const std::vector<std::uint32_t>& readers(std::size_t w) const {
    static const std::vector<std::uint32_t> none;
    const auto it = readers_.find(static_cast<std::uint32_t>(w));
    return it == readers_.end() ? none : it->second;
  }

 private:
  const Trace& trace_;
  std::vector<Stamps> stamps_;
  std::vector<VectorClock> clocks_;  // porf-prefix of each step, as positions in threads
  std::vector<std::uint32_t> position_;
  std::unordered_map<ObjectKey, std::vector<std::uint32_t>> coherence_;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> readers_;
};

class GraphSearch final : public Strategy {
 public:
  explicit GraphSearch(const StrategyConfig&) {}

  std::optional<TestDirective> next() override {
    if (!unsupported_.empty()) return std::nullopt;
    if (!started_) {
      started_ = true;
      current_ = Item{};
      current_.directive.policy = SchedulePolicy::kLowest;
      current_.directive.every_option = true;
      return current_.directive;
    }
    if (stack_.empty()) return std::nullopt;
    current_ = std::move(stack_.back());
    stack_.pop_back();
    return current_.directive;
  }

  void observe(const Trace& trace) override {
    // A prefix the program did not follow: nothing is known of what joined. (An execution
    // abandoned at a revisited read that the machine did not let read its store added nothing
    // new.)
    if (trace.diverged_at) return;
    for (const Event& e : trace.events)
      if (!modelled(e.op.kind)) {
        unsupported_ = std::string(
                           "trust explores atomics, fences and threads only; this "
                           "program performs '") +
                       op_name(e.op.kind) + "': use optimal";
        return;
      }
    const Graph g(trace, current_, next_stamp_);
    for (std::size_t i = 0; i < g.size(); ++i) {
      const bool fresh = i >= current_.fresh;
      if (fresh && i < trace.options.size() && trace.options[i] > 1)
        push_other_options(trace, g, i);
      const bool new_write =
          fresh || std::find(current_.new_writes.begin(), current_.new_writes.end(), i) !=
                       current_.new_writes.end();
      if (g.writes(i) && new_write) push_revisits(trace, g, i);
    }
    for (const Trace::TakenStore& taken : trace.taken_stores)
      if (taken.step >= current_.fresh) push_taken_revisits(trace, g, taken);
  }

  std::string gaps() const override { return unsupported_; }

 private:
  static bool modelled(OpKind k) {
    switch (domain_of(k)) {
      case Domain::kMemory:
      case Domain::kThread:
      case Domain::kProcess:
      case Domain::kNone:
        return k != OpKind::kBarrierWait;
      default:
        return false;
    }
  }

  Item prefix_item(const Trace& trace, const Graph& g, std::size_t steps) const {
    Item item;
    item.directive.policy = SchedulePolicy::kLowest;
    item.directive.every_option = true;
    for (std::size_t k = 0; k < steps; ++k) {
      item.directive.prefix.push_back(trace.events[k].thread);
      item.directive.choices.push_back(k < trace.choices.size() ? trace.choices[k] : 0);
      item.stamps.push_back(g.stamps(k));
    }
    item.fresh = steps;
    return item;
  }

  // The step's other options, each in a test of its own (forward revisits).
  void push_other_options(const Trace& trace, const Graph& g, std::size_t i) {
    for (std::uint32_t option = 1; option < trace.options[i]; ++option) {
      Item item = prefix_item(trace, g, i + 1);
      item.directive.choices[i] = option;
      item.new_writes.push_back(static_cast<std::uint32_t>(i));
      stack_.push_back(std::move(item));
    }
  }

  // The backward revisits the store of step a makes, in the graph as it was when it joined.
  void push_revisits(const Trace& trace, const Graph& g, std::size_t a) {
    // Whether an event joined maximally depends on a (its porf-prefix is in every event's
    // "previous" set), not on the revisited read r; the events r's revisit removes are those
    // outside a's prefix that joined after r. So one sweep over the events, latest first, finds
    // every read whose revisit is maximal, and stops at the first event that did not join
    // maximally: every earlier read's revisit would remove it too (GenMC stops there as well).
    struct Label {
      std::uint64_t stamp;
      std::uint32_t step;
      bool write;
    };
    std::vector<Label> labels;
    for (std::size_t k = 0; k < a; ++k) {
      if (g.in_prefix(k, a)) continue;  // stays, whatever r is
      if (g.reads(k)) labels.push_back({g.stamps(k).read, static_cast<std::uint32_t>(k), false});
      if (g.writes(k)) labels.push_back({g.stamps(k).write, static_cast<std::uint32_t>(k), true});
    }
    std::sort(labels.begin(), labels.end(),
              [](const Label& x, const Label& y) { return x.stamp > y.stamp; });
    // As GenMC requires, a store revisits only while the store right after it in coherence
    // order stays: r must have joined after it, if it is not in a's prefix.
    std::uint64_t earliest = 0;
    if (g.kind(a) == Kind::kStore) {
      const auto& order = g.coherence(g.location(a));
      auto it = std::find(order.begin(), order.end(), static_cast<std::uint32_t>(a));
      for (++it; it != order.end(); ++it)
        if (*it <= a) {
          if (!g.in_prefix(*it, a)) earliest = g.stamps(*it).write;
          break;
        }
    }
    for (const Label& l : labels) {
      const bool maximal = added_maximally(g, l.step, l.write, a);
      if (!maximal) break;
      if (!l.write && l.stamp >= earliest && g.location(l.step) == g.location(a))
        stack_.push_back(revisit(trace, g, l.step, a));
    }
  }

  // An update that could have read a store but for another update that read it (atomicity):
  // the graph where it does is inconsistent, but the revisits its store would make are not
  // (TruSt adds such an update and drops the graph after its revisits, as GenMC does). They
  // are found in the execution's prefix up to the update, made to read that store.
  void push_taken_revisits(const Trace& trace, const Graph& g, const Trace::TakenStore& taken) {
    Trace prefix;
    prefix.events.assign(trace.events.begin(), trace.events.begin() + taken.step + 1);
    prefix.graph.assign(
        trace.graph.begin(),
        trace.graph.begin() + std::min<std::size_t>(trace.graph.size(), taken.step + 1));
    prefix.record_graph_access(taken.step,
                               {Kind::kUpdate, taken.store, trace.graph[taken.step].location});
    Item known;
    for (std::size_t k = 0; k <= taken.step; ++k) known.stamps.push_back(g.stamps(k));
    known.stamps.back().write = next_stamp_++;
    const Graph made(prefix, known, next_stamp_);
    push_revisits(prefix, made, taken.step);
  }

  // TruSt's IsMaximallyAdded for the event of step k (its write, or its read) when a revisits:
  // among the events that joined before it or are in a's porf-prefix ("previous"), a read
  // reads and a store is the coherence-last store (a aside), and a store is read by none.
  static bool added_maximally(const Graph& g, std::size_t k, bool write, std::size_t a) {
    const auto stamp = [&](std::size_t m, bool m_write) {
      return m_write ? g.stamps(m).write : g.stamps(m).read;
    };
    const std::uint64_t own = stamp(k, write);
    const auto previous = [&](std::size_t m, bool m_write) {
      return m <= a && (stamp(m, m_write) <= own || g.in_prefix(m, a));
    };
    if (write)
      for (const std::uint32_t reader : g.readers(k))
        if (previous(reader, false)) return false;
    const std::uint32_t w = write ? static_cast<std::uint32_t>(k) : g.source(k);
    if (w != kFirst && !previous(w, true)) return false;
    const auto& co = g.coherence(g.location(k));
    auto it = std::find(co.begin(), co.end(), w);
    for (++it; it != co.end(); ++it)
      if (*it != a && previous(*it, true)) return false;
    return true;
  }

  // The test of the revisited graph: the kept steps in an order that follows their
  // dependences (earliest joined first), r last, reading a.
  Item revisit(const Trace& trace, const Graph& g, std::size_t r, std::size_t a) {
    const std::uint64_t bound = g.stamps(r).read;
    std::vector<char> keep(a + 1, 0);
    for (std::size_t k = 0; k <= a; ++k)
      keep[k] = k == r || g.stamps(k).read <= bound || g.in_prefix(k, a);
    // Dependences among kept steps: program order, reads-from, creation and joins.
    std::vector<std::vector<std::uint32_t>> after(a + 1);
    std::vector<std::uint32_t> waiting(a + 1, 0);
    std::unordered_map<ThreadId, std::uint32_t> last;
    std::unordered_map<ThreadId, std::uint32_t> created_by;
    const auto depend = [&](std::uint32_t from, std::size_t to) {
      after[from].push_back(static_cast<std::uint32_t>(to));
      ++waiting[to];
    };
    for (std::size_t k = 0; k <= a; ++k) {
      if (!keep[k]) continue;
      const Event& e = trace.events[k];
      if (const auto it = last.find(e.thread); it != last.end())
        depend(it->second, k);
      else if (const auto c = created_by.find(e.thread); c != created_by.end())
        depend(c->second, k);
      const std::uint32_t from = k == r       ? static_cast<std::uint32_t>(a)
                                 : g.reads(k) ? g.source(k)
                                              : kFirst;
      if (from != kFirst) depend(from, k);
      if (e.op.kind == OpKind::kThreadJoin)
        if (const auto it = last.find(static_cast<ThreadId>(e.op.object)); it != last.end())
          depend(it->second, k);
      if (e.op.kind == OpKind::kThreadCreate)
        created_by[static_cast<ThreadId>(e.op.object)] = static_cast<std::uint32_t>(k);
      last[e.thread] = static_cast<std::uint32_t>(k);
    }
    using Entry = std::pair<std::uint64_t, std::uint32_t>;  // (stamp, step)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (std::size_t k = 0; k <= a; ++k)
      if (keep[k] && waiting[k] == 0)
        ready.emplace(g.stamps(k).read, static_cast<std::uint32_t>(k));
    std::vector<std::uint32_t> order;
    std::vector<std::uint32_t> placed(a + 1, kNone);
    while (!ready.empty()) {
      const std::uint32_t k = ready.top().second;
      ready.pop();
      placed[k] = static_cast<std::uint32_t>(order.size());
      order.push_back(k);
      for (const std::uint32_t next : after[k])
        if (--waiting[next] == 0) ready.emplace(g.stamps(next).read, next);
    }
    Item item;
    item.directive.policy = SchedulePolicy::kLowest;
    item.directive.every_option = true;
    for (const std::uint32_t k : order) {
      item.directive.prefix.push_back(trace.events[k].thread);
      Stamps stamps = g.stamps(k);
      std::uint32_t source = TestDirective::kFree;
      if (k == r) {
        source = placed[a];
        stamps.write = next_stamp_++;  // its write, if it has one, joins anew
        item.new_writes.push_back(placed[k]);
      } else if (g.reads(k)) {
        source = g.source(k) == kFirst ? kFirst : placed[g.source(k)];
        if (g.writes(k) && g.stamps(k).write > bound && !g.in_prefix(k, a)) {
          stamps.write = next_stamp_++;  // its read stays, so its write joins anew
          item.new_writes.push_back(placed[k]);
        }
      } else if (g.writes(k)) {
        // Right after the last of the stores before it in coherence order already placed.
        source = kFirst;
        const auto& co = g.coherence(g.location(k));
        for (auto it = std::find(co.begin(), co.end(), k); it != co.begin();) {
          --it;
          if (*it == kFirst || (*it <= a && keep[*it] && placed[*it] < placed[k])) {
            source = *it == kFirst ? kFirst : placed[*it];
            break;
          }
        }
      }
      item.directive.sources.push_back(source);
      item.stamps.push_back(stamps);
    }
    item.fresh = order.size();
    return item;
  }

  bool started_ = false;
  Item current_;
  std::vector<Item> stack_;
  std::uint64_t next_stamp_ = 0;
  std::string unsupported_;
};

}  // namespace

WEFT_STRATEGY_ROWS(trust,
                   {"trust",
                    "one execution per consistent execution graph of the C/C++ model (TruSt, "
                    "Kokologiannakis et al., POPL 2022); atomics, fences and threads, in process",
                    45, ReadPolicy::kReadsCommute, kExploresOptions | kExploresGraphs,
                    made<GraphSearch>})

}  // namespace weft::explorer
