#include "memory_model_oracle.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace weft::testing {
namespace {

constexpr int kMaxEvents = 64;
using Set = std::uint64_t;  // a set of events, by bit

Set bit(int e) {
  return Set{1} << e;
}

// A binary relation over at most 64 events, one row of successors per event.
struct Relation {
  std::array<Set, kMaxEvents> row{};
  void add(int a, int b) { row[a] |= bit(b); }
  bool has(int a, int b) const { return (row[a] >> b & 1) != 0; }
  Relation& operator|=(const Relation& o) {
    for (int i = 0; i < kMaxEvents; ++i) row[i] |= o.row[i];
    return *this;
  }
};

Relation operator|(Relation a, const Relation& b) {
  return a |= b;
}

Relation compose(const Relation& a, const Relation& b) {
  Relation r;
  for (int i = 0; i < kMaxEvents; ++i)
    for (Set m = a.row[i]; m != 0; m &= m - 1) r.row[i] |= b.row[std::countr_zero(m)];
  return r;
}

Relation closure(Relation r) {  // transitive (Warshall)
  for (int k = 0; k < kMaxEvents; ++k)
    for (int i = 0; i < kMaxEvents; ++i)
      if (r.has(i, k)) r.row[i] |= r.row[k];
  return r;
}

bool irreflexive(const Relation& r) {
  for (int i = 0; i < kMaxEvents; ++i)
    if (r.has(i, i)) return false;
  return true;
}

bool acyclic(const Relation& r) {
  return irreflexive(closure(r));
}

// [from]; r; [to]
Relation restrict(const Relation& r, Set from, Set to) {
  Relation out;
  for (int i = 0; i < kMaxEvents; ++i)
    if (from >> i & 1) out.row[i] = r.row[i] & to;
  return out;
}

Relation identity(Set s) {
  Relation r;
  for (int i = 0; i < kMaxEvents; ++i)
    if (s >> i & 1) r.add(i, i);
  return r;
}

enum class Kind { kInit, kLoad, kStore, kUpdate, kFence };

struct Event {
  Kind kind;
  int thread;  // -1 for a location's initial store
  int var;     // -1 for a fence
  int add;     // a store writes the thread's last value read plus this; an update adds it
  std::memory_order order;
};

bool releases(std::memory_order o) {
  return o == std::memory_order_release || o == std::memory_order_acq_rel ||
         o == std::memory_order_seq_cst;
}
bool acquires(std::memory_order o) {
  return o == std::memory_order_acquire || o == std::memory_order_acq_rel ||
         o == std::memory_order_seq_cst;
}

// The program's events and the relations that do not depend on the choice of writes read and of
// coherence orders.
class Events {
 public:
  explicit Events(const AtomicProgram& p) : program_(p) {
    for (int v = 0; v < p.vars; ++v) push({Kind::kInit, -1, v, 0, std::memory_order_relaxed});
    event_of_.resize(p.threads.size());
    for (std::size_t t = 0; t < p.threads.size(); ++t) {
      for (const AtomicInstr& in : p.threads[t]) {
        const int thread = static_cast<int>(t);
        int id = -1;
        switch (in.kind) {
          case AtomicInstr::kLoad:
            id = push({Kind::kLoad, thread, in.var, 0, in.order});
            break;
          case AtomicInstr::kStore:
            id = push({Kind::kStore, thread, in.var, in.value, in.order});
            break;
          case AtomicInstr::kFetchAdd:
            id = push({Kind::kUpdate, thread, in.var, in.value, in.order});
            break;
          case AtomicInstr::kFence:
            id = push({Kind::kFence, thread, -1, 0, in.order});
            break;
          case AtomicInstr::kAssertNot:
            break;
        }
        event_of_[t].push_back(id);
      }
    }
    for (int a = 0; a < count(); ++a) {
      for (int b = 0; b < count(); ++b) {
        const bool ordered =
            (events_[a].thread < 0 && events_[b].thread >= 0) ||
            (events_[a].thread >= 0 && events_[a].thread == events_[b].thread && a < b);
        if (!ordered) continue;
        sb.add(a, b);
        if (events_[a].var >= 0 && events_[a].var == events_[b].var)
          sb_loc.add(a, b);
        else
          sb_other_loc.add(a, b);
      }
    }
  }

  int count() const { return static_cast<int>(events_.size()); }
  const Event& operator[](int e) const { return events_[e]; }
  const AtomicProgram& program() const { return program_; }
  // The event of thread t's k-th instruction, or -1 for an assertion.
  int event_of(std::size_t t, std::size_t k) const { return event_of_[t][k]; }

  Set writes = 0, reads = 0, updates = 0, fences = 0, atomics = 0, releasing = 0, acquiring = 0,
      seq_cst = 0, sc_fences = 0, sc_stores = 0;
  Relation sb, sb_loc, sb_other_loc;

 private:
  int push(const Event& e) {
    const int id = static_cast<int>(events_.size());
    if (id >= kMaxEvents) throw std::length_error("the oracle takes at most 64 events");
    events_.push_back(e);
    const Set b = bit(id);
    const bool init = e.kind == Kind::kInit;
    if (init || e.kind == Kind::kStore || e.kind == Kind::kUpdate) writes |= b;
    if (e.kind == Kind::kLoad || e.kind == Kind::kUpdate) reads |= b;
    if (e.kind == Kind::kUpdate) updates |= b;
    if (e.kind == Kind::kFence) fences |= b;
    if (!init && e.kind != Kind::kFence) atomics |= b;
    if (!init && e.kind != Kind::kLoad && releases(e.order)) releasing |= b;
    if (!init && e.kind != Kind::kStore && acquires(e.order)) acquiring |= b;
    if (!init && e.order == std::memory_order_seq_cst) {
      seq_cst |= b;
      if (e.kind == Kind::kFence) sc_fences |= b;
      if (e.kind == Kind::kStore) sc_stores |= b;
    }
    return id;
  }

  const AtomicProgram& program_;
  std::vector<Event> events_;
  std::vector<std::vector<int>> event_of_;
};

// One candidate graph: the write each read reads from, and each location's coherence order.
struct Graph {
  std::vector<int> rf;               // by event; -1 for events that read nothing
  std::vector<std::vector<int>> co;  // by location: its stores in coherence order, initial first
};

// The relations of a graph every model uses.
struct Derived {
  Relation rf, co, fr;
};

Derived derive(const Events& ev, const Graph& g) {
  Derived d;
  for (int r = 0; r < ev.count(); ++r)
    if (g.rf[r] >= 0) d.rf.add(g.rf[r], r);
  for (const auto& order : g.co)
    for (std::size_t i = 0; i < order.size(); ++i)
      for (std::size_t j = i + 1; j < order.size(); ++j) d.co.add(order[i], order[j]);
  for (int r = 0; r < ev.count(); ++r)
    if (g.rf[r] >= 0) d.fr.row[r] = d.co.row[g.rf[r]] & ~bit(r);
  return d;
}

// An update reads from the store just before it in coherence order.
bool atomic_updates(const Events& ev, const Graph& g) {
  for (const auto& order : g.co)
    for (std::size_t i = 1; i < order.size(); ++i)
      if ((ev.updates >> order[i] & 1) && g.rf[order[i]] != order[i - 1]) return false;
  return true;
}

bool sc_consistent(const Events& ev, const Derived& d) {
  return acyclic(ev.sb | d.rf | d.co | d.fr);
}

bool tso_consistent(const Events& ev, const Derived& d) {
  if (!acyclic(ev.sb_loc | d.rf | d.co | d.fr)) return false;  // uniproc
  const Set accesses = ev.writes | ev.reads;
  Relation ppo, implied, mfence, rfe;
  for (int a = 0; a < ev.count(); ++a) {
    for (Set m = ev.sb.row[a]; m != 0; m &= m - 1) {
      const int b = std::countr_zero(m);
      const bool both_access = (accesses >> a & 1) && (accesses >> b & 1);
      if (both_access && !((ev.writes >> a & 1) && (ev.reads >> b & 1))) ppo.add(a, b);
      if ((ev.updates >> a & 1) || (ev.updates >> b & 1)) implied.add(a, b);
    }
  }
  // po; [mfence]; po, where a seq_cst store is followed by an mfence.
  for (int f = 0; f < ev.count(); ++f) {
    const bool fence = (ev.sc_fences >> f & 1) != 0, sc_store = (ev.sc_stores >> f & 1) != 0;
    if (!fence && !sc_store) continue;
    for (int a = 0; a < ev.count(); ++a)
      if (ev.sb.has(a, f) || (sc_store && a == f)) mfence.row[a] |= ev.sb.row[f];
  }
  for (int w = 0; w < ev.count(); ++w)
    for (Set m = d.rf.row[w]; m != 0; m &= m - 1) {
      const int r = std::countr_zero(m);
      if (ev[w].thread != ev[r].thread) rfe.add(w, r);
    }
  return acyclic(ppo | implied | mfence | rfe | d.co | d.fr);
}

bool rc11_consistent(const Events& ev, const Derived& d) {
  // Release sequences: [W]; (po|loc)?; [W atomic]; (rf; rmw)*.
  Relation rs_head, rf_rmw;
  for (int w = 0; w < ev.count(); ++w) {
    if (!(ev.writes >> w & 1)) continue;
    rs_head.row[w] =
        ((ev.atomics >> w & 1) ? bit(w) : 0) | (ev.sb_loc.row[w] & ev.writes & ev.atomics);
    rf_rmw.row[w] = d.rf.row[w] & ev.updates;
  }
  const Relation rs = compose(rs_head, closure(rf_rmw) | identity(ev.writes));
  // sw = [E⊒rel]; ([F]; po)?; rs; rf; [R atomic]; (po; [F])?; [E⊒acq]
  Relation start, finish;
  for (int a = 0; a < ev.count(); ++a) {
    if (ev.releasing >> a & 1)
      start.row[a] =
          ((ev.writes >> a & 1) ? bit(a) : 0) | ((ev.fences >> a & 1) ? ev.sb.row[a] : 0);
    if ((ev.reads & ev.atomics) >> a & 1)
      finish.row[a] = (ev.acquiring & bit(a)) | (ev.sb.row[a] & ev.fences & ev.acquiring);
  }
  const Relation sw = compose(compose(compose(start, rs), d.rf), finish);
  const Relation hb = closure(ev.sb | sw);
  const Relation eco = closure(d.rf | d.co | d.fr);
  if (!irreflexive(hb) || !irreflexive(compose(hb, eco))) return false;  // coherence

  // SC: psc = psc_base ∪ psc_F acyclic.
  Relation hb_loc;
  for (int a = 0; a < ev.count(); ++a)
    for (Set m = hb.row[a]; m != 0; m &= m - 1) {
      const int b = std::countr_zero(m);
      if (ev[a].var >= 0 && ev[a].var == ev[b].var) hb_loc.add(a, b);
    }
  const Relation scb =
      ev.sb | compose(compose(ev.sb_other_loc, hb), ev.sb_other_loc) | hb_loc | d.co | d.fr;
  Relation left, right;  // [Esc] ∪ [Fsc]; hb?   and   [Esc] ∪ hb?; [Fsc]
  for (int e = 0; e < ev.count(); ++e) {
    if (ev.seq_cst >> e & 1) left.add(e, e), right.add(e, e);
    if (ev.sc_fences >> e & 1) left.row[e] |= hb.row[e];
    right.row[e] |= hb.row[e] & ev.sc_fences;
  }
  const Relation psc_base = compose(compose(left, scb), right);
  const Relation psc_f = restrict(hb | compose(compose(hb, eco), hb), ev.sc_fences, ev.sc_fences);
  return acyclic(psc_base | psc_f);
}

class Enumerator {
 public:
  Enumerator(const AtomicProgram& p, AxiomaticModel model) : ev_(p), model_(model) {
    graph_.rf.assign(ev_.count(), -1);
    update_read_.assign(ev_.count(), 0);
    graph_.co.resize(p.vars);
    for (int e = 0; e < ev_.count(); ++e) {
      if (ev_.reads >> e & 1) read_events_.push_back(e);
      if ((ev_.writes >> e & 1) && ev_[e].kind != Kind::kInit) stores_of_[ev_[e].var].push_back(e);
    }
  }

  Observed run() {
    choose_read(0);
    return out_;
  }
  std::uint64_t consistent() const { return consistent_; }

 private:
  void choose_read(std::size_t i) {
    if (i == read_events_.size()) return choose_order(0);
    const int r = read_events_[i];
    for (int w = 0; w < ev_.count(); ++w) {
      if (w == r || !(ev_.writes >> w & 1) || ev_[w].var != ev_[r].var) continue;
      graph_.rf[r] = w;
      choose_read(i + 1);
    }
  }

  void choose_order(int var) {
    if (var == ev_.program().vars) return check();
    std::vector<int> stores = stores_of_[var];  // in event order: sorted
    do {
      graph_.co[var] = {var};  // the initial store first
      graph_.co[var].insert(graph_.co[var].end(), stores.begin(), stores.end());
      choose_order(var + 1);
    } while (std::next_permutation(stores.begin(), stores.end()));
  }

  // Values follow po ∪ rf; a cycle (a read of a value not yet computed) is out of thin air.
  bool compute_values() {
    const std::size_t threads = ev_.program().threads.size();
    value_.assign(ev_.count(), 0);
    std::vector<bool> done(ev_.count(), false);
    for (int v = 0; v < ev_.program().vars; ++v) done[v] = true;
    std::vector<std::size_t> next(threads, 0);
    std::vector<int> reg(threads, 0);
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t t = 0; t < threads; ++t) {
        const auto& code = ev_.program().threads[t];
        while (next[t] < code.size()) {
          const int e = ev_.event_of(t, next[t]);
          if (e >= 0) {
            if (graph_.rf[e] >= 0 && !done[graph_.rf[e]]) break;
            const Event& x = ev_[e];
            if (x.kind == Kind::kLoad) reg[t] = value_[e] = value_[graph_.rf[e]];
            if (x.kind == Kind::kStore) value_[e] = reg[t] + x.add;
            if (x.kind == Kind::kUpdate) {
              update_read_[e] = reg[t] = value_[graph_.rf[e]];
              value_[e] = reg[t] + x.add;
            }
            done[e] = true;
          }
          ++next[t];
          progress = true;
        }
      }
    }
    for (std::size_t t = 0; t < threads; ++t)
      if (next[t] < ev_.program().threads[t].size()) return false;
    return true;
  }

  void check() {
    if (!atomic_updates(ev_, graph_) || !compute_values()) return;
    const Derived d = derive(ev_, graph_);
    const bool consistent = model_ == AxiomaticModel::kSc    ? sc_consistent(ev_, d)
                            : model_ == AxiomaticModel::kTso ? tso_consistent(ev_, d)
                                                             : rc11_consistent(ev_, d);
    if (!consistent) return;
    ++consistent_;
    record();
  }

  void record() {
    const AtomicProgram& p = ev_.program();
    std::vector<int> state;
    for (int v = 0; v < p.vars; ++v) state.push_back(value_[graph_.co[v].back()]);
    std::vector<std::string> failures;
    Set removed = 0;
    for (std::size_t t = 0; t < p.threads.size(); ++t) {
      int reg = 0;
      bool failed = false;
      for (std::size_t k = 0; k < p.threads[t].size(); ++k) {
        const int e = ev_.event_of(t, k);
        if (failed) {
          if (e >= 0) removed |= bit(e);
          continue;
        }
        const AtomicInstr& in = p.threads[t][k];
        if (in.kind == AtomicInstr::kLoad) reg = value_[e];
        if (in.kind == AtomicInstr::kFetchAdd) reg = update_read_[e];
        if (in.kind == AtomicInstr::kLoad || in.kind == AtomicInstr::kFetchAdd) {
          state.push_back(reg);
        } else if (in.kind == AtomicInstr::kAssertNot && reg == in.value) {
          failed = true;
          failures.push_back("assert in thread " + std::to_string(t) + " at " + std::to_string(k));
        }
      }
    }
    if (failures.empty()) {
      out_.final_states.insert(std::move(state));
      return;
    }
    // The failing threads stop: a graph where another thread read a store they never made is
    // not an execution (another graph, with that read reading elsewhere, stands for it).
    for (int r = 0; r < ev_.count(); ++r)
      if (graph_.rf[r] >= 0 && !(removed >> r & 1) && (removed >> graph_.rf[r] & 1)) return;
    out_.bugs.insert(failures.begin(), failures.end());
  }

  Events ev_;
  AxiomaticModel model_;
  Graph graph_;
  std::vector<int> read_events_;
  std::map<int, std::vector<int>> stores_of_;
  std::vector<int> value_, update_read_;
  Observed out_;
  std::uint64_t consistent_ = 0;
};

}  // namespace

double candidate_graphs(const AtomicProgram& p) {
  std::vector<int> stores(p.vars, 0);
  for (const auto& t : p.threads)
    for (const auto& in : t)
      if (in.kind == AtomicInstr::kStore || in.kind == AtomicInstr::kFetchAdd) ++stores[in.var];
  double count = 1;
  for (const auto& t : p.threads)
    for (const auto& in : t) {
      if (in.kind == AtomicInstr::kLoad) count *= stores[in.var] + 1;
      if (in.kind == AtomicInstr::kFetchAdd) count *= stores[in.var];  // not itself
    }
  for (int n : stores)
    for (int k = 2; k <= n; ++k) count *= k;
  return count;
}

Observed allowed_outcomes(const AtomicProgram& p, AxiomaticModel model) {
  return Enumerator(p, model).run();
}

std::uint64_t consistent_graphs(const AtomicProgram& p, AxiomaticModel model) {
  Enumerator enumerator(p, model);
  enumerator.run();
  return enumerator.consistent();
}

}  // namespace weft::testing
