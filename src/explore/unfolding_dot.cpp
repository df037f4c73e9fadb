#include "weft/explore/unfolding_dot.hpp"

#include <cstdio>
#include <unordered_map>

namespace weft::explorer {

namespace {

// A label safe inside dot's double quotes.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch == '\n' ? ' ' : ch;
  }
  return out + "\"";
}

const char* kind_text(ConditionKind kind) {
  switch (kind) {
    case ConditionKind::kThread:
      return "thread";
    case ConditionKind::kMemory:
      return "memory";
    case ConditionKind::kMutex:
      return "free";
    case ConditionKind::kMutexHeld:
      return "held";
    case ConditionKind::kCond:
      return "cond";
    case ConditionKind::kSemaphore:
      return "sem";
    case ConditionKind::kFutex:
      return "futex";
    case ConditionKind::kMemoryCopy:
      return "copy";
    case ConditionKind::kChannel:
      return "channel";
    case ConditionKind::kCondWaiting:
      return "cond waiting";
    case ConditionKind::kCondSignals:
      return "cond signals";
    case ConditionKind::kCondCopy:
      return "cond copy";
    case ConditionKind::kCondWaitingCopy:
      return "cond waiting copy";
  }
  return "?";
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string unfolding_dot(const Unfolding& u, const std::vector<std::uint64_t>& sites,
                          const UnfoldingNames& names) {
  std::string out =
      "digraph unfolding {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  const auto name_of = [&](ObjectKey address) {
    const std::string name = names.object ? names.object(address) : "";
    return name.empty() ? hex(address) : name;
  };
  for (ConditionIndex c = 0; c < u.conditions(); ++c) {
    const Condition& cond = u.condition(c);
    std::string label;
    if (cond.kind == ConditionKind::kThread) {
      label = names.thread(static_cast<ThreadId>(cond.key));
    } else {
      const bool copy = is_copy(cond.kind);
      const ObjectKey address = copy ? place_of_copy(cond.key) : cond.key;  // an object's
      label = std::string(kind_text(cond.kind)) + " " + name_of(address);
      if (copy) label += " of " + names.thread(holder_of_copy(cond.key));
      if (cond.count) label += " (" + std::to_string(cond.count) + ")";  // waiters, signals
    }
    out += "  c" + std::to_string(c) +
           (cond.kind == ConditionKind::kThread ? " [shape=circle, label="
                                                : " [shape=ellipse, label=") +
           quoted(label) +
           (cond.kind == ConditionKind::kThread ? ", style=filled, fillcolor=\"#dde8f5\"" : "") +
           "];\n";
  }
  for (EventIndex e = 0; e < u.events(); ++e) {
    const UnfoldingEvent& ev = u.event(e);
    std::string label = names.thread(ev.thread) + ": " + describe(ev.op);
    if (domain_of(ev.op.kind) != Domain::kThread && names.object) {
      const std::string name = names.object(ev.op.object);
      if (!name.empty()) label += " (" + name + ")";
    }
    const std::uint64_t site = e < sites.size() ? sites[e] : 0;
    if (site && names.site) {
      const std::string where = names.site(site);
      if (!where.empty()) label += "\n" + where;
    }
    out += "  e" + std::to_string(e) + " [shape=box, label=" + quoted(label) + "];\n";
    for (ConditionIndex c : ev.preset)
      out += "  c" + std::to_string(c) + " -> e" + std::to_string(e) + ";\n";
    for (ConditionIndex c : ev.context)
      out += "  c" + std::to_string(c) + " -> e" + std::to_string(e) +
             " [style=dashed, arrowhead=none];\n";
    for (ConditionIndex c : ev.postset)
      out += "  e" + std::to_string(e) + " -> c" + std::to_string(c) + ";\n";
  }
  return out + "}\n";
}

}  // namespace weft::explorer
