#include "weft/driver/global_check.hpp"

#include "weft/driver/native_runner.hpp"
#include "weft/symbolic/expression.hpp"

namespace weft::driver {

GlobalCheck::GlobalCheck(const std::string& text, Symbolizer& symbols)
    : predicate_(std::make_unique<symbolic::Predicate>()) {
  std::string why;
  const auto type_of = [&](const std::string& name) -> std::optional<symbolic::VariableType> {
    const auto s = symbols.scalar(name, &why);
    if (!s) return std::nullopt;
    return symbolic::VariableType{8 * s->bytes, s->is_signed};
  };
  try {
    *predicate_ = symbolic::parse_predicate(text, type_of);
  } catch (const symbolic::PredicateError& e) {
    // The parser names the place; the debug information, what is wrong with a name.
    std::string message = e.what();
    if (!why.empty() && message.find("is not a global variable") != std::string::npos)
      message = "--check-global: " + why +
                "; name a global integer, character, bool, "
                "enumeration or pointer variable";
    throw DriverError(message);
  }
  query_.predicate = predicate_.get();
}

void GlobalCheck::resolve(Symbolizer& symbols, ThreadRegistry& threads) {
  const auto& atoms = predicate_->atoms;
  query_.places.assign(atoms.size(), {});
  query_.threads.assign(atoms.size(), kNoThread);
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    if (atoms[i].kind == symbolic::PredicateAtom::Kind::kVariable) {
      const auto s = symbols.scalar(atoms[i].name);
      if (!s) throw DriverError("--check-global: '" + atoms[i].name + "' went missing");
      query_.places[i] = {s->address, s->bytes, s->initial};
    } else {
      const auto t = threads.intern(atoms[i].name);
      if (!t)
        throw DriverError("--check-global: '" + atoms[i].name +
                          "' is not a thread name; name threads as reports do (0, 0.1, 0.1.0)");
      query_.threads[i] = *t;
    }
  }
  query_.lines_of = [&symbols](const std::vector<std::uint64_t>& sites) {
    symbols.prepare(sites, {});
    std::vector<std::uint32_t> lines;
    for (std::uint64_t site : sites) lines.push_back(symbols.code(site).line);
    return lines;
  };
}

std::optional<explorer::FoundBug> GlobalCheck::bug_in(const Trace& trace, std::size_t steps,
                                                      const ThreadRegistry& threads,
                                                      bool* undecided) const {
  const auto values = explorer::atom_values_at(trace, steps, query_);
  if (undecided) *undecided = !values;
  if (!values || !predicate_->holds(*values)) return std::nullopt;
  std::string shown;
  for (std::size_t i = 0; i < predicate_->atoms.size(); ++i) {
    const auto& atom = predicate_->atoms[i];
    shown += shown.empty() ? "" : ", ";
    if (atom.kind == symbolic::PredicateAtom::Kind::kLocation) {
      shown += "thread " + threads.name(query_.threads[i]) + ((*values)[i] ? " at" : " not at") +
               " line " + std::to_string(atom.line);
    } else {
      const std::uint64_t v = (*values)[i];
      shown += atom.name + " = " +
               (atom.type.is_signed ? std::to_string(symbolic::sign_extend(v, atom.type.width))
                                    : std::to_string(v));
    }
  }
  Failure f;
  f.outcome = Outcome::kGlobalState;
  f.message =
      "the program reaches a global state where " + predicate_->text + " holds (" + shown + ")";
  f.step = steps;
  return explorer::found_bug(trace, &f);
}

void GlobalCheck::check_every_state(Trace& trace, const ThreadRegistry& threads) const {
  const auto steps = explorer::first_state_where(trace, query_);
  if (!steps) return;
  auto bug = bug_in(trace, *steps, threads);
  if (!bug) return;
  // The exploration loop reports every failure of a trace; the strategies do not read them.
  Failure f;
  f.outcome = bug->outcome;
  f.message = bug->message;
  f.step = *steps;
  trace.failures.push_back(std::move(f));
}

GlobalCheckResult check_global_state(const explorer::Strategy& strategy, const GlobalCheck& check,
                                     const std::function<Trace(const TestDirective&)>& run,
                                     const ThreadRegistry& threads) {
  GlobalCheckResult out;
  if (const explorer::UnfoldingView* unfolding = strategy.unfolding())
    out.search = unfolding->search_global_state(check.query());
  else
    out.search.problem =
        "only the unfolding strategies (contextual, unfolding) check global states";
  const explorer::GlobalStateSearch& s = out.search;
  if (!s.problem.empty()) {
    out.note = "--check-global could not search: " + s.problem;
    return out;
  }
  if (s.answer == symbolic::Answer::kUnsatisfiable) {
    out.answer = GlobalCheckResult::Answer::kUnreachable;
    out.note = "no reachable global state satisfies " + check.predicate().text +
               " (the SMT "
               "translation of the unfolding's " +
               std::to_string(s.events) + " events has no solution)";
    return out;
  }
  if (s.answer == symbolic::Answer::kUnknown) {
    out.note =
        "--check-global: the solver could not decide within its time limit whether a "
        "state satisfies " +
        check.predicate().text;
    return out;
  }
  const Trace trace = run(s.test);
  bool undecided = false;
  if (trace.prefix_followed >= s.steps && !trace.diverged_at)
    out.bug = check.bug_in(trace, s.steps, threads, &undecided);
  if (out.bug) {
    out.answer = GlobalCheckResult::Answer::kReached;
    out.note = out.bug->message;
    return out;
  }
  out.note = "--check-global: the solver found a state that may satisfy " + check.predicate().text +
             ", but the execution that ran into it " +
             (undecided ? "did not record the values it needs (written by code whose values weft "
                          "does not see)"
                        : "did not confirm it (a value there depends on inputs or was not "
                          "recorded)");
  return out;
}

}  // namespace weft::driver
