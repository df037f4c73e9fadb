#include "weft/explore/size_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>

namespace weft::explorer {

TestDirective SleepSetWalks::next(std::uint64_t seed) {
  TestDirective d;
  d.policy = SchedulePolicy::kSleepSetWalk;
  d.seed = seed;
  d.read_policy = policy_;
  d.sleep_from = 0;
  if (quiet_stale_) {
    quiet_.clear();
    for (std::uint64_t key : seen_)
      if (!woken_.count(key)) quiet_.push_back(key);
    std::sort(quiet_.begin(), quiet_.end());
    quiet_stale_ = false;
  }
  d.quiet_accesses = quiet_;
  return d;
}

void SleepSetWalks::observe(const Trace& walk) {
  estimate_.add(walk);
  // Per object, the threads that accessed it so far, each with whether it wrote: an access
  // conflicts with another thread's earlier one when either writes (reads commute; mutex
  // operations count as writes).
  constexpr std::size_t kMaxKeys = 100000;  // the guesses need not grow without bound
  std::unordered_map<ObjectKey, std::vector<std::pair<ThreadId, bool>>> earlier;
  for (const Event& e : walk.events) {
    const auto key = quiet_access_key(e.op);
    if (!key) continue;
    const bool writes = *key & 1;
    auto& seen_here = earlier[e.op.object];
    for (const auto& [thread, wrote] : seen_here)
      if (thread != e.thread && (wrote || writes) &&
          woken_.insert(e.op.object << 1 | (wrote ? 1 : 0)).second)
        quiet_stale_ = true;
    if (std::find(seen_here.begin(), seen_here.end(), std::make_pair(e.thread, writes)) ==
        seen_here.end())
      seen_here.emplace_back(e.thread, writes);
    if (seen_.size() < kMaxKeys && seen_.insert(*key).second) quiet_stale_ = true;
  }
}

void SizeEstimate::add(const Trace& walk) {
  ++walks_;
  if (walk.outcome == Outcome::kSleepBlocked) return;  // a leaf of weight 0
  const double log2 = walk.walk_log2_weight;
  if (ended_ == 0 || log2 > scale_) {
    const double shift = ended_ == 0 ? 0 : std::exp2(scale_ - log2);
    sum_ *= shift;
    sum_of_squares_ *= shift * shift;
    scale_ = log2;
  }
  ++ended_;
  const double w = std::exp2(log2 - scale_);
  sum_ += w;
  sum_of_squares_ += w * w;
}

double SizeEstimate::executions() const {
  if (ended_ == 0) return 0;
  return std::exp2(scale_ + std::log2(sum_ / static_cast<double>(walks_)));
}

double SizeEstimate::relative_error() const {
  if (ended_ < 2 || walks_ < 2) return std::numeric_limits<double>::infinity();
  const double n = static_cast<double>(walks_);
  const double mean = sum_ / n;
  // Sample variance of the weights (the blocked walks' zeros included), then of their mean.
  const double variance = std::max(0.0, (sum_of_squares_ - n * mean * mean) / (n - 1));
  return std::sqrt(variance / n) / mean;
}

std::string approximate_count(double n) {
  char text[48];
  if (!(n < 1e15)) {
    std::snprintf(text, sizeof text, "%.1e", n);
    return text;
  }
  if (n >= 1e6) {
    const bool billions = n >= 1e9;
    std::snprintf(text, sizeof text, "%.2g %s", n / (billions ? 1e9 : 1e6),
                  billions ? "billion" : "million");
    return text;
  }
  // Two significant digits, then grouped: 34,567 -> "35,000".
  const double unit = n < 100 ? 1 : std::pow(10.0, std::floor(std::log10(n)) - 1);
  const auto rounded = static_cast<unsigned long long>(std::llround(n / unit) * unit);
  std::string digits = std::to_string(rounded), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string approximate_duration(double seconds) {
  struct Unit {
    double seconds;
    const char* name;
  };
  static constexpr Unit kUnits[] = {
      {365.25 * 86400, "years"}, {86400, "days"}, {3600, "h"}, {60, "min"}, {1, "s"}};
  const Unit* unit = &kUnits[4];
  for (const Unit& u : kUnits)
    if (seconds >= 1.5 * u.seconds) {
      unit = &u;
      break;
    }
  const double n = seconds / unit->seconds;
  char text[48];
  std::snprintf(text, sizeof text, n < 10 ? "%.1f %s" : "%.0f %s", n, unit->name);
  return text;
}

}  // namespace weft::explorer
