#include "weft/driver/bug_parts.hpp"

#include <cstdint>
#include <cstdlib>

namespace weft::driver {
namespace {

constexpr std::string_view kCodeMark = "{pc:";

// The address of the {pc:HEX} mark starting at `at` (0 if it is not one).
std::uint64_t mark_address(const std::string& raw, std::size_t at) {
  if (raw.compare(at, kCodeMark.size(), kCodeMark) != 0) return 0;
  return std::strtoull(raw.c_str() + at + kCodeMark.size(), nullptr, 16);
}

// The first {pc:} mark in raw[from, to), or 0.
std::uint64_t code_mark_in(const std::string& raw, std::size_t from, std::size_t to) {
  const std::size_t at = raw.find(kCodeMark, from);
  return at != std::string::npos && at < to ? mark_address(raw, at) : 0;
}

}  // namespace

std::optional<std::uint64_t> first_code_mark(const std::string& raw) {
  const std::size_t at = raw.find(kCodeMark);
  if (at == std::string::npos) return std::nullopt;
  return mark_address(raw, at);
}

std::string without_code_places(std::string raw) {
  const std::string place = " at " + std::string(kCodeMark);
  for (std::size_t at; (at = raw.find(place)) != std::string::npos;) {
    const std::size_t close = raw.find('}', at);
    raw.erase(at, close == std::string::npos ? std::string::npos : close + 1 - at);
  }
  return raw;
}

std::optional<StatedPlace> assertion_place(const std::string& raw) {
  // "...: assertion `EXPR' failed at FILE:LINE in FUNCTION" (program_end.cpp). EXPR may hold
  // "' failed at " itself, so the last one counts.
  const std::string failed = "' failed at ";
  const std::size_t at = raw.rfind(failed);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t start = at + failed.size();
  const std::size_t in = raw.find(" in ", start);
  const std::string place =
      raw.substr(start, in == std::string::npos ? std::string::npos : in - start);
  const std::size_t colon = place.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  char* end = nullptr;
  const unsigned long line = std::strtoul(place.c_str() + colon + 1, &end, 10);
  if (line == 0 || line > UINT32_MAX || *end != '\0') return std::nullopt;
  StatedPlace p;
  p.file = place.substr(0, colon);
  p.line = static_cast<std::uint32_t>(line);
  if (in != std::string::npos) p.function = raw.substr(in + 4);
  return p;
}

std::vector<RaceAccess> race_accesses(const std::string& raw) {
  // "data race on MEMORY: ACCESS by thread T[ at {pc:X}] and ACCESS by thread U[ at {pc:Y}]".
  // MEMORY may itself hold " by thread " (a heap block's "allocated at {pc:..} by thread 0"), so
  // the accesses are read from the end: the last " and " that is followed by an access clause
  // separates the two, and the first clause starts after the last ": " before that.
  std::vector<RaceAccess> out;
  if (!raw.starts_with("data race on ")) return out;
  const auto clause = [](const std::string& text) -> std::optional<RaceAccess> {
    const std::string by = " by thread ";
    const std::size_t at = text.rfind(by);
    if (at == std::string::npos || at == 0) return std::nullopt;
    RaceAccess a;
    a.access = text.substr(0, at);
    std::string rest = text.substr(at + by.size());
    const std::size_t space = rest.find(' ');
    a.thread = rest.substr(0, space);
    if (space != std::string::npos) {
      const std::size_t mark = rest.find(kCodeMark, space);
      if (mark != std::string::npos) a.site = mark_address(rest, mark);
    }
    const bool known_access = a.access.starts_with("read") || a.access.starts_with("write") ||
                              a.access.starts_with("atomic ") || a.access == "free";
    if (a.thread.empty() || !known_access) return std::nullopt;
    return a;
  };
  for (std::size_t and_at = raw.rfind(" and "); and_at != std::string::npos && and_at > 0;
       and_at = raw.rfind(" and ", and_at - 1)) {
    const auto second = clause(raw.substr(and_at + 5));
    const std::size_t colon = raw.rfind(": ", and_at);
    if (!second || colon == std::string::npos) continue;
    const auto first = clause(raw.substr(colon + 2, and_at - colon - 2));
    if (!first) continue;
    out = {*first, *second};
    break;
  }
  return out;
}

std::vector<ThreadWait> thread_waits(const std::string& raw) {
  // "deadlock: thread 0 waits ...; thread 0.1 waits ..., held by thread 0.0; no thread will...":
  // a clause starts with "thread " right after ": " or "; ". (A clause's own "; no thread will
  // signal it" starts with "no", so it stays in its clause.)
  std::vector<std::size_t> starts;
  for (std::size_t at = raw.find("thread "); at != std::string::npos;
       at = raw.find("thread ", at + 1))
    if (at >= 2 && (raw.compare(at - 2, 2, ": ") == 0 || raw.compare(at - 2, 2, "; ") == 0))
      starts.push_back(at);
  std::vector<ThreadWait> out;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::size_t end = k + 1 < starts.size() ? starts[k + 1] - 2 : raw.size();
    ThreadWait w;
    w.text = raw.substr(starts[k], end - starts[k]);
    const std::size_t name_at = std::string("thread ").size();
    w.thread = w.text.substr(name_at, w.text.find(' ', name_at) - name_at);
    w.site = code_mark_in(raw, starts[k], end);
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace weft::driver
