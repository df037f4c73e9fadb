#include "weft/driver/native_report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "weft/driver/bug_parts.hpp"
#include "weft/driver/report.hpp"
#include "weft/runtime/native_protocol.hpp"
#include "weft/trace/wire.hpp"

namespace weft::driver {
namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string steps_text(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " step" : " steps");
}

// describe(), with addresses of global variables replaced by their names.
std::string operation_text(const Operation& op, const ThreadRegistry& threads,
                           Symbolizer& symbols) {
  std::string s = describe(op, &threads);
  const Domain d = domain_of(op.kind);
  if (d == Domain::kNone || d == Domain::kThread || d == Domain::kProcess) return s;
  // The runtime's signals are futex operations on one word (signals.cpp): said as what they are.
  if (d == Domain::kFutex && symbols.data(op.object) == "__weft_signal_word") {
    if (op.kind == OpKind::kFutexWake && op.partner == 0) return "look for a signal to take";
    if (op.kind == OpKind::kFutexWake) return "send a signal";
    return op.kind == OpKind::kFutexWait ? "wait for a signal" : "wait for a signal (woken)";
  }
  for (ObjectKey key : {op.object, op.partner}) {
    if (!key) continue;
    const std::string name =
        key == native::kAtomicSectionKey ? std::string("(atomic section)") : symbols.data(key);
    const std::string raw = hex(key);
    if (auto at = s.find(raw); !name.empty() && at != std::string::npos)
      s.replace(at, raw.size(), name);
  }
  return s;
}

// The code and data addresses a bug's report names.
void add_addresses(const explorer::FoundBug& bug, std::vector<std::uint64_t>& code,
                   std::vector<std::uint64_t>& data) {
  code.insert(code.end(), bug.trace.sites.begin(), bug.trace.sites.end());
  for (const auto& [index, caller] : bug.trace.library_callers) code.push_back(caller);
  for (const auto& e : bug.trace.events) {
    const Domain d = domain_of(e.op.kind);
    if (d == Domain::kNone || d == Domain::kThread || d == Domain::kProcess) continue;
    data.push_back(e.op.object);
    if (e.op.partner) data.push_back(e.op.partner);
  }
  for (const auto& p : bug.trace.pending) {
    if (domain_of(p.op.kind) == Domain::kMutex || domain_of(p.op.kind) == Domain::kCond)
      data.push_back(p.op.object);
  }
  collect_addresses(bug.message, code, data);
  // Addresses the scheduler writes as 0x... (a deadlock's mutexes), which bug_message names.
  for (std::size_t at = bug.message.find("0x"); at != std::string::npos;
       at = bug.message.find("0x", at + 2))
    data.push_back(std::strtoull(bug.message.c_str() + at + 2, nullptr, 16));
}

void prepare_symbols(const explorer::FoundBug& bug, Symbolizer& symbols) {
  std::vector<std::uint64_t> code, data;
  add_addresses(bug, code, data);
  symbols.prepare(code, data);
}

// The return address into the program through which event i reached the library it ran in
// (Trace::library_callers): the innermost in the program's own code rather than in a header's
// (the std::thread constructor the program instantiated), or 0.
std::uint64_t library_caller(const Trace& trace, std::size_t i, Symbolizer& symbols) {
  std::uint64_t first = 0;
  for (const auto& [index, caller] : trace.library_callers) {
    if (index != i) continue;
    if (!first) first = caller;
    if (!is_system_file(symbols.code(caller).file)) return caller;
  }
  return first;
}

std::string location_text(const SourceLocation& loc) {
  return loc.short_text() + (loc.function.empty() ? "" : " (" + loc.function + ")");
}

// A value of `size` bytes as the signed integer it most likely is.
std::string signed_value(std::uint64_t value, std::uint32_t size) {
  if (size == 0 || size >= 8) return std::to_string(static_cast<std::int64_t>(value));
  const unsigned bits = size * 8;
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  const std::uint64_t v = value & ((sign << 1) - 1);
  return std::to_string(static_cast<std::int64_t>(v ^ sign) - static_cast<std::int64_t>(sign));
}

EventText event_text(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                     Symbolizer& symbols) {
  EventText text;
  text.operation = [&](const Operation& op) { return operation_text(op, threads, symbols); };
  // A step in a library: the program's line that called into it, then the library's function
  // ("main.cpp:31 (main), in libstdc++.so.6 (std::thread::_M_start_thread)").
  text.location = [&](std::size_t i) {
    if (i >= bug.trace.sites.size() || !bug.trace.sites[i]) return std::string();
    const SourceLocation loc = symbols.code(bug.trace.sites[i]);
    const std::uint64_t caller = library_caller(bug.trace, i, symbols);
    if (!caller) return location_text(loc);
    std::string where = location_text(symbols.code(caller));
    if (!loc.library.empty()) where += ", in " + location_text(loc);
    return where;
  };
  // x86-TSO: what a load did not see, or saw only in its own buffer.
  for (std::size_t i = 0; i < bug.trace.events.size(); ++i) {
    for (const std::size_t j : stores_still_buffered(bug.trace, i)) {
      const Event& store = bug.trace.events[j];
      const std::string at = text.location(j);
      const std::string what = "step " + std::to_string(j + 1) + (at.empty() ? "" : ", " + at);
      text.marks[i + 1].push_back(
          store.thread == bug.trace.events[i].thread
              ? "^ reads its own store (" + what + "), still in its store buffer"
              : "^ does not see the store of thread " + threads.name(store.thread) + " (" + what +
                    "): it is still in that thread's store buffer");
    }
  }
  // RC11: a step that took a store older than its location's newest (Trace::OlderStore).
  const auto store_text = [&](std::uint32_t j) {
    if (j == Trace::OlderStore::kFirstValue || j >= bug.trace.events.size())
      return std::string("the value it started with");
    const std::string at = text.location(j);
    return "thread " + threads.name(bug.trace.events[j].thread) + "'s store (step " +
           std::to_string(j + 1) + (at.empty() ? "" : ", " + at) + ")";
  };
  for (const Trace::OlderStore& older : bug.trace.older_stores) {
    if (older.step >= bug.trace.events.size()) continue;
    const Operation& op = bug.trace.events[older.step].op;
    const std::string newest = store_text(older.newest_step);
    if (op.kind == OpKind::kAtomicStore) {
      text.marks[older.step + 1].push_back("^ comes before " + newest +
                                           " in coherence order, right after " +
                                           store_text(older.store_step));
      continue;
    }
    text.marks[older.step + 1].push_back("^ reads " + signed_value(older.value, op.size) +
                                         " from " + store_text(older.store_step) +
                                         ", not from the newest, " + newest +
                                         ": RC11 lets it read a store it has not seen overwritten");
  }
  return text;
}

// A raw message in the program's words: addresses the scheduler writes as 0x... (a deadlock's
// mutexes) become variable names, and {pc:}/{data:} marks are resolved.
std::string named_text(const std::string& raw, Symbolizer& symbols) {
  std::string m;
  for (std::size_t i = 0; i < raw.size();) {
    if (raw.compare(i, 2, "0x") == 0) {
      std::size_t end = i + 2;
      while (end < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[end]))) ++end;
      const std::uint64_t address = std::strtoull(raw.c_str() + i + 2, nullptr, 16);
      const std::string name = end > i + 2 ? symbols.data(address) : "";
      m += name.empty() ? raw.substr(i, end - i) : name;
      i = end;
    } else {
      m += raw[i++];
    }
  }
  // A wait for a signal is a futex wait on the runtime's word (signals.cpp): said as what it is.
  const std::string signal_wait = "waits on futex word __weft_signal_word";
  for (std::size_t at = m.find(signal_wait); at != std::string::npos;
       at = m.find(signal_wait, at)) {
    m.replace(at, signal_wait.size(), "waits for a signal");
    const std::string no_wake = "; no thread will wake it";
    if (const std::size_t tail = m.find(no_wake, at); tail != std::string::npos)
      m.replace(tail, no_wake.size(), "; no thread will send one");
  }
  return symbols.render(m);
}

// {file, line, function} of a code address, or null when the address is unknown.
nlohmann::json location_json(std::uint64_t site, Symbolizer& symbols) {
  if (!site) return nullptr;
  const SourceLocation loc = symbols.code(site);
  if (loc.file.empty()) return nullptr;
  return {{"file", loc.file}, {"line", loc.line}, {"function", loc.function}};
}

// The thread a thread bug happened in (the failure recorded with the bug's message and step),
// or the execution's failing thread for a deadlock or livelock.
ThreadId bug_thread(const explorer::FoundBug& bug) {
  for (const Failure& f : bug.trace.failures)
    if (f.outcome == bug.outcome && f.step == bug.step && f.message == bug.message) return f.thread;
  return is_whole_execution_bug(bug.outcome) ? bug.trace.failing_thread : kNoThread;
}

// The threads of the bug's execution in the order they first appear: in its steps (running or
// being created), among the threads still pending, then those the bug names.
std::vector<std::string> threads_of(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                                    const std::vector<RaceAccess>& accesses) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  };
  for (const Event& e : bug.trace.events) {
    add(threads.name(e.thread));
    if (e.op.kind == OpKind::kThreadCreate) add(threads.name(static_cast<ThreadId>(e.op.object)));
  }
  for (const auto& p : bug.trace.pending) add(threads.name(p.thread));
  if (const ThreadId t = bug_thread(bug); t != kNoThread) add(threads.name(t));
  for (const auto& a : accesses) add(a.thread);
  return names;
}

}  // namespace

void prepare_symbols(const std::vector<explorer::FoundBug>& bugs, Symbolizer& symbols) {
  std::vector<std::uint64_t> code, data;
  for (const auto& bug : bugs) add_addresses(bug, code, data);
  symbols.prepare(code, data);
}

std::string replay_with_hint(const std::string& replay_command) {
  return replay_command + "   (add --gdb to stop in gdb at the bug)";
}

std::string bug_message(const explorer::FoundBug& bug, Symbolizer& symbols) {
  return named_text(bug.message, symbols);
}

std::string format_native_bug(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                              Symbolizer& symbols, const std::string& replay_command) {
  prepare_symbols(bug, symbols);
  std::string out = "BUG: " + std::string(outcome_name(bug.outcome)) + "\n  " +
                    bug_message(bug, symbols) + "\n\n";
  out += "Interleaving (" + steps_text(bug.trace.events.size()) +
         "; each thread in its own column):\n";
  out += format_interleaving(bug.trace, threads, event_text(bug, threads, symbols));
  if (!bug.trace.symbolic.inputs.empty()) out += "\nInputs:\n" + format_inputs(bug.trace, threads);
  out += "\nSchedule: " +
         encode_test(bug.schedule, bug.trace.symbolic.values(), threads, bug.trace.choices) + "\n";
  if (!replay_command.empty()) out += "Replay:   " + replay_command + "\n";
  return out;
}

std::string format_native_bugs(const std::vector<const explorer::FoundBug*>& bugs,
                               std::size_t first_number, const ThreadRegistry& threads,
                               Symbolizer& symbols, const std::string& replay_command) {
  if (bugs.empty()) return "";
  if (bugs.size() == 1) return format_native_bug(*bugs[0], threads, symbols, replay_command);
  // The longest trace is the whole execution: the others were cut at their bug.
  const explorer::FoundBug* whole = bugs[0];
  for (const auto* b : bugs) {
    prepare_symbols(*b, symbols);
    if (b->trace.events.size() > whole->trace.events.size() ||
        (b->trace.events.size() == whole->trace.events.size() && !b->trace.pending.empty()))
      whole = b;
  }
  std::string out;
  EventText text = event_text(*whole, threads, symbols);
  std::map<std::size_t, std::string> at_step;        // "bug 1 (data race), bug 2 (...)"
  std::map<std::string, std::string> with_schedule;  // schedule -> "1, 2"
  std::vector<std::string> schedule_order;
  for (std::size_t k = 0; k < bugs.size(); ++k) {
    const std::string number = std::to_string(first_number + k);
    const std::string kind = outcome_name(bugs[k]->outcome);
    out += "BUG " + number + ": " + kind + "\n  " + bug_message(*bugs[k], symbols) + "\n";
    std::string& here = at_step[std::min(bugs[k]->step, whole->trace.events.size())];
    here += (here.empty() ? "" : ", ") + ("bug " + number + " (" + kind + ")");
    const std::string schedule = encode_test(bugs[k]->schedule, bugs[k]->trace.symbolic.values(),
                                             threads, bugs[k]->trace.choices);
    std::string& numbers = with_schedule[schedule];
    if (numbers.empty()) schedule_order.push_back(schedule);
    numbers += (numbers.empty() ? "" : ", ") + number;
  }
  for (const auto& [step, which] : at_step) text.marks[step].push_back("^^^ " + which + " here");
  out += "\nInterleaving of these " + std::to_string(bugs.size()) + " bugs (one execution, " +
         steps_text(whole->trace.events.size()) + "; each thread in its own column):\n";
  out += format_interleaving(whole->trace, threads, text);
  out += "\n";
  for (const auto& schedule : schedule_order) {
    const std::string& numbers = with_schedule[schedule];
    out += "Schedule of bug" + std::string(numbers.find(',') == std::string::npos ? " " : "s ") +
           numbers + ": " + schedule + "\n";
  }
  if (!replay_command.empty()) out += "Replay:   " + replay_command + "\n";
  return out;
}

nlohmann::json native_bug_json(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                               Symbolizer& symbols, const std::string& replay_command) {
  prepare_symbols(bug, symbols);
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t i = 0; i < bug.trace.events.size(); ++i) {
    const Event& e = bug.trace.events[i];
    nlohmann::json step = {{"step", i + 1},
                           {"thread", threads.name(e.thread)},
                           {"operation", operation_text(e.op, threads, symbols)}};
    if (i < bug.trace.sites.size() && bug.trace.sites[i]) {
      // A step in a library: where the program called into it, and the library's function.
      const SourceLocation site = symbols.code(bug.trace.sites[i]);
      const std::uint64_t caller = library_caller(bug.trace, i, symbols);
      const SourceLocation loc = caller ? symbols.code(caller) : site;
      step["file"] = loc.file;
      step["line"] = loc.line;
      step["function"] = loc.function;
      if (!site.library.empty()) {
        step["library"] = site.library;
        step["library_function"] = site.function;
      }
    }
    steps.push_back(std::move(step));
  }
  nlohmann::json pending = nlohmann::json::array();
  for (const auto& p : bug.trace.pending)
    pending.push_back({{"thread", threads.name(p.thread)},
                       {"operation", operation_text(p.op, threads, symbols)},
                       {"blocked", !p.enabled}});
  // Each thread a deadlock or livelock leaves stuck, as the message says it: where its blocked
  // operation is, or (a spinning thread, whose loop is no operation) where it last was.
  const std::vector<ThreadWait> waits =
      is_whole_execution_bug(bug.outcome) ? thread_waits(bug.message) : std::vector<ThreadWait>{};
  nlohmann::json stuck = nlohmann::json::array();
  for (const auto& w : waits) {
    nlohmann::json entry = {{"thread", w.thread}, {"waits", named_text(w.text, symbols)}};
    for (const auto& p : bug.trace.pending)
      if (threads.name(p.thread) == w.thread)
        entry["operation"] = operation_text(p.op, threads, symbols);
    nlohmann::json where = location_json(w.site, symbols);
    for (std::size_t i = bug.trace.events.size(); where.is_null() && i-- > 0;)
      if (threads.name(bug.trace.events[i].thread) == w.thread && i < bug.trace.sites.size())
        where = location_json(bug.trace.sites[i], symbols);
    if (!where.is_null()) entry.update(where);
    stuck.push_back(std::move(entry));
  }
  // Where the bug happened: the first stuck thread's place (a livelock's spinner comes first),
  // the place an assertion states, else the first instruction the message names (a race's first
  // access, a crash's or memory error's instruction).
  const std::vector<RaceAccess> accesses =
      bug.outcome == Outcome::kDataRace ? race_accesses(bug.message) : std::vector<RaceAccess>{};
  nlohmann::json race = nlohmann::json::array();
  for (const auto& a : accesses) {
    nlohmann::json entry = {{"thread", a.thread}, {"access", a.access}};
    if (auto where = location_json(a.site, symbols); !where.is_null()) entry.update(where);
    race.push_back(std::move(entry));
  }
  nlohmann::json location = nullptr;
  if (!stuck.empty() && stuck[0].contains("file"))
    location = {
        {"file", stuck[0]["file"]}, {"line", stuck[0]["line"]}, {"function", stuck[0]["function"]}};
  if (location.is_null() && bug.outcome == Outcome::kAssertionFailure)
    if (auto place = assertion_place(bug.message))
      location = {{"file", place->file}, {"line", place->line}, {"function", place->function}};
  if (location.is_null())
    if (auto site = first_code_mark(bug.message)) location = location_json(*site, symbols);
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputRead& in : bug.trace.symbolic.inputs) {
    const std::uint64_t bits = symbolic::truncate(in.value, in.width);
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(bits));
    nlohmann::json value = {{"name", in.name},           {"thread", threads.name(in.key.thread)},
                            {"ordinal", in.key.ordinal}, {"bits", in.width},
                            {"signed", in.is_signed},    {"hex", hex}};
    if (in.is_signed)
      value["value"] = symbolic::sign_extend(bits, in.width);
    else
      value["value"] = bits;
    inputs.push_back(std::move(value));
  }
  nlohmann::json j = {
      {"kind", outcome_name(bug.outcome)},
      {"message", bug_message(bug, symbols)},
      {"schedule",
       encode_test(bug.schedule, bug.trace.symbolic.values(), threads, bug.trace.choices)},
      {"inputs", std::move(inputs)},
      {"follows_inputs", bug.trace.symbolic.tracked},
      {"interleaving", std::move(steps)},
      {"pending", std::move(pending)},
      {"bug_step", bug.step + 1},
      {"threads", threads_of(bug, threads, accesses)},
      {"report", format_native_bug(
                     bug, threads, symbols,
                     replay_command.empty() ? std::string() : replay_with_hint(replay_command))}};
  if (const ThreadId t = bug_thread(bug); t != kNoThread) j["thread"] = threads.name(t);
  if (!location.is_null()) j["location"] = std::move(location);
  if (!accesses.empty()) j["accesses"] = std::move(race);
  if (!stuck.empty()) j["stuck"] = std::move(stuck);
  if (!replay_command.empty()) j["replay_command"] = replay_command;
  return j;
}

nlohmann::json statistics_json(const explorer::Statistics& s, std::uint64_t program_peak_kib) {
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  nlohmann::json j = {{"executions", s.executions},
                      {"complete", s.complete},
                      {"sleep_blocked", s.sleep_blocked},
                      {"spin_blocked", s.spin_blocked},
                      {"bound_reached", s.bound_reached},
                      {"timeouts", s.timeouts},
                      {"bugs", s.bugs},
                      {"diverged", s.diverged},
                      {"events", s.events},
                      {"longest_execution", s.longest_execution},
                      {"modelled", s.modelled},
                      {"seconds", s.seconds},
                      {"executions_per_second", s.executions_per_second()},
                      {"weft_peak_rss_kib", self.ru_maxrss},
                      {"program_peak_rss_kib", program_peak_kib}};
  if (s.traces_counted) j["traces"] = s.traces;  // only with --count-traces
  if (s.estimate) {
    // Infinity is no JSON number: an error not yet known is null.
    const double error = s.estimate->relative_error();
    j["estimate"] = {{"walks", s.estimate->walks()},
                     {"executions", s.estimate->executions()},
                     {"relative_error", std::isfinite(error) ? nlohmann::json(error) : nullptr}};
  }
  const explorer::InputStatistics& in = s.inputs;
  j["inputs"] = {{"executions_with_inputs", in.executions_with_inputs},
                 {"branch_sides_flipped", in.flips},
                 {"infeasible", in.infeasible},
                 {"solver_unknown", in.solver_unknown},
                 {"divergences", in.divergences},
                 {"concretisations", in.concretisations},
                 {"unconstrained_concretisations", in.unconstrained_concretisations},
                 {"solver_queries", in.solver_queries},
                 {"solver_calls", in.solver_calls},
                 {"cache_hits", in.cache_hits},
                 {"solver_seconds", in.solver_seconds}};
  if (const auto& m = s.state_matching)
    j["state_matching"] = {{"states", m->states}, {"cut_offs", m->cut_offs}};
  if (const auto& u = s.unfolding) {
    nlohmann::json growth = nlohmann::json::array();
    for (const auto& g : u->growth)
      growth.push_back({{"tests", g.tests},
                        {"events", g.events},
                        {"conditions", g.conditions},
                        {"bytes", g.bytes},
                        {"co_checks", g.co_checks},
                        {"extension_seconds", g.extension_seconds}});
    j["unfolding"] = {{"events", u->events},
                      {"conditions", u->conditions},
                      {"possible_extensions", u->extensions},
                      {"co_checks", u->co_checks},
                      {"most_targets_in_one_test", u->targets_per_test_max},
                      {"infeasible_targets", u->infeasible},
                      {"extension_seconds", u->extension_seconds},
                      {"bytes", u->bytes},
                      {"deadlock_candidates", u->deadlock_candidates},
                      {"deadlock_seconds", u->deadlock_seconds},
                      {"deadlock_solver_calls", u->deadlock_solver_calls},
                      {"restarts", u->restarts},
                      {"growth", std::move(growth)}};
  }
  return j;
}

}  // namespace weft::driver
