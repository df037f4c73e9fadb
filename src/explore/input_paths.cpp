#include "input_paths.hpp"

#include <algorithm>

namespace weft::explorer {
namespace {

// A branch whose other side is not worth a test: a concretisation (its other side is the values
// weft chose not to explore) and an assume that held (its other side is discarded). A failed
// assume is flipped like a branch: the side where it holds is what matters.
bool worth_flipping(const SymbolicBranch& b) {
  switch (b.kind) {
    case BranchKind::kBranch:
      return true;
    case BranchKind::kAssume:
      return !b.taken;
    case BranchKind::kConcretisation:
      return false;
  }
  return false;
}

bool same_branch(const SymbolicBranch& a, const SymbolicBranch& b) {
  return a.thread == b.thread && a.step == b.step && a.kind == b.kind && a.site == b.site;
}

}  // namespace

std::vector<InputValue> InputPaths::current_inputs() const {
  return current_.values();
}

bool InputPaths::flippable(std::size_t index) const {
  return index < current_.branches.size() && worth_flipping(current_.branches[index]);
}

std::optional<std::vector<InputValue>> InputPaths::solve_other_side(std::size_t i) {
  const auto& branches = current_.branches;
  std::vector<symbolic::InputVariable> variables;
  variables.reserve(current_.inputs.size());
  for (const InputRead& in : current_.inputs)
    variables.push_back({in.width, in.value, in.key.packed()});
  std::vector<symbolic::Constraint> path;
  path.reserve(i);
  for (std::size_t k = 0; k < i; ++k) path.push_back({branches[k].condition, branches[k].taken});
  const symbolic::Solution s = solver_.solve(
      current_.expressions, path, {branches[i].condition, !branches[i].taken}, variables);
  if (s.answer == symbolic::Answer::kUnsatisfiable) {
    ++stats_.infeasible;
    return std::nullopt;
  }
  if (s.answer == symbolic::Answer::kUnknown) {
    ++stats_.solver_unknown;
    return std::nullopt;
  }
  std::vector<InputValue> values;
  values.reserve(s.values.size());
  for (std::size_t v = 0; v < s.values.size(); ++v)
    values.push_back({current_.inputs[v].key, s.values[v]});
  std::sort(values.begin(), values.end(),
            [](const InputValue& a, const InputValue& b) { return a.key < b.key; });
  ++stats_.flips;
  return values;
}

std::optional<std::vector<InputValue>> InputPaths::flip(std::size_t index) {
  if (!flippable(index)) return std::nullopt;
  return solve_other_side(index);
}

std::optional<std::vector<InputValue>> InputPaths::flip_in_step(std::size_t step) {
  const auto& branches = current_.branches;
  // Branches are in execution order, so those of one step are contiguous.
  auto first = std::lower_bound(branches.begin(), branches.end(), step,
                                [](const SymbolicBranch& b, std::size_t s) { return b.step < s; });
  auto last = std::upper_bound(first, branches.end(), step,
                               [](std::size_t s, const SymbolicBranch& b) { return s < b.step; });
  for (auto i = static_cast<std::size_t>(last - branches.begin());
       i-- > static_cast<std::size_t>(first - branches.begin());) {
    if (done_[i]) continue;
    done_[i] = true;
    auto values = solve_other_side(i);
    if (!values) continue;
    pending_ = PendingFlip{i, !branches[i].taken};
    return values;
  }
  return std::nullopt;
}

void InputPaths::covered_after(std::size_t step) {
  for (std::size_t i = current_.branches.size(); i-- > 0 && current_.branches[i].step > step;)
    done_[i] = true;
}

void InputPaths::observe(const Trace& trace, std::size_t kept_steps) {
  const InputObservations& seen = trace.symbolic;
  if (!seen.inputs.empty()) ++stats_.executions_with_inputs;
  stats_.unconstrained_concretisations += seen.unconstrained_concretisations;
  std::vector<bool> done(seen.branches.size(), false);
  // The branches the two executions share keep their flags: those before a flipped branch, or
  // those of the steps both ran alike.
  std::size_t kept = 0;
  const std::size_t limit = pending_ ? pending_->branch : current_.branches.size();
  while (kept < limit && kept < seen.branches.size() &&
         (pending_ || current_.branches[kept].step < kept_steps) &&
         same_branch(current_.branches[kept], seen.branches[kept]) &&
         current_.branches[kept].taken == seen.branches[kept].taken) {
    done[kept] = done_[kept];
    ++kept;
  }
  if (pending_) {
    const std::size_t i = pending_->branch;
    const bool took_it = kept == i && i < seen.branches.size() &&
                         same_branch(current_.branches[i], seen.branches[i]) &&
                         seen.branches[i].taken == pending_->taken;
    if (!took_it) ++stats_.divergences;
    // Either way the branch at i is done: both sides have now been tried.
    if (i < done.size() && kept == i) done[i] = true;
    pending_.reset();
  }
  for (std::size_t k = 0; k < seen.branches.size(); ++k) {
    if (!worth_flipping(seen.branches[k])) done[k] = true;
    if (k >= kept && seen.branches[k].kind == BranchKind::kConcretisation) {
      ++stats_.concretisations;
      if (stats_.first_concretisation_site == 0)
        stats_.first_concretisation_site = seen.branches[k].site;
    }
  }
  current_.inputs = seen.inputs;
  current_.expressions = seen.expressions;
  current_.branches = seen.branches;
  done_ = std::move(done);
}

const InputStatistics& InputPaths::statistics() const {
  const symbolic::SolverStatistics& s = solver_.statistics();
  stats_.solver_queries = s.queries;
  stats_.solver_calls = s.solver_calls;
  stats_.cache_hits = s.cache_hits;
  stats_.solver_seconds = std::chrono::duration<double>(s.time).count();
  return stats_;
}

void RandomInputWalk::observe(const Trace& trace, std::uint64_t seed) {
  paths_.observe(trace, 0);
  next_.reset();
  // Half the time, and only when there is a side to take: the walk also needs fresh values.
  const std::size_t n = paths_.branches();
  if (n == 0 || (seed & 1)) return;
  const std::size_t start = static_cast<std::size_t>(seed * 0x9E3779B97F4A7C15ULL >> 7) % n;
  for (std::size_t k = 0; k < n && !next_; ++k)
    if (paths_.flippable((start + k) % n)) next_ = paths_.flip((start + k) % n);
}

}  // namespace weft::explorer
