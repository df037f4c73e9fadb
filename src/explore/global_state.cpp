#include "weft/explore/global_state.hpp"

#include <algorithm>
#include <chrono>

namespace weft::explorer {
namespace {

using symbolic::ExprId;
using symbolic::ExprKind;

// Events touching at most this many consumers of one condition exclude each other pairwise (B3);
// more take a sequential counter, linear in their number ([LBHJ04], as the thesis' tool does).
constexpr std::size_t kPairwiseAtMost = 4;

bool overlaps(ObjectKey a, std::uint64_t a_size, ObjectKey b, std::uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

// The translation of one unfolding and one query into a conjunction in its own pool; input
// numbers: the program's inputs first (as the record numbers them), then the predicate's atoms,
// then the events' and the helpers' variables.
class Translation {
 public:
  Translation(const UnfoldingRecord& r, const GlobalStateQuery& q)
      : r_(r), q_(q), u_(*r.unfolding) {
    for (const auto& v : r.inputs) {
      same_inputs_.push_back(static_cast<std::uint32_t>(variables_.size()));
      variables_.push_back(v);
    }
    atom_base_ = static_cast<std::uint32_t>(variables_.size());
    for (const auto& a : q.predicate->atoms) fresh_number(a.type.width);
    event_base_ = static_cast<std::uint32_t>(variables_.size());
    for (std::size_t e = 0; e < u_.events(); ++e) fresh_number(1);
  }

  // The problem with the query, or "".
  std::string build() {
    for (EventIndex e = 0; e < u_.events(); ++e) causes_and_branch(e);
    for (ConditionIndex c = 0; c < u_.conditions(); ++c) at_most_one_consumer(c);
    if (has_read_arcs()) order();
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i) {
      const auto& a = q_.predicate->atoms[i];
      if (a.kind == symbolic::PredicateAtom::Kind::kVariable) {
        if (std::string why = variable(i); !why.empty()) return why;
      }
    }
    locations();
    std::vector<std::uint32_t> atom_numbers;
    for (std::size_t i = 0; i < q_.predicate->atoms.size(); ++i)
      atom_numbers.push_back(atom_base_ + static_cast<std::uint32_t>(i));
    terms_.push_back(p_.import(q_.predicate->pool, q_.predicate->root, atom_numbers));
    return {};
  }

  // The conjunction of every term, as a balanced tree (evaluating it recurses by its depth).
  ExprId conjunction() {
    std::vector<ExprId> level = terms_;
    if (level.empty()) return p_.constant(1, 1);
    while (level.size() > 1) {
      std::vector<ExprId> up;
      for (std::size_t i = 0; i + 1 < level.size(); i += 2)
        up.push_back(p_.binary(ExprKind::kAnd, level[i], level[i + 1]));
      if (level.size() % 2) up.push_back(level.back());
      level = std::move(up);
    }
    return level.front();
  }

  symbolic::ExpressionPool& pool() { return p_; }
  const std::vector<symbolic::InputVariable>& variables() const { return variables_; }
  std::uint32_t event_number(EventIndex e) const { return event_base_ + e; }

 private:
  std::uint32_t fresh_number(unsigned width) {
    const auto n = static_cast<std::uint32_t>(variables_.size());
    // Stable ids only name inputs for the solver's cache: these are this query's own.
    variables_.push_back({width, 0, (std::uint64_t{1} << 63) | n});
    return n;
  }
  ExprId fresh(unsigned width) { return p_.input(width, fresh_number(width)); }
  ExprId fired(EventIndex e) { return p_.input(1, event_base_ + e); }
  ExprId negation(ExprId a) { return p_.unary(ExprKind::kNot, a); }
  ExprId implies(ExprId a, ExprId b) { return p_.binary(ExprKind::kOr, negation(a), b); }
  ExprId any_of(const std::vector<ExprId>& xs) {
    ExprId out = p_.constant(1, 0);
    for (ExprId x : xs) out = p_.binary(ExprKind::kOr, out, x);
    return out;
  }

  // B1, C1: a fired event's immediate causes fired (the rest follows); B2: its constraint holds.
  void causes_and_branch(EventIndex e) {
    const UnfoldingEvent& ev = u_.event(e);
    std::vector<EventIndex> causes;
    for (const auto* list : {&ev.preset, &ev.context})
      for (ConditionIndex c : *list)
        if (const EventIndex p = u_.condition(c).producer; p != kInitialCondition)
          causes.push_back(p);
    std::sort(causes.begin(), causes.end());
    causes.erase(std::unique(causes.begin(), causes.end()), causes.end());
    for (EventIndex p : causes) terms_.push_back(implies(fired(e), fired(p)));
    if (const auto it = r_.branch_constraints->find(e); it != r_.branch_constraints->end()) {
      ExprId g = p_.is_nonzero(p_.import(*r_.pool, it->second.condition, same_inputs_));
      if (!it->second.holds) g = negation(g);
      terms_.push_back(implies(fired(e), g));
    }
  }

  // B3: of the events that consume `c`, at most one fired.
  void at_most_one_consumer(ConditionIndex c) {
    const auto& consumers = u_.consumers(c);
    if (consumers.size() < 2) return;
    if (consumers.size() <= kPairwiseAtMost) {
      for (std::size_t i = 0; i < consumers.size(); ++i)
        for (std::size_t j = i + 1; j < consumers.size(); ++j)
          terms_.push_back(
              negation(p_.binary(ExprKind::kAnd, fired(consumers[i]), fired(consumers[j]))));
      return;
    }
    // s_i: one of the first i consumers fired.
    ExprId before = fresh(1);
    terms_.push_back(implies(fired(consumers[0]), before));
    for (std::size_t i = 1; i < consumers.size(); ++i) {
      const ExprId e = fired(consumers[i]);
      const ExprId now = fresh(1);
      terms_.push_back(implies(e, now));
      terms_.push_back(implies(before, now));
      terms_.push_back(implies(before, negation(e)));
      before = now;
    }
  }

  bool has_read_arcs() const {
    for (EventIndex e = 0; e < u_.events(); ++e)
      if (!u_.event(e).context.empty()) return true;
    return false;
  }

  // C2, C3: the fired events can be numbered in an order that fires each after its causes, and
  // an event that observes a condition before the one that consumes it.
  void order() {
    std::vector<ExprId> n;
    for (EventIndex e = 0; e < u_.events(); ++e) n.push_back(fresh(32));
    for (EventIndex e = 0; e < u_.events(); ++e) {
      const UnfoldingEvent& ev = u_.event(e);
      for (const auto* list : {&ev.preset, &ev.context})
        for (ConditionIndex c : *list)
          if (const EventIndex p = u_.condition(c).producer; p != kInitialCondition)
            terms_.push_back(implies(fired(e), p_.binary(ExprKind::kUlt, n[p], n[e])));
      for (ConditionIndex c : ev.context)
        for (EventIndex w : u_.consumers(c))
          terms_.push_back(implies(fired(e), p_.binary(ExprKind::kUlt, n[e], n[w])));
    }
  }

  // B4: whether `c` holds in the marking.
  ExprId marked(ConditionIndex c) {
    const EventIndex p = u_.condition(c).producer;
    ExprId produced = p == kInitialCondition ? p_.constant(1, 1) : fired(p);
    std::vector<ExprId> taken;
    for (EventIndex e : u_.consumers(c)) taken.push_back(fired(e));
    return p_.binary(ExprKind::kAnd, produced, negation(any_of(taken)));
  }

  // The value of a variable's bytes where `c` (a condition of its granule) holds, as an
  // expression over inputs, if the tests recorded it: what the writes before it (back along the
  // granule's conditions) left there.
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
          written = p_.import(*r_.pool, x->second, same_inputs_);
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

  // S1 for atom i: in each marking, the variable has the value its granule's marked condition
  // gives it.
  std::string variable(std::size_t i) {
    const GlobalStateQuery::Place& place = q_.places.at(i);
    const auto& atom = q_.predicate->atoms[i];
    if (place.bytes == 0 || place.bytes > 8 ||
        place.address / kMemoryGranule != (place.address + place.bytes - 1) / kMemoryGranule)
      return "'" + atom.name + "' is not a scalar within one aligned 8-byte word";
    const ExprId var = p_.input(atom.type.width, atom_base_ + static_cast<std::uint32_t>(i));
    const auto equals = [&](ExprId v) { return p_.binary(ExprKind::kEq, var, v); };
    const auto& conditions =
        u_.conditions_of(ConditionKind::kMemory, place.address / kMemoryGranule);
    if (conditions.empty()) terms_.push_back(equals(p_.constant(atom.type.width, place.initial)));
    for (ConditionIndex c : conditions)
      if (const auto v = value_at(c, place)) terms_.push_back(implies(marked(c), equals(*v)));
    return {};
  }

  // Each location atom holds exactly when a condition of its thread from which the thread runs
  // an operation of the line is marked (a thread about to take a branch on inputs runs on to its
  // next operation without the other threads: only that operation's line counts).
  void locations() {
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
    for (std::size_t i : wanted) {
      const auto& atom = q_.predicate->atoms[i];
      std::vector<ExprId> at;
      for (std::size_t k = 0; k < from.size(); ++k)
        if (lines[k] == atom.line && u_.condition(from[k]).key == q_.threads.at(i))
          at.push_back(marked(from[k]));
      const ExprId var = p_.input(1, atom_base_ + static_cast<std::uint32_t>(i));
      terms_.push_back(p_.binary(ExprKind::kEq, var, any_of(at)));
    }
  }

  const UnfoldingRecord& r_;
  const GlobalStateQuery& q_;
  const Unfolding& u_;
  symbolic::ExpressionPool p_;
  std::vector<symbolic::InputVariable> variables_;
  std::uint32_t atom_base_ = 0, event_base_ = 0;
  std::vector<ExprId> terms_;
  std::vector<std::uint32_t> same_inputs_;  // the record's inputs keep their numbers
};

}  // namespace

GlobalStateSearch search_global_state(const UnfoldingRecord& record,
                                      const GlobalStateQuery& query) {
  const auto started = std::chrono::steady_clock::now();
  GlobalStateSearch out;
  const Unfolding& u = *record.unfolding;
  out.events = u.events();
  Translation t(record, query);
  out.problem = t.build();
  if (!out.problem.empty()) return out;
  const ExprId all = t.conjunction();
  out.formula_nodes = t.pool().size();
  symbolic::Solver solver(query.timeout_ms);
  const symbolic::Solution s = solver.solve(t.pool(), {}, {all, true}, t.variables());
  out.answer = s.answer;
  if (s.answer == symbolic::Answer::kSatisfiable) {
    std::vector<EventIndex> configuration;
    for (EventIndex e = 0; e < u.events(); ++e)
      if (s.values[t.event_number(e)] & 1) configuration.push_back(e);
    for (EventIndex e : u.schedule_of(configuration))
      if (u.event(e).op.kind != OpKind::kSymbolicBranch) {
        out.test.prefix.push_back(u.event(e).thread);
        ++out.steps;
      }
    for (std::size_t i = 0; i < record.input_keys.size(); ++i)
      out.test.inputs.push_back({record.input_keys[i], s.values[i]});
    std::sort(out.test.inputs.begin(), out.test.inputs.end(),
              [](const InputValue& a, const InputValue& b) { return a.key < b.key; });
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

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
    for (std::size_t k = 0; k < steps; ++k) {
      const Operation& op = trace.events[k].op;
      if (op.kind == OpKind::kAtomicSection) {
        if (!op.footprint.known) return std::nullopt;
        for (std::size_t g = 0; g < op.footprint.count; ++g)
          if (op.footprint.granule(g) == place.address / kMemoryGranule &&
              op.footprint.written_bytes(g))
            return std::nullopt;
        continue;
      }
      if (!writes_value(op.kind) || !overlaps(op.object, op.size, place.address, place.bytes))
        continue;
      if (k >= trace.values.size() || !(trace.values[k].known & AccessValues::kWritten))
        return std::nullopt;
      for (std::uint32_t b = 0; b < place.bytes; ++b) {
        const ObjectKey byte = place.address + b;
        if (byte < op.object || byte >= op.object + op.size) continue;
        const std::uint64_t v = trace.values[k].written >> (8 * (byte - op.object)) & 0xff;
        value = (value & ~(std::uint64_t{0xff} << (8 * b))) | (v << (8 * b));
      }
    }
    values[i] = value;
  }
  if (!asked.empty()) {
    const std::vector<std::uint32_t> lines = query.lines_of(sites);
    for (std::size_t k = 0; k < asked.size(); ++k)
      values[asked[k]] = lines[k] == atoms[asked[k]].line;
  }
  return values;
}

}  // namespace weft::explorer
