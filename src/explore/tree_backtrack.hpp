// The backtracking step of the searches over the execution tree (thesis §2.4, Fig. 2.4 and 2.5):
// from the deepest node up, first the other sides of the input branches the node's step took,
// then the node's next scheduling choice, else the node is finished and goes. DFS and DPOR
// (ExecutionTreeSearch) and optimal DPOR differ only in how a node picks its next choice.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "input_paths.hpp"
#include "weft/trace/directive.hpp"

namespace weft::explorer {

/// What a node's own next choice came to (the `take` of next_in_tree).
enum class NodeChoice {
  kTaken,     ///< the directive is filled in: it branches at this node
  kFinished,  ///< no choice left here: the node goes
  kAgain,     ///< a choice was dropped (covered already): ask the same node again
};

/// The threads chosen at nodes [0, i), as the start of a directive's prefix, and for nodes that
/// have options (Node::option), the options they took.
template <class Node>
void prefix_up_to(const std::vector<Node>& nodes, std::size_t i, TestDirective& d) {
  d.prefix.reserve(i + 1);
  for (std::size_t k = 0; k < i; ++k) d.prefix.push_back(nodes[k].chosen.thread);
  if constexpr (requires { nodes[0].option; }) {
    std::size_t last = 0;  // one past the last node with an option other than the first
    for (std::size_t k = 0; k < i; ++k)
      if (nodes[k].option != 0) last = k + 1;
    d.choices.assign(last, 0);
    for (std::size_t k = 0; k < last; ++k) d.choices[k] = nodes[k].option;
  }
}

/// The prefix of a directive that runs node i's step again with its next option
/// (TestDirective::choices): nodes [0, i) as before, then the same thread.
template <class Node>
void next_option_prefix(std::vector<Node>& nodes, std::size_t i, TestDirective& d) {
  prefix_up_to(nodes, i, d);
  d.prefix.push_back(nodes[i].chosen.thread);
  d.choices.resize(i, 0);
  d.choices.push_back(++nodes[i].option);
}

/// The next test of a search over `nodes` (each with `chosen` and `sleep`), or nullopt once the
/// tree is exhausted; `branch` becomes the node it branches at. `take(i, node, d)` tries the
/// node's own next choice; `with_sleep`: directives carry the node's sleep set.
template <class Node, class Take>
std::optional<TestDirective> next_in_tree(std::vector<Node>& nodes, InputPaths& inputs,
                                          TestDirective d, bool with_sleep, std::size_t& branch,
                                          Take&& take) {
  while (!nodes.empty()) {
    const std::size_t i = nodes.size() - 1;
    Node& n = nodes[i];
    // The other sides of the input branches of this step: below its choice, so first (their
    // subtrees have their own races).
    if (auto flipped = inputs.flip_in_step(i + 1)) {
      prefix_up_to(nodes, i, d);
      d.prefix.push_back(n.chosen.thread);
      d.sleep_from = i;
      if (with_sleep) d.sleep = n.sleep;
      d.inputs = std::move(*flipped);
      branch = i;
      return d;
    }
    const NodeChoice choice = take(i, n, d);
    if (choice == NodeChoice::kTaken) {
      branch = i;
      return d;
    }
    if (choice == NodeChoice::kFinished) nodes.pop_back();
  }
  // The branches main took before its first operation.
  if (auto flipped = inputs.flip_in_step(0)) {
    d.inputs = std::move(*flipped);
    return d;
  }
  return std::nullopt;
}

}  // namespace weft::explorer
