#include "weft/explore/global_state.hpp"

#include <algorithm>
#include <chrono>

#include "marking_translation.hpp"

namespace weft::explorer {
namespace {

using symbolic::ExprId;
using symbolic::ExprKind;

bool overlaps(ObjectKey a, std::uint64_t a_size, ObjectKey b, std::uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

// The translation of one unfolding and one predicate: the reachable markings
// (MarkingTranslation) of the cone of influence of the conditions the predicate reads, each
// variable's value in them (S1) and each location atom's truth. Input numbers: the program's
// inputs first (as the record numbers them), then the predicate's atoms, then the events' and
// the helpers' variables.
class Translation : public MarkingTranslation {
 public:
  Translation(const UnfoldingRecord& r, const GlobalStateQuery& q)
      : MarkingTranslation(r), r_(r), q_(q), u_(*r.unfolding), p_(pool()) {
    atom_base_ = static_cast<std::uint32_t>(variables().size());
    for (const auto& a : q.predicate->atoms) fresh_number(a.type.width);
  }

  // The problem with the query, or "".
  std::string build() {
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i) {
      const GlobalStateQuery::Place& place = q_.places.at(i);
      if (q_.predicate->atoms[i].kind == symbolic::PredicateAtom::Kind::kVariable &&
          (place.bytes == 0 || place.bytes > 8 ||
           place.address / kMemoryGranule != (place.address + place.bytes - 1) / kMemoryGranule))
        return "'" + q_.predicate->atoms[i].name +
               "' is not a scalar within one aligned 8-byte word";
    }
    find_locations();
    // The conditions the predicate reads: its variables' places, its threads' conditions at
    // its lines.
    std::vector<ConditionIndex> relevant;
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i)
      if (q_.predicate->atoms[i].kind == symbolic::PredicateAtom::Kind::kVariable)
        for (const auto& [first, size] : u_.places_in(q_.places[i].address / kMemoryGranule))
          for (ConditionIndex c : u_.conditions_of(ConditionKind::kMemory, first))
            relevant.push_back(c);
    for (const auto& [atom, c] : at_) relevant.push_back(c);
    translate(relevant);
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i)
      if (q_.predicate->atoms[i].kind == symbolic::PredicateAtom::Kind::kVariable) variable(i);
    locations();
    std::vector<std::uint32_t> atom_numbers;
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i)
      atom_numbers.push_back(atom_base_ + static_cast<std::uint32_t>(i));
    require(p_.import(q_.predicate->pool, q_.predicate->root, atom_numbers));
    return {};
  }

 private:
  // The value of a variable's bytes where `c` (a condition of their memory place) holds, as an
  // expression over inputs, if the tests recorded it: what the writes before it (back along the
  // place's conditions) left there.
  std::optional<ExprId> value_at(ConditionIndex c, const GlobalStateQuery::Place& place) {
    std::vector<ExprId> bytes(place.bytes, symbolic::kConcrete);  // by byte, 8 bits each
    std::size_t missing = place.bytes;
    const auto set = [&](std::uint32_t b, ExprId byte) {
      if (bytes[b] != symbolic::kConcrete) return;
      bytes[b] = byte;
      --missing;
    };
    while (missing) {
      const EventIndex p = u_.condition(c).producer;
      if (p == kInitialCondition) {
        for (std::uint32_t b = 0; b < place.bytes; ++b)
          set(b, p_.constant(8, place.initial >> (8 * b) & 0xff));
        break;
      }
      const UnfoldingEvent& ev = u_.event(p);
      const Operation& op = ev.op;
      if (op.kind == OpKind::kAtomicSection) {
        bool writes = !op.footprint.known;
        for (std::size_t i = 0; i < op.footprint.count && !writes; ++i)
          for (std::uint32_t b = 0; b < place.bytes; ++b) {
            const ObjectKey byte = place.address + b;
            if (byte / kMemoryGranule == op.footprint.granule(i) &&
                (op.footprint.written_bytes(i) >> (byte % kMemoryGranule) & 1))
              writes = true;
          }
        if (writes) return std::nullopt;
      } else if (writes_value(op.kind) &&
                 overlaps(op.object, op.size, place.address, place.bytes)) {
        const auto it = r_.written->find(p);
        if (it == r_.written->end() || !(it->second.known & AccessValues::kWritten) || op.size > 8)
          return std::nullopt;
        ExprId written = p_.constant(8 * op.size, it->second.written);
        if (it->second.known & AccessValues::kWrittenFromInputs) {
          const auto x = r_.written_expressions->find(p);
          if (x == r_.written_expressions->end()) return std::nullopt;
          written = p_.import(*r_.pool, x->second, same_inputs());
          if (p_[written].width != 8 * op.size) return std::nullopt;
        }
        for (std::uint32_t b = 0; b < place.bytes; ++b) {
          const ObjectKey byte = place.address + b;
          if (byte >= op.object && byte < op.object + op.size)
            set(b, p_.extract(written, static_cast<unsigned>(8 * (byte - op.object)), 8));
        }
      }
      // Back to the condition the producer consumed in c's place.
      const auto at = std::find(ev.postset.begin(), ev.postset.end(), c);
      c = ev.preset[static_cast<std::size_t>(at - ev.postset.begin())];
    }
    ExprId value = bytes.back();
    for (std::uint32_t b = place.bytes - 1; b-- > 0;) value = p_.concat(value, bytes[b]);
    return value;
  }

  // S1 for atom i: in each marking, the variable has the value its places' marked conditions
  // give it.
  void variable(std::size_t i) {
    const GlobalStateQuery::Place& place = q_.places.at(i);
    const auto& atom = q_.predicate->atoms[i];
    const ExprId var = p_.input(atom.type.width, atom_base_ + static_cast<std::uint32_t>(i));
    // The variable's bytes in each memory place of its granule (one place, usually).
    for (const auto& [first, size] : u_.places_in(place.address / kMemoryGranule)) {
      const ObjectKey lo = std::max<ObjectKey>(first, place.address);
      const ObjectKey hi = std::min<ObjectKey>(first + size, place.address + place.bytes);
      if (lo >= hi) continue;
      const auto shift = static_cast<unsigned>(8 * (lo - place.address));
      const GlobalStateQuery::Place slice{lo, static_cast<std::uint32_t>(hi - lo),
                                          place.initial >> shift};
      const ExprId bits = p_.extract(var, shift, 8 * slice.bytes);
      const auto equals = [&](ExprId v) { return p_.binary(ExprKind::kEq, bits, v); };
      const auto& conditions = u_.conditions_of(ConditionKind::kMemory, first);
      if (conditions.empty())
        require(equals(
            p_.constant(8 * slice.bytes, symbolic::truncate(slice.initial, 8 * slice.bytes))));
      for (ConditionIndex c : conditions)
        if (const auto v = value_at(c, slice)) require(implies(marked(c), equals(*v)));
    }
  }

  // Each location atom holds exactly when a condition of its thread from which the thread runs
  // an operation of the line is marked (a thread about to take a branch on inputs runs on to its
  // next operation without the other threads: only that operation's line counts). Finds those
  // conditions (at_).
  void find_locations() {
    std::vector<std::size_t> wanted;
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i)
      if (q_.predicate->atoms[i].kind == symbolic::PredicateAtom::Kind::kLocation)
        wanted.push_back(i);
    if (wanted.empty()) return;
    std::vector<ConditionIndex> from;
    std::vector<std::uint64_t> sites;
    for (ConditionIndex c = 0; c < u_.conditions(); ++c) {
      if (u_.condition(c).kind != ConditionKind::kThread) continue;
      for (EventIndex e : u_.consumers(c))
        if (u_.event(e).op.kind != OpKind::kSymbolicBranch && e < r_.sites->size()) {
          from.push_back(c);
          sites.push_back((*r_.sites)[e]);
          break;
        }
    }
    const std::vector<std::uint32_t> lines = q_.lines_of(sites);
    for (std::size_t i : wanted)
      for (std::size_t k = 0; k < from.size(); ++k)
        if (lines[k] == q_.predicate->atoms[i].line &&
            u_.condition(from[k]).key == q_.threads.at(i))
          at_.push_back({i, from[k]});
  }

  void locations() {
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i) {
      if (q_.predicate->atoms[i].kind != symbolic::PredicateAtom::Kind::kLocation) continue;
      std::vector<ExprId> at;
      for (const auto& [atom, c] : at_)
        if (atom == i) at.push_back(marked(c));
      const ExprId var = p_.input(1, atom_base_ + static_cast<std::uint32_t>(i));
      require(p_.binary(ExprKind::kEq, var, any_of(at)));
    }
  }

  const UnfoldingRecord& r_;
  const GlobalStateQuery& q_;
  const Unfolding& u_;
  symbolic::ExpressionPool& p_;
  std::uint32_t atom_base_ = 0;
  std::vector<std::pair<std::size_t, ConditionIndex>> at_;  // (location atom, condition)
};

}  // namespace

GlobalStateSearch search_global_state(const UnfoldingRecord& record,
                                      const GlobalStateQuery& query) {
  const auto started = std::chrono::steady_clock::now();
  GlobalStateSearch out;
  out.events = record.unfolding->events();
  Translation t(record, query);
  out.problem = t.build();
  if (!out.problem.empty()) return out;
  const ExprId all = t.conjunction();
  out.translated = t.translated();
  out.formula_nodes = t.pool().size();
  symbolic::Solver solver(query.timeout_ms);
  const symbolic::Solution s = solver.solve(t.pool(), {}, {all, true}, t.variables());
  out.answer = s.answer;
  if (s.answer == symbolic::Answer::kSatisfiable) out.test = t.test_of(s, out.steps);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

namespace {

enum class Write : std::uint8_t {
  kNone,     // the event writes none of the place
  kPart,     // some of its bytes, with known values
  kWhole,    // all of them, with known values
  kUnknown,  // some, with values weft does not know
};

// What event k of `trace` wrote into `place`, applied to `value`.
Write write_of(const Trace& trace, std::size_t k, const GlobalStateQuery::Place& place,
               std::uint64_t& value) {
  const Operation& op = trace.events[k].op;
  if (op.kind == OpKind::kAtomicSection) {
    if (!op.footprint.known) return Write::kUnknown;
    for (std::size_t g = 0; g < op.footprint.count; ++g)
      if (op.footprint.granule(g) == place.address / kMemoryGranule &&
          op.footprint.written_bytes(g))
        return Write::kUnknown;
    return Write::kNone;
  }
  if (!writes_value(op.kind) || !overlaps(op.object, op.size, place.address, place.bytes))
    return Write::kNone;
  if (k >= trace.values.size() || !(trace.values[k].known & AccessValues::kWritten))
    return Write::kUnknown;
  for (std::uint32_t b = 0; b < place.bytes; ++b) {
    const ObjectKey byte = place.address + b;
    if (byte < op.object || byte >= op.object + op.size) continue;
    const std::uint64_t v = trace.values[k].written >> (8 * (byte - op.object)) & 0xff;
    value = (value & ~(std::uint64_t{0xff} << (8 * b))) | (v << (8 * b));
  }
  return op.object <= place.address && op.object + op.size >= place.address + place.bytes
             ? Write::kWhole
             : Write::kPart;
}

}  // namespace

std::optional<std::vector<std::uint64_t>> atom_values_at(const Trace& trace, std::size_t steps,
                                                         const GlobalStateQuery& query) {
  const auto& atoms = query.predicate->atoms;
  std::vector<std::uint64_t> values(atoms.size(), 0);
  if (steps > trace.events.size()) return std::nullopt;
  std::vector<std::uint64_t> sites;
  std::vector<std::size_t> asked;  // atoms whose thread's next event's site is in `sites`
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    if (atoms[i].kind == symbolic::PredicateAtom::Kind::kLocation) {
      std::size_t j = steps;
      while (j < trace.events.size() && trace.events[j].thread != query.threads.at(i)) ++j;
      if (j == trace.events.size() || j >= trace.sites.size()) return std::nullopt;
      sites.push_back(trace.sites[j]);
      asked.push_back(i);
      continue;
    }
    const GlobalStateQuery::Place& place = query.places.at(i);
    std::uint64_t value = place.initial;
    for (std::size_t k = 0; k < steps; ++k)
      if (write_of(trace, k, place, value) == Write::kUnknown) return std::nullopt;
    values[i] = value;
  }
  if (!asked.empty()) {
    const std::vector<std::uint32_t> lines = query.lines_of(sites);
    for (std::size_t k = 0; k < asked.size(); ++k)
      values[asked[k]] = lines[k] == atoms[asked[k]].line;
  }
  return values;
}

std::optional<std::size_t> first_state_where(const Trace& trace, const GlobalStateQuery& query) {
  const auto& atoms = query.predicate->atoms;
  const std::size_t n = trace.events.size();
  // Locations: by state k, whether the thread's next event (the first of it from k on) is of
  // the line; 2 where it has none.
  std::vector<std::vector<std::uint8_t>> at(atoms.size());
  std::vector<std::uint64_t> sites;
  for (std::size_t i = 0; i < atoms.size(); ++i)
    if (atoms[i].kind == symbolic::PredicateAtom::Kind::kLocation)
      for (std::size_t k = 0; k < n && k < trace.sites.size(); ++k)
        if (trace.events[k].thread == query.threads.at(i)) sites.push_back(trace.sites[k]);
  const std::vector<std::uint32_t> lines =
      sites.empty() ? std::vector<std::uint32_t>{} : query.lines_of(sites);
  std::size_t next_line = 0;
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    if (atoms[i].kind != symbolic::PredicateAtom::Kind::kLocation) continue;
    at[i].assign(n + 1, 2);
    std::vector<std::size_t> own;  // the thread's events
    for (std::size_t k = 0; k < n && k < trace.sites.size(); ++k)
      if (trace.events[k].thread == query.threads.at(i)) own.push_back(k);
    std::size_t j = 0;
    for (std::size_t k = 0; k <= n && j < own.size(); ++k) {
      while (j < own.size() && own[j] < k) ++j;
      if (j < own.size()) at[i][k] = lines[next_line + j] == atoms[i].line;
    }
    next_line += own.size();
  }
  std::vector<std::uint64_t> values(atoms.size(), 0);
  std::vector<bool> known(atoms.size(), true);
  for (std::size_t i = 0; i < atoms.size(); ++i)
    if (atoms[i].kind == symbolic::PredicateAtom::Kind::kVariable)
      values[i] = query.places.at(i).initial;
  for (std::size_t k = 0;; ++k) {
    bool all_known = true;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (atoms[i].kind == symbolic::PredicateAtom::Kind::kLocation) {
        all_known &= at[i][k] != 2;
        values[i] = at[i][k] == 1;
      } else {
        all_known &= known[i];
      }
    }
    if (all_known && query.predicate->holds(values)) return k;
    if (k == n) return std::nullopt;
    // Event k's writes.
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (atoms[i].kind != symbolic::PredicateAtom::Kind::kVariable) continue;
      const Write w = write_of(trace, k, query.places[i], values[i]);
      if (w == Write::kUnknown) known[i] = false;
      if (w == Write::kWhole) known[i] = true;  // all of it written anew
    }
  }
}

}  // namespace weft::explorer
