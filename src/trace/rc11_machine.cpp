#include "weft/trace/rc11_machine.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <stdexcept>

namespace weft::rc11 {
namespace {

constexpr EventId kNoEvent = ~EventId{0};

// A relation over the graph's events as a square bit matrix, for psc (only built when seq_cst
// events exist).
class Relation {
 public:
  explicit Relation(std::size_t n) : n_(n), words_((n + 63) / 64), bits_(n * words_, 0) {}
  bool has(std::size_t a, std::size_t b) const { return (row(a)[b / 64] >> (b % 64) & 1) != 0; }
  void add(std::size_t a, std::size_t b) { row(a)[b / 64] |= std::uint64_t{1} << (b % 64); }
  void unite(const Relation& o) {
    for (std::size_t i = 0; i < bits_.size(); ++i) bits_[i] |= o.bits_[i];
  }
  // this; o
  Relation then(const Relation& o) const {
    Relation r(n_);
    for (std::size_t a = 0; a < n_; ++a)
      for (std::size_t w = 0; w < words_; ++w)
        for (std::uint64_t m = row(a)[w]; m != 0; m &= m - 1) {
          const std::size_t b = w * 64 + static_cast<std::size_t>(std::countr_zero(m));
          for (std::size_t k = 0; k < words_; ++k) r.row(a)[k] |= o.row(b)[k];
        }
    return r;
  }
  // Whether the relation has a cycle (Warshall's closure, then the diagonal).
  bool cyclic() const {
    Relation c = *this;
    for (std::size_t k = 0; k < n_; ++k)
      for (std::size_t a = 0; a < n_; ++a)
        if (c.has(a, k))
          for (std::size_t w = 0; w < words_; ++w) c.row(a)[w] |= c.row(k)[w];
    for (std::size_t a = 0; a < n_; ++a)
      if (c.has(a, a)) return true;
    return false;
  }

 private:
  std::uint64_t* row(std::size_t a) { return bits_.data() + a * words_; }
  const std::uint64_t* row(std::size_t a) const { return bits_.data() + a * words_; }
  std::size_t n_, words_;
  std::vector<std::uint64_t> bits_;
};

}  // namespace

Mode mode_of(std::memory_order order) {
  switch (order) {
    case std::memory_order_relaxed:
      return Mode::kRelaxed;
    case std::memory_order_consume:
    case std::memory_order_acquire:
      return Mode::kAcquire;
    case std::memory_order_release:
      return Mode::kRelease;
    case std::memory_order_acq_rel:
      return Mode::kAcqRel;
    default:
      return Mode::kSeqCst;
  }
}

Machine::ThreadState& Machine::thread(ThreadId t) {
  if (t >= threads_.size()) threads_.resize(t + 1);
  return threads_[t];
}

void Machine::add_thread(ThreadId t, ThreadId parent) {
  VectorClock start;
  if (parent != kNoThread) start = thread(parent).clock;
  thread(t) = ThreadState{};
  threads_[t].clock = std::move(start);
}

void Machine::join(ThreadId joiner, ThreadId joined) {
  synchronise(joined, joiner);
}

void Machine::synchronise(ThreadId from, ThreadId to) {
  const VectorClock c = thread(from).clock;
  thread(to).clock.join(c);
}

void Machine::tick(ThreadId t) {
  ThreadState& ts = thread(t);
  ts.clock.set(t, ++ts.events);
}

void Machine::touch(Location x, Value initial) {
  if (histories_.count(x)) return;
  Event e{Kind::kInitial, Mode::kRelaxed, kNoThread, 0, x, kNoEvent, 0, false, initial, {}, {}};
  insert(std::move(e), kNoEvent);
}

void Machine::forget(Location x) {
  const auto history = histories_.find(x);
  if (history == histories_.end()) return;
  // Names no address can be: the top of the address space, counting down.
  const Location gone = ~Location{0} - forgotten_++;
  std::vector<EventId> stores = std::move(history->second);
  histories_.erase(history);
  for (const EventId e : stores) events_[e].location = gone;
  histories_[gone] = std::move(stores);
  if (const auto accesses = accesses_.find(x); accesses != accesses_.end()) {
    std::vector<EventId> all = std::move(accesses->second);
    accesses_.erase(accesses);
    for (const EventId e : all) events_[e].location = gone;
    accesses_[gone] = std::move(all);
  }
  for (ThreadState& t : threads_) t.released_to.erase(x);
}

std::uint32_t Machine::visible_from(ThreadId t, Location x) const {
  std::uint32_t from = 0;
  const VectorClock& c = threads_[t].clock;
  const auto it = accesses_.find(x);
  if (it == accesses_.end()) return 0;
  for (const EventId a : it->second) {
    const Event& e = events_[a];
    if (e.thread == kNoThread || !c.covers(e.thread, e.index)) continue;
    if (e.kind != Kind::kLoad) from = std::max(from, e.position);
    if (e.kind != Kind::kStore) from = std::max(from, events_[e.reads_from].position);
  }
  return from;
}

Machine::Event Machine::next_event(ThreadId t, Kind kind, Location x, Mode m, EventId from,
                                   Value written) {
  const ThreadState& ts = thread(t);
  Event e{kind, m, t, ts.events + 1, x, from, 0, false, written, ts.clock, {}};
  e.clock.set(t, e.index);
  const bool reads = kind == Kind::kLoad || kind == Kind::kUpdate;
  if (reads && acquires(m)) e.clock.join(events_[from].released);
  if (kind == Kind::kFence && acquires(m)) e.clock.join(ts.acquirable);
  if (kind == Kind::kStore || kind == Kind::kUpdate) {
    // The heads of the release sequences this store continues (RC11 §3, rs and sw).
    if (releases(m)) e.released = e.clock;
    e.released.join(ts.fence_released);
    if (const auto it = ts.released_to.find(x); it != ts.released_to.end())
      e.released.join(it->second);
    if (kind == Kind::kUpdate) e.released.join(events_[from].released);
  }
  return e;
}

void Machine::insert(Event e, EventId after) {
  const auto id = static_cast<EventId>(events_.size());
  const Kind kind = e.kind;
  const Location x = e.location;
  if (kind == Kind::kUpdate) events_[e.reads_from].read_by_update = true;
  if (e.mode == Mode::kSeqCst && kind != Kind::kInitial) ++seq_cst_events_;
  if (e.mode == Mode::kSeqCst && kind == Kind::kFence) ++seq_cst_fences_;
  if (e.mode != Mode::kSeqCst && kind != Kind::kInitial) ++weak_events_;
  if (e.thread != kNoThread) {
    if (e.thread >= by_thread_.size()) by_thread_.resize(e.thread + 1);
    e.in_thread = static_cast<std::uint32_t>(by_thread_[e.thread].size());
    by_thread_[e.thread].push_back(id);
  }
  events_.push_back(std::move(e));
  if (kind == Kind::kFence) return;
  if (kind != Kind::kLoad) {
    std::vector<EventId>& h = histories_[x];
    const std::uint32_t position = after == kNoEvent ? 0 : events_[after].position + 1;
    h.insert(h.begin() + position, id);
    for (std::size_t i = position; i < h.size(); ++i)
      events_[h[i]].position = static_cast<std::uint32_t>(i);
  }
  if (kind != Kind::kInitial) accesses_[x].push_back(id);
}

void Machine::remove_last() {
  const Event& e = events_.back();
  if (e.kind == Kind::kUpdate) events_[e.reads_from].read_by_update = false;
  if (e.mode == Mode::kSeqCst && e.kind != Kind::kInitial) --seq_cst_events_;
  if (e.mode == Mode::kSeqCst && e.kind == Kind::kFence) --seq_cst_fences_;
  if (e.mode != Mode::kSeqCst && e.kind != Kind::kInitial) --weak_events_;
  if (e.thread != kNoThread) by_thread_[e.thread].pop_back();
  if (e.kind != Kind::kFence) {
    if (e.kind != Kind::kLoad) {
      std::vector<EventId>& h = histories_[e.location];
      h.erase(h.begin() + e.position);
      for (std::size_t i = e.position; i < h.size(); ++i)
        events_[h[i]].position = static_cast<std::uint32_t>(i);
    }
    if (e.kind != Kind::kInitial) accesses_[e.location].pop_back();
  }
  events_.pop_back();
}

bool Machine::psc_acyclic() const {
  const std::size_t n = events_.size();
  Relation hb(n), sb(n), sb_other(n), hb_loc(n), mo(n), rf(n), rb(n);
  auto access = [&](const Event& e) { return e.kind != Kind::kFence; };
  for (std::size_t a = 0; a < n; ++a) {
    const Event& ea = events_[a];
    if (ea.thread == kNoThread) continue;
    for (std::size_t b = 0; b < n; ++b) {
      const Event& eb = events_[b];
      if (a == b || eb.thread == kNoThread) continue;
      const bool same_location = access(ea) && access(eb) && ea.location == eb.location;
      if (eb.clock.covers(ea.thread, ea.index)) {
        hb.add(a, b);
        if (same_location) hb_loc.add(a, b);
      }
      if (ea.thread == eb.thread && ea.index < eb.index) {
        sb.add(a, b);
        if (!same_location) sb_other.add(a, b);
      }
    }
  }
  for (const auto& [x, h] : histories_)
    for (std::size_t i = 0; i < h.size(); ++i)
      for (std::size_t j = i + 1; j < h.size(); ++j) mo.add(h[i], h[j]);
  for (std::size_t r = 0; r < n; ++r) {
    const Event& e = events_[r];
    if (e.kind != Kind::kLoad && e.kind != Kind::kUpdate) continue;
    rf.add(e.reads_from, r);
    const std::vector<EventId>& h = histories_.at(e.location);
    for (std::size_t i = events_[e.reads_from].position + 1; i < h.size(); ++i)
      if (h[i] != r) rb.add(r, h[i]);
  }
  Relation eco = rf;  // eco = rf ∪ (mo ∪ rb); rf?
  Relation mo_rb = mo;
  mo_rb.unite(rb);
  eco.unite(mo_rb);
  eco.unite(mo_rb.then(rf));

  // scb = sb ∪ sb|≠loc; hb; sb|≠loc ∪ hb|loc ∪ mo ∪ rb
  Relation scb = sb;
  scb.unite(sb_other.then(hb).then(sb_other));
  scb.unite(hb_loc);
  scb.unite(mo_rb);
  Relation left(n), right(n), fences(n);
  for (std::size_t a = 0; a < n; ++a) {
    const Event& e = events_[a];
    if (e.mode != Mode::kSeqCst || e.kind == Kind::kInitial) continue;
    left.add(a, a);
    right.add(a, a);
    if (e.kind == Kind::kFence) fences.add(a, a);
  }
  // [Esc] ∪ [Fsc]; hb?   and   [Esc] ∪ hb?; [Fsc]
  left.unite(fences.then(hb));
  right.unite(hb.then(fences));
  Relation psc = left.then(scb).then(right);
  Relation hb_eco_hb = hb;
  hb_eco_hb.unite(hb.then(eco).then(hb));
  psc.unite(fences.then(hb_eco_hb).then(fences));
  return !psc.cyclic();
}

// RC11's scb (§3): sb ∪ sb|≠loc; hb; sb|≠loc ∪ hb|loc ∪ mo ∪ rb, for one pair. For the middle
// term the first event after a in its thread at another location and the last before b in its
// thread at another location stand for all: sb is in hb, so the earlier the first and the later
// the second, the more hb relates them.
bool Machine::scb(EventId a, EventId b) const {
  const Event& ea = events_[a];
  const Event& eb = events_[b];
  if (ea.thread == eb.thread) return ea.index < eb.index;  // sb, or nothing
  const bool here = same_location(ea, eb);
  const bool a_writes = ea.kind != Kind::kLoad && ea.kind != Kind::kFence;
  const bool b_writes = eb.kind != Kind::kLoad && eb.kind != Kind::kFence;
  if (here) {
    if (eb.clock.covers(ea.thread, ea.index)) return true;               // hb|loc
    if (a_writes && b_writes && ea.position < eb.position) return true;  // mo
    if ((ea.kind == Kind::kLoad || ea.kind == Kind::kUpdate) && b_writes &&
        events_[ea.reads_from].position < eb.position)
      return true;  // rb
  }
  const std::vector<EventId>& after_a = by_thread_[ea.thread];
  EventId c = kNoEvent;
  for (std::size_t i = ea.in_thread + 1; i < after_a.size() && c == kNoEvent; ++i)
    if (!same_location(events_[after_a[i]], ea)) c = after_a[i];
  if (c == kNoEvent) return false;
  const std::vector<EventId>& before_b = by_thread_[eb.thread];
  for (std::size_t i = eb.in_thread; i-- > 0;) {
    const Event& d = events_[before_b[i]];
    if (same_location(d, eb)) continue;
    return d.clock.covers(events_[c].thread, events_[c].index);
  }
  return false;
}

bool Machine::psc_cycle_through_last() const {
  const auto e = static_cast<EventId>(events_.size() - 1);
  std::vector<char> reaches_e(psc_nodes_.size(), 0);
  std::vector<std::uint32_t> stack;
  bool any_into = false;
  for (std::uint32_t n = 0; n < psc_nodes_.size(); ++n) {
    if (psc_nodes_[n] == e) continue;
    if (scb(psc_nodes_[n], e)) reaches_e[n] = 1, any_into = true;
    if (scb(e, psc_nodes_[n])) stack.push_back(n);
  }
  if (!any_into) return false;
  std::vector<char> seen(psc_nodes_.size(), 0);
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    if (reaches_e[n]) return true;
    if (seen[n]) continue;
    seen[n] = 1;
    for (const std::uint32_t m : psc_next_[n])
      if (!seen[m]) stack.push_back(m);
  }
  return false;
}

void Machine::add_psc_node() {
  const auto e = static_cast<EventId>(events_.size() - 1);
  const auto node = static_cast<std::uint32_t>(psc_nodes_.size());
  psc_nodes_.push_back(e);
  psc_next_.emplace_back();
  // Within a thread, the edge from its previous seq_cst access is enough (sb is transitive).
  bool thread_linked = false;
  for (std::uint32_t n = node; n-- > 0;) {
    const EventId a = psc_nodes_[n];
    const bool same_thread = events_[a].thread == events_[e].thread;
    if (same_thread && thread_linked) continue;
    if (scb(a, e)) psc_next_[n].push_back(node);
    if (same_thread)
      thread_linked = true;
    else if (scb(e, a))
      psc_next_[node].push_back(n);
  }
}

bool Machine::sc_consistent_with(const Event& e, EventId after) {
  if (seq_cst_events_ == 0 && e.mode != Mode::kSeqCst) return true;
  // Without seq_cst fences, only a seq_cst access can close a psc cycle, through itself.
  const bool incremental = seq_cst_fences_ == 0 && e.kind != Kind::kFence;
  if (incremental && e.mode != Mode::kSeqCst && !check_psc_) return true;
  // With them too, every psc edge the new event adds leads to what comes after it in eco (from
  // it, or from a seq_cst fence that happens before it, through it): an access that reads or
  // follows the newest store has nothing after it in eco, and a fence nothing at all.
  const bool newest = e.kind == Kind::kFence || after == histories_.at(e.location).back();
  if (newest && !check_psc_) return true;
  insert(e, after);
  const bool ok = newest                    ? true
                  : !incremental            ? psc_acyclic()
                  : e.mode == Mode::kSeqCst ? !psc_cycle_through_last()
                                            : true;
  if (check_psc_ && ok != psc_acyclic()) std::abort();
  remove_last();
  return ok;
}

std::vector<EventId> Machine::options(ThreadId t, Kind kind, Location x, Mode m) {
  thread(t);
  // While every event is seq_cst, the consistent graphs are those of interleavings (RC11's
  // DRF-SC: race-free programs whose atomics are all seq_cst are sequentially consistent; the
  // mutexes and other synchronisation, ordered as the schedule runs them, keep that). A store
  // read or followed that is not the newest gives a graph that another interleaving gives with
  // the newest, and the strategies explore the interleavings: the newest is the only option.
  if (weak_events_ == 0 && m == Mode::kSeqCst && !every_option_) return {latest(x)};
  const std::vector<EventId> history = histories_.at(x);  // a copy: the probes below insert
  std::vector<EventId> out;
  for (std::size_t i = visible_from(t, x); i < history.size(); ++i) {
    const EventId s = history[i];
    if (kind != Kind::kLoad && events_[s].read_by_update) continue;  // atomicity
    const Event e = next_event(t, kind, x, m, kind == Kind::kStore ? kNoEvent : s, 0);
    if (sc_consistent_with(e, s)) out.push_back(s);
  }
  return out;
}

std::vector<EventId> Machine::load_options(ThreadId t, Location x, Mode m) {
  return options(t, Kind::kLoad, x, m);
}
std::vector<EventId> Machine::store_options(ThreadId t, Location x, Mode m) {
  return options(t, Kind::kStore, x, m);
}
std::vector<EventId> Machine::update_options(ThreadId t, Location x, Mode m) {
  return options(t, Kind::kUpdate, x, m);
}
std::vector<EventId> Machine::taken_update_options(ThreadId t, Location x, Mode m) {
  // As GenMC adds an update's read before its write: the read must be consistent.
  std::vector<EventId> out = options(t, Kind::kLoad, x, m);
  std::erase_if(out, [this](EventId s) { return !events_[s].read_by_update; });
  return out;
}

Value Machine::load(ThreadId t, Location x, Mode m, EventId from) {
  Event e = next_event(t, Kind::kLoad, x, m, from, 0);
  ThreadState& ts = threads_[t];
  ts.clock = e.clock;
  ts.events = e.index;
  if (!acquires(m)) ts.acquirable.join(events_[from].released);
  insert(std::move(e), kNoEvent);
  if (m == Mode::kSeqCst && seq_cst_fences_ == 0) add_psc_node();
  return events_[from].value;
}

void Machine::store(ThreadId t, Location x, Mode m, EventId after, Value written) {
  Event e = next_event(t, Kind::kStore, x, m, kNoEvent, written);
  ThreadState& ts = threads_[t];
  ts.clock = e.clock;
  ts.events = e.index;
  if (releases(m)) ts.released_to[x] = e.clock;
  insert(std::move(e), after);
  if (m == Mode::kSeqCst && seq_cst_fences_ == 0) add_psc_node();
}

Value Machine::update(ThreadId t, Location x, Mode m, EventId from, Value written) {
  Event e = next_event(t, Kind::kUpdate, x, m, from, written);
  ThreadState& ts = threads_[t];
  ts.clock = e.clock;
  ts.events = e.index;
  if (!acquires(m)) ts.acquirable.join(events_[from].released);
  if (releases(m)) ts.released_to[x] = e.clock;
  insert(std::move(e), from);
  if (m == Mode::kSeqCst && seq_cst_fences_ == 0) add_psc_node();
  return events_[from].value;
}

void Machine::fence(ThreadId t, Mode m) {
  Event e = next_event(t, Kind::kFence, 0, m, kNoEvent, 0);
  ThreadState& ts = threads_[t];
  ts.clock = e.clock;
  ts.events = e.index;
  if (releases(m)) ts.fence_released = e.clock;
  insert(std::move(e), kNoEvent);
}

}  // namespace weft::rc11
