#include "weft/trace/wire.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>

#include "weft/trace/one_line.hpp"

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
  return "'" + one_line(s.substr(0, kShown), SIZE_MAX) + (s.size() > kShown ? "'..." : "'");
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

ThreadId parse_thread(std::string_view s, ThreadRegistry& threads) {
  auto id = threads.intern(s);
  if (!id) throw WireError(quoted(s) + " is not a thread name (like 0 or 0.1)");
  return *id;
}

// Messages may contain any byte; escape the separators this format uses.
// Thread operations name their thread by its creation path: thread ids differ between processes.
// An event: "thread@op".
// Key=value fields separated by '|', after a one-letter record tag.
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
                        const ThreadRegistry& threads, std::span<const std::uint32_t> choices) {
  std::string out = encode_schedule(schedule, threads);
  if (!inputs.empty()) out += ";i=" + encode_inputs(inputs, threads);
  std::string options;
  for (std::size_t k = 0; k < choices.size() && k < schedule.size(); ++k)
    if (choices[k] != 0)
      options +=
          (options.empty() ? "" : ",") + std::to_string(k) + "." + std::to_string(choices[k]);
  if (!options.empty()) out += ";c=" + options;
  return out;
}

namespace {

std::vector<std::uint32_t> decode_choices(std::string_view text, std::size_t steps) {
  std::vector<std::uint32_t> out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part = text.substr(start, comma - start);
    const auto dot = part.find('.');
    if (dot == std::string_view::npos)
      throw WireError("an option is step.option (got " + quoted(part) + ")");
    const std::uint64_t step = parse_number(part.substr(0, dot), "option step");
    const std::uint64_t option = parse_number(part.substr(dot + 1), "option");
    if (step >= steps || option > UINT32_MAX)
      throw WireError("option " + quoted(part) + " is out of range");
    if (out.size() <= step) out.resize(step + 1, 0);
    out[step] = static_cast<std::uint32_t>(option);
    start = comma + 1;
  }
  return out;
}

}  // namespace

EncodedTest decode_test(std::string_view text, ThreadRegistry& threads) {
  EncodedTest test;
  std::size_t at = text.find(';');
  test.schedule = decode_schedule(text.substr(0, at), threads);
  while (at != std::string_view::npos) {
    const std::size_t next = text.find(';', at + 1);
    const std::string_view part =
        text.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
    at = next;
    if (part.substr(0, 2) == "i=")
      test.inputs = decode_inputs(part.substr(2), threads);
    else if (part.substr(0, 2) == "c=")
      test.choices = decode_choices(part.substr(2), test.schedule.size());
    else
      throw WireError(
          "after the schedule come ';i=' and the input values, or ';c=' and the "
          "options (got " +
          quoted(part.substr(0, 12)) + ")");
  }
  return test;
}

// ---- directives ---------------------------------------------------------------------------

}  // namespace weft
