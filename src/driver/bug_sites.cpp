#include "weft/driver/bug_sites.hpp"

#include <algorithm>

namespace weft::driver {
namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Copies the place (file, line, function) of `from` into `site`, if it has one.
void take_place(BugSite& site, const nlohmann::json& from) {
  if (!from.is_object() || text_of(from, "file").empty()) return;
  site.file = text_of(from, "file");
  const auto line = from.find("line");
  site.line = line != from.end() && line->is_number_unsigned() ? line->get<std::uint32_t>() : 0;
  site.function = text_of(from, "function");
}

// Where `thread` stopped: its last step with a place.
void place_at_last_step(BugSite& site, const nlohmann::json& bug) {
  if (!site.file.empty()) return;
  const auto steps = bug.find("interleaving");
  if (steps == bug.end() || !steps->is_array()) return;
  for (auto it = steps->rbegin(); it != steps->rend(); ++it)
    if (text_of(*it, "thread") == site.thread && !text_of(*it, "file").empty()) {
      take_place(site, *it);
      return;
    }
}

}  // namespace

std::vector<BugSite> bug_sites(const nlohmann::json& bug) {
  std::vector<BugSite> sites;
  if (const auto accesses = bug.find("accesses"); accesses != bug.end() && accesses->is_array())
    for (const auto& a : *accesses) {
      BugSite s;
      s.thread = text_of(a, "thread");
      s.what = text_of(a, "access") + " by thread " + s.thread;
      take_place(s, a);
      sites.push_back(std::move(s));
    }
  if (const auto stuck = bug.find("stuck"); stuck != bug.end() && stuck->is_array())
    for (const auto& w : *stuck) {
      BugSite s;
      s.thread = text_of(w, "thread");
      s.what = text_of(w, "waits");
      take_place(s, w);
      sites.push_back(std::move(s));
    }
  if (sites.empty()) {
    BugSite s;
    s.thread = text_of(bug, "thread");
    s.what = text_of(bug, "message");
    if (const auto where = bug.find("location"); where != bug.end()) take_place(s, *where);
    sites.push_back(std::move(s));
  }
  for (auto& s : sites) place_at_last_step(s, bug);
  return sites;
}

std::vector<std::string> bug_threads(const nlohmann::json& bug) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  };
  if (const auto threads = bug.find("threads"); threads != bug.end() && threads->is_array())
    for (const auto& t : *threads)
      if (t.is_string()) add(t.get<std::string>());
  if (const auto steps = bug.find("interleaving"); steps != bug.end() && steps->is_array())
    for (const auto& s : *steps) add(text_of(s, "thread"));
  for (const auto& s : bug_sites(bug)) add(s.thread);
  return names;
}

}  // namespace weft::driver
