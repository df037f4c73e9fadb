#include "weft/trace/wire.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace weft {

std::string code_mark(std::uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "{pc:%llx}", static_cast<unsigned long long>(address));
  return text;
}

std::string data_mark(std::uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "{data:%llx}", static_cast<unsigned long long>(address));
  return text;
}

namespace {

// ---- small text helpers -------------------------------------------------------------------

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

// Input text quoted in an error message: cut short and with control characters escaped, so that
// the message stays one short line whatever the input holds.
std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + (s.size() > kShown ? "'..." : "'");
}

std::uint64_t parse_number(std::string_view s, const char* what, int base = 10) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec == std::errc::result_out_of_range)
    throw WireError(std::string(what) + " " + quoted(s) + " is out of range");
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw WireError(std::string("expected a ") + (base == 16 ? "hex " : "") + "number for " + what +
                    ", got " + quoted(s));
  return v;
}

std::uint64_t parse_hex(std::string_view s, const char* what) {
  return parse_number(s, what, 16);
}

ThreadId parse_thread(std::string_view s, ThreadRegistry& threads) {
  auto id = threads.intern(s);
  if (!id) throw WireError(quoted(s) + " is not a thread name (like 0 or 0.1)");
  return *id;
}

Outcome parse_outcome(std::string_view s) {
  const auto o = parse_number(s, "outcome");
  if (o > static_cast<unsigned>(Outcome::kSanitizerReport)) throw WireError("unknown outcome");
  return static_cast<Outcome>(o);
}

// Messages may contain any byte; escape the separators this format uses.
std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%' || c == '|' || c == '\n' || c == ';' || c == ',' || c == '/' || c == '=') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size()) throw WireError("bad escape in message");
      unsigned v = 0;
      auto [ptr, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (ec != std::errc() || ptr != s.data() + i + 3) throw WireError("bad escape in message");
      out += static_cast<char>(v);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Thread operations name their thread by its creation path: thread ids differ between processes.
std::string encode_op(const Operation& op, const ThreadRegistry& threads) {
  std::string object = std::to_string(op.object);
  if (domain_of(op.kind) == Domain::kThread) {
    object = threads.name(static_cast<ThreadId>(op.object));
    std::replace(object.begin(), object.end(), '.', '_');  // '.' separates the fields
  }
  std::string out = std::to_string(static_cast<unsigned>(op.kind)) + "." +
                    std::to_string(op.result) + "." + std::to_string(op.size) + "." + object + "." +
                    std::to_string(op.partner) + (op.timed ? ".t" : "");
  // An atomic section's footprint: "f" and its entries in hex, '-'-separated.
  if (op.footprint.known) {
    out += ".f";
    for (std::size_t i = 0; i < op.footprint.count; ++i) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "%s%llx", i ? "-" : "",
                    static_cast<unsigned long long>(op.footprint.entries[i]));
      out += buf;
    }
  }
  return out;
}

Footprint decode_footprint(std::string_view s) {
  Footprint f;
  f.known = true;
  for (auto entry : split(s, '-')) {
    if (f.count == Footprint::kCapacity)
      throw WireError("a footprint has at most " + std::to_string(Footprint::kCapacity) +
                      " entries");
    f.entries[f.count++] = parse_hex(entry, "footprint entry");
  }
  return f;
}

Operation decode_op(std::string_view s, ThreadRegistry& threads) {
  auto f = split(s, '.');
  Operation op;
  if (f.size() > 5 && !f.back().empty() && f.back()[0] == 'f') {
    op.footprint = decode_footprint(f.back().substr(1));
    f.pop_back();
  }
  if (f.size() != 5 && !(f.size() == 6 && f[5] == "t"))
    throw WireError("an operation has 5 fields (and 't' if timed, 'f...' with a footprint), got " +
                    quoted(s));
  const auto kind = parse_number(f[0], "operation kind");
  if (kind > static_cast<unsigned>(OpKind::kFree))
    throw WireError("unknown operation kind " + std::to_string(kind));
  op.kind = static_cast<OpKind>(kind);
  op.result = static_cast<std::uint8_t>(parse_number(f[1], "operation result"));
  op.size = static_cast<std::uint32_t>(parse_number(f[2], "operation size"));
  if (domain_of(op.kind) == Domain::kThread) {
    std::string name(f[3]);
    std::replace(name.begin(), name.end(), '_', '.');
    op.object = parse_thread(name, threads);
  } else {
    op.object = parse_number(f[3], "object");
  }
  op.partner = parse_number(f[4], "partner object");
  op.timed = f.size() == 6;
  return op;
}

// An event: "thread@op".
std::string encode_event(ThreadId t, const Operation& op, const ThreadRegistry& threads) {
  return threads.name(t) + "@" + encode_op(op, threads);
}

std::pair<ThreadId, Operation> decode_event(std::string_view s, ThreadRegistry& threads) {
  const auto at = s.find('@');
  if (at == std::string_view::npos) throw WireError("an event is thread@op, got " + quoted(s));
  return {parse_thread(s.substr(0, at), threads), decode_op(s.substr(at + 1), threads)};
}

std::string encode_set(const ThreadSet& set, const ThreadRegistry& threads) {
  std::string out;
  for (ThreadId t : set.members()) {
    if (!out.empty()) out += '+';
    out += threads.name(t);
  }
  return out;
}

ThreadSet decode_set(std::string_view s, ThreadRegistry& threads) {
  ThreadSet set;
  for (auto part : split(s, '+')) set.insert(parse_thread(part, threads));
  return set;
}

// Key=value fields separated by '|', after a one-letter record tag.
std::vector<std::pair<std::string_view, std::string_view>> fields(std::string_view text, char tag) {
  if (text.size() < 2 || text[0] != tag || text[1] != '|')
    throw WireError(std::string("expected a record starting with '") + tag + "|'");
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (auto part : split(text.substr(2), '|')) {
    const auto eq = part.find('=');
    if (eq == std::string_view::npos) throw WireError("field without '=': " + quoted(part));
    out.emplace_back(part.substr(0, eq), part.substr(eq + 1));
  }
  return out;
}

}  // namespace

// ---- schedules ----------------------------------------------------------------------------

std::string encode_schedule(const std::vector<ThreadId>& schedule, const ThreadRegistry& threads) {
  std::string out = "w1:";
  for (std::size_t i = 0; i < schedule.size();) {
    std::size_t j = i;
    while (j < schedule.size() && schedule[j] == schedule[i]) ++j;
    if (i) out += ',';
    out += threads.name(schedule[i]);
    if (j - i > 1) {
      out += '*';
      out += std::to_string(j - i);
    }
    i = j;
  }
  return out;
}

std::vector<ThreadId> decode_schedule(std::string_view text, ThreadRegistry& threads) {
  if (text.substr(0, 3) != "w1:")
    throw WireError("a schedule starts with 'w1:' (got " + quoted(text.substr(0, 12)) +
                    "); copy it whole from weft's report");
  std::vector<ThreadId> out;
  std::size_t index = 0;
  for (auto step : split(text.substr(3), ',')) {
    ++index;
    const std::string where = "step " + std::to_string(index) + " of the schedule";
    std::uint64_t count = 1;
    if (const auto star = step.find('*'); star != std::string_view::npos) {
      count = parse_number(step.substr(star + 1), "the repeat count");
      if (count == 0) throw WireError(where + " repeats its thread 0 times (at least 1)");
      step = step.substr(0, star);
    }
    if (count > kMaxScheduleSteps - out.size())
      throw WireError(where + " makes the schedule longer than " +
                      std::to_string(kMaxScheduleSteps) + " steps (repeat count " +
                      std::to_string(count) + ")");
    const auto t = threads.intern(step);
    if (!t) throw WireError(where + ": " + quoted(step) + " is not a thread name (like 0 or 0.1)");
    out.insert(out.end(), count, *t);
  }
  return out;
}

// ---- tests with inputs -----------------------------------------------------------------------

namespace {

std::string encode_inputs(std::span<const InputValue> inputs, const ThreadRegistry& threads) {
  std::string out;
  for (const InputValue& v : inputs) {
    if (!out.empty()) out += ',';
    out += threads.name(v.key.thread) + '#' + std::to_string(v.key.ordinal) + '=' +
           std::to_string(v.value);
  }
  return out;
}

std::vector<InputValue> decode_inputs(std::string_view text, ThreadRegistry& threads) {
  std::vector<InputValue> out;
  if (text.empty()) return out;
  for (auto part : split(text, ',')) {
    const auto hash = part.find('#'), equals = part.find('=');
    if (hash == std::string_view::npos || equals == std::string_view::npos || equals < hash)
      throw WireError("input " + quoted(part) + " is not thread#ordinal=value");
    const ThreadId t = parse_thread(part.substr(0, hash), threads);
    const auto ordinal = parse_number(part.substr(hash + 1, equals - hash - 1), "input ordinal");
    if (ordinal > UINT32_MAX)
      throw WireError("input ordinal " + std::to_string(ordinal) + " is out of range");
    out.push_back({InputKey{t, static_cast<std::uint32_t>(ordinal)},
                   parse_number(part.substr(equals + 1), "input value")});
  }
  std::sort(out.begin(), out.end(),
            [](const InputValue& a, const InputValue& b) { return a.key < b.key; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].key == out[i - 1].key)
      throw WireError("input " + threads.name(out[i].key.thread) + "#" +
                      std::to_string(out[i].key.ordinal) + " is given twice");
  return out;
}

}  // namespace

std::string encode_test(const std::vector<ThreadId>& schedule, std::span<const InputValue> inputs,
                        const ThreadRegistry& threads) {
  std::string out = encode_schedule(schedule, threads);
  if (!inputs.empty()) out += ";i=" + encode_inputs(inputs, threads);
  return out;
}

EncodedTest decode_test(std::string_view text, ThreadRegistry& threads) {
  EncodedTest test;
  const auto semicolon = text.find(';');
  test.schedule = decode_schedule(text.substr(0, semicolon), threads);
  if (semicolon == std::string_view::npos) return test;
  const std::string_view rest = text.substr(semicolon + 1);
  if (rest.substr(0, 2) != "i=")
    throw WireError("after the schedule comes ';i=' and the input values (got " +
                    quoted(rest.substr(0, 12)) + ")");
  test.inputs = decode_inputs(rest.substr(2), threads);
  return test;
}

// ---- directives ---------------------------------------------------------------------------

std::string encode_directive(const TestDirective& d, const ThreadRegistry& threads) {
  std::string out = "D|prefix=" + encode_schedule(d.prefix, threads);
  out += "|sleep_from=" + std::to_string(d.sleep_from) + "|sleep=";
  for (std::size_t i = 0; i < d.sleep.size(); ++i) {
    if (i) out += ';';
    out += encode_event(d.sleep[i].thread, d.sleep[i].op, threads);
  }
  out += "|reads=" + std::to_string(static_cast<unsigned>(d.read_policy));
  out += "|policy=" + std::to_string(static_cast<unsigned>(d.policy));
  out += "|seed=" + std::to_string(d.seed);
  if (!d.priority_changes.empty()) {
    out += "|changes=";
    for (std::size_t i = 0; i < d.priority_changes.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(d.priority_changes[i]);
    }
  }
  if (!d.inputs.empty()) out += "|inputs=" + encode_inputs(d.inputs, threads);
  if (!d.quiet_accesses.empty()) {
    out += "|quiet=";
    for (std::size_t i = 0; i < d.quiet_accesses.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(d.quiet_accesses[i]);
    }
  }
  return out;
}

TestDirective decode_directive(std::string_view text, ThreadRegistry& threads) {
  TestDirective d;
  for (auto [key, value] : fields(text, 'D')) {
    if (key == "prefix") {
      d.prefix = decode_schedule(value, threads);
    } else if (key == "sleep_from") {
      d.sleep_from = parse_number(value, "sleep_from");
    } else if (key == "sleep") {
      for (auto part : split(value, ';')) {
        auto [t, op] = decode_event(part, threads);
        d.sleep.push_back({t, op});
      }
    } else if (key == "reads") {
      d.read_policy = static_cast<ReadPolicy>(parse_number(value, "reads") & 1);
    } else if (key == "policy") {
      const std::uint64_t policy = parse_number(value, "policy");
      if (policy > kLastSchedulePolicy)
        throw WireError("directive field policy: " + std::to_string(policy) + " is no policy");
      d.policy = static_cast<SchedulePolicy>(policy);
    } else if (key == "changes") {
      for (auto part : split(value, ',')) {
        const std::uint64_t step = parse_number(part, "changes");
        if (step > 0xffffffffu)
          throw WireError("directive field changes: step " + std::to_string(step) +
                          " is too large");
        d.priority_changes.push_back(static_cast<std::uint32_t>(step));
      }
    } else if (key == "seed") {
      d.seed = parse_number(value, "seed");
    } else if (key == "inputs") {
      d.inputs = decode_inputs(value, threads);
    } else if (key == "quiet") {
      for (auto part : split(value, ',')) d.quiet_accesses.push_back(parse_number(part, "quiet"));
      if (!std::is_sorted(d.quiet_accesses.begin(), d.quiet_accesses.end()))
        throw WireError("directive field quiet: the accesses are not sorted");
    } else {
      throw WireError("unknown directive field " + quoted(key));
    }
  }
  return d;
}

// ---- traces -------------------------------------------------------------------------------

std::string encode_trace_event(const Trace& t, std::size_t i, const ThreadRegistry& threads) {
  std::string out = encode_event(t.events[i].thread, t.events[i].op, threads);
  out += "/" + encode_set(t.enabled[i], threads);
  out += (i < t.finished_thread.size() && t.finished_thread[i]) ? "/x" : "/";
  if (i < t.sites.size() && t.sites[i]) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "/%llx", static_cast<unsigned long long>(t.sites[i]));
    out += buf;
  }
  return out;
}

void decode_trace_event(std::string_view text, Trace& into, ThreadRegistry& threads) {
  const auto f = split(text, '/');
  if (f.size() != 3 && f.size() != 4)
    throw WireError("an event record is event/enabled/finished[/site]");
  auto [thread, op] = decode_event(f[0], threads);
  into.events.push_back({thread, op});
  into.enabled.push_back(decode_set(f[1], threads));
  into.finished_thread.push_back(f[2] == "x");
  into.sites.push_back(f.size() == 4 ? parse_hex(f[3], "site") : 0);
}

std::string encode_trace(const Trace& t, const ThreadRegistry& threads) {
  std::string out = "T|outcome=" + std::to_string(static_cast<unsigned>(t.outcome));
  out += "|message=" + escape(t.message);
  out += "|failing=" +
         (t.failing_thread == kNoThread ? std::string("-") : threads.name(t.failing_thread));
  out += "|followed=" + std::to_string(t.prefix_followed);
  out += "|failures=";
  for (std::size_t i = 0; i < t.failures.size(); ++i) {
    const Failure& f = t.failures[i];
    if (i) out += ';';
    out += std::to_string(static_cast<unsigned>(f.outcome)) + "/" + threads.name(f.thread) + "/" +
           std::to_string(f.step) + "/" + escape(f.message);
  }
  out += "|diverged=" + (t.diverged_at ? std::to_string(*t.diverged_at) : std::string("-"));
  out += "|events=";
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    if (i) out += ';';
    out += encode_trace_event(t, i, threads);
  }
  out += "|pending=";
  for (std::size_t i = 0; i < t.pending.size(); ++i) {
    if (i) out += ';';
    out += encode_event(t.pending[i].thread, t.pending[i].op, threads);
    out += t.pending[i].enabled ? "/e" : "/b";
  }
  return out;
}

Trace decode_trace(std::string_view text, ThreadRegistry& threads) {
  Trace t;
  for (auto [key, value] : fields(text, 'T')) {
    if (key == "outcome") {
      t.outcome = parse_outcome(value);
    } else if (key == "message") {
      t.message = unescape(value);
    } else if (key == "failing") {
      t.failing_thread = value == "-" ? kNoThread : parse_thread(value, threads);
    } else if (key == "failures") {
      for (auto part : split(value, ';')) {
        const auto f = split(part, '/');
        if (f.size() != 4) throw WireError("a failure record is outcome/thread/step/message");
        t.failures.push_back({parse_outcome(f[0]), unescape(f[3]), parse_thread(f[1], threads),
                              parse_number(f[2], "failure step")});
      }
    } else if (key == "followed") {
      t.prefix_followed = parse_number(value, "followed");
    } else if (key == "diverged") {
      if (value != "-") t.diverged_at = parse_number(value, "diverged");
    } else if (key == "events") {
      for (auto part : split(value, ';')) decode_trace_event(part, t, threads);
    } else if (key == "pending") {
      for (auto part : split(value, ';')) {
        const auto f = split(part, '/');
        if (f.size() != 2) throw WireError("a pending record is event/state");
        auto [thread, op] = decode_event(f[0], threads);
        t.pending.push_back({thread, op, f[1] == "e"});
      }
    } else {
      throw WireError("unknown trace field " + quoted(key));
    }
  }
  return t;
}

}  // namespace weft
