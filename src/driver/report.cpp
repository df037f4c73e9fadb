#include "weft/driver/report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "weft/trace/wire.hpp"

namespace weft::driver {
namespace {

// "[name]", padded with spaces to `width`. (Built by appending: GCC 12 at -O3 warns falsely,
// -Wrestrict, about `"[" + name + "]"`.)
std::string thread_label(const std::string& name, std::size_t width) {
  std::string label(1, '[');
  label.append(name).push_back(']');
  label.resize(width, ' ');
  return label;
}

}  // namespace

std::string format_interleaving(const Trace& trace, const ThreadRegistry& threads,
                                const EventText& text) {
  const auto op_text = [&](const Operation& op) {
    return text.operation ? text.operation(op) : describe(op, &threads);
  };
  // Columns in order of first appearance.
  std::map<ThreadId, std::size_t> column;
  for (const auto& e : trace.events) column.emplace(e.thread, column.size());
  for (const auto& p : trace.pending) column.emplace(p.thread, column.size());
  std::size_t name_width = 6;
  // "[name]" and a space before the operation.
  for (const auto& [t, c] : column) name_width = std::max(name_width, threads.name(t).size() + 3);

  // Lines without the location, then the location column aligned after the longest.
  std::vector<std::string> lines;
  char buf[64];
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    std::snprintf(buf, sizeof buf, "  %4zu  ", i + 1);
    std::string line = buf + std::string(column[e.thread] * 4, ' ');
    lines.push_back(line + thread_label(threads.name(e.thread), name_width) + op_text(e.op));
  }
  std::size_t width = 0;
  for (const auto& l : lines) width = std::max(width, l.size());
  std::string out;
  const std::string mark_indent(8, ' ');
  const auto add_marks = [&](std::size_t after) {
    if (auto m = text.marks.find(after); m != text.marks.end())
      for (const auto& line : m->second) out += mark_indent + line + "\n";
  };
  add_marks(0);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (text.location) {
      const std::string where = text.location(i);
      if (!where.empty()) out += std::string(width + 2 - lines[i].size(), ' ') + where;
    }
    out += "\n";
    add_marks(i + 1);
  }
  for (const auto& p : trace.pending) {
    out += "        ";
    out += std::string(column[p.thread] * 4, ' ');
    out += thread_label(threads.name(p.thread), name_width);
    out += p.enabled ? "next: " : "blocked in: ";
    out += op_text(p.op) + "\n";
  }
  return out;
}

std::string format_bug(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                       const std::string& schedule, const std::string& replay_hint) {
  std::string out = "bug (" + std::string(outcome_name(bug.outcome)) + "): " + bug.message + "\n";
  out += "interleaving (" + std::to_string(bug.trace.events.size()) + " steps):\n";
  out += format_interleaving(bug.trace, threads);
  if (!bug.trace.symbolic.inputs.empty()) out += "inputs:\n" + format_inputs(bug.trace, threads);
  out += "schedule: " + schedule + "\n";
  if (!replay_hint.empty()) out += "replay: " + replay_hint + "\n";
  return out;
}

std::string format_inputs(const Trace& trace, const ThreadRegistry& threads) {
  std::string out;
  for (const InputRead& in : trace.symbolic.inputs) {
    const std::uint64_t bits = symbolic::truncate(in.value, in.width);
    char value[96];
    if (in.is_signed)
      std::snprintf(value, sizeof value, "%lld (0x%llx)",
                    static_cast<long long>(symbolic::sign_extend(bits, in.width)),
                    static_cast<unsigned long long>(bits));
    else
      std::snprintf(value, sizeof value, "%llu (0x%llx)", static_cast<unsigned long long>(bits),
                    static_cast<unsigned long long>(bits));
    out += "  " + (in.name.empty() ? std::string("input") : in.name) + " = " + value +
           "   [thread " + threads.name(in.key.thread) + ", input " +
           std::to_string(in.key.ordinal) + ", " + (in.is_signed ? "int" : "uint") +
           std::to_string(in.width) + "]\n";
  }
  return out;
}

namespace {

// "1 value was", "3 values were".
std::string counted(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string describe_input_gaps(const explorer::InputStatistics& in) {
  std::vector<std::string> parts;
  if (in.solver_unknown)
    parts.push_back(counted(in.solver_unknown, "branch side", "branch sides") +
                    " the solver could not decide in time");
  if (in.divergences)
    parts.push_back(counted(in.divergences, "test", "tests") +
                    " left the path solved for (it depends on a value made concrete)");
  if (in.concretisations)
    parts.push_back(
        counted(in.concretisations, "value computed from inputs was",
                "values computed from inputs were") +
        " made concrete with a constraint (a pointer, a divisor, a shift, a conversion to "
        "floating point, an argument of code weft did not compile), so other values were not "
        "explored" +
        (in.first_concretisation_site ? "; the first at " + code_mark(in.first_concretisation_site)
                                      : std::string()));
  if (in.unconstrained_concretisations)
    parts.push_back(counted(in.unconstrained_concretisations, "value", "values") +
                    " weft cannot follow (floating point, bytes read by a C library function "
                    "weft has no model of) kept the value it had");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

std::string group_digits(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_progress(const explorer::Statistics& s, double time_limit) {
  char times[80];
  if (time_limit > 0)
    std::snprintf(times, sizeof times, "%.1f s elapsed, %.1f s left", s.seconds,
                  std::max(0.0, time_limit - s.seconds));
  else
    std::snprintf(times, sizeof times, "%.1f s elapsed", s.seconds);
  std::string line = "weft: ";
  line += group_digits(s.executions);
  line += " executions";
  // With an estimate: how many the search has to run in all, and how long that takes at the
  // rate so far (the walks are not the search's; the search has run at least what it ran).
  if (s.estimate && s.estimate->executions() > 0 && s.executions > 0) {
    const double search = static_cast<double>(s.executions - s.estimate->walks());
    const double total = std::max(s.estimate->executions(), search);
    line += " of ~" + explorer::approximate_count(total) + " estimated (~" +
            explorer::approximate_duration((total - search) * s.seconds /
                                           static_cast<double>(s.executions)) +
            " to go)";
  }
  line += ", ";
  line += group_digits(static_cast<std::uint64_t>(s.executions_per_second()));
  line += "/s, ";
  line += group_digits(s.bugs);
  line += s.bugs == 1 ? " bug, " : " bugs, ";
  line += "longest execution ";
  line += group_digits(s.longest_execution);
  line += " steps, ";
  line += times;
  return line;
}

std::string format_statistics(const explorer::Statistics& s) {
  char spin[128] = "";
  if (s.spin_blocked)  // only programs with busy-wait loops have them
    std::snprintf(spin, sizeof spin, ", %llu spin blocked",
                  static_cast<unsigned long long>(s.spin_blocked));
  if (s.estimate)  // the estimate's walks are executions too (size_estimate.hpp)
    std::snprintf(spin + std::strlen(spin), sizeof spin - std::strlen(spin),
                  ", %llu random walks of the estimate",
                  static_cast<unsigned long long>(s.estimate->walks()));
  char traces[64] = "";
  if (s.traces_counted)
    std::snprintf(traces, sizeof traces, "%llu distinct traces, ",
                  static_cast<unsigned long long>(s.traces));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%llu executions (%llu complete, %llu sleep-set blocked%s, %llu bound reached), "
                "%s%llu events, %.3f s, %.0f executions/s",
                static_cast<unsigned long long>(s.executions),
                static_cast<unsigned long long>(s.complete),
                static_cast<unsigned long long>(s.sleep_blocked), spin,
                static_cast<unsigned long long>(s.bound_reached), traces,
                static_cast<unsigned long long>(s.events), s.seconds, s.executions_per_second());
  std::string line = buf;
  if (const auto& u = s.unfolding) {
    std::snprintf(buf, sizeof buf,
                  "; unfolding: %llu events, %llu conditions, %llu possible extensions (%.3f s, "
                  "%.1f MiB)",
                  static_cast<unsigned long long>(u->events),
                  static_cast<unsigned long long>(u->conditions),
                  static_cast<unsigned long long>(u->extensions), u->extension_seconds,
                  static_cast<double>(u->bytes) / (1 << 20));
    line += buf;
    if (u->restarts)
      line += "; started over " + std::to_string(u->restarts) +
              " times for threads the copies did not include";
  }
  if (const auto& m = s.state_matching)
    line += "; states: " + group_digits(m->states) + " explored, " + group_digits(m->cut_offs) +
            " cut-offs (reached again)";
  const explorer::InputStatistics& in = s.inputs;
  if (in.executions_with_inputs == 0) return line;
  std::snprintf(
      buf, sizeof buf,
      "; inputs: %llu branch sides flipped, %llu infeasible, %llu unknown, %llu "
      "divergent, %llu concretised; solver: %llu queries (%llu from the cache), %.3f s",
      static_cast<unsigned long long>(in.flips), static_cast<unsigned long long>(in.infeasible),
      static_cast<unsigned long long>(in.solver_unknown),
      static_cast<unsigned long long>(in.divergences),
      static_cast<unsigned long long>(in.concretisations + in.unconstrained_concretisations),
      static_cast<unsigned long long>(in.solver_queries),
      static_cast<unsigned long long>(in.cache_hits), in.solver_seconds);
  return line + buf;
}

}  // namespace weft::driver
