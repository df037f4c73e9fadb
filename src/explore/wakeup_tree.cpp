#include "wakeup_tree.hpp"

#include <algorithm>
#include <utility>

namespace weft::explorer {

bool initial(ThreadId p, const std::vector<Event>& v, ReadPolicy policy) {
  const auto first =
      std::find_if(v.begin(), v.end(), [p](const Event& e) { return e.thread == p; });
  return first != v.end() && std::none_of(v.begin(), first, [&](const Event& e) {
           return dependent(e, *first, policy);
         });
}

bool weak_initial(ThreadId p, const Operation& next_op, const std::vector<Event>& v,
                  ReadPolicy policy) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i].thread != p) continue;
    for (std::size_t j = 0; j < i; ++j)
      if (dependent(v[j], v[i], policy)) return false;
    return true;
  }
  const Event mine{p, next_op};
  return std::none_of(v.begin(), v.end(),
                      [&](const Event& e) { return dependent(mine, e, policy); });
}

void WakeupTree::insert(std::vector<Event> v, ReadPolicy policy,
                        std::shared_ptr<const std::vector<InputValue>> inputs) {
  Node* node = &root_;
  while (true) {
    if (node != &root_ && node->children.empty()) return;  // a leaf: any continuation is covered
    if (v.empty()) return;
    Node* into = nullptr;
    for (auto& child : node->children) {
      if (weak_initial(child->event.thread, child->event.op, v, policy)) {
        into = child.get();
        break;
      }
    }
    if (!into) {
      // Append v as a new branch, after the existing ones.
      // A new branch of this node takes the inputs it was found with; one inside an existing
      // branch runs on that branch's path, and takes its inputs when it is adopted.
      if (node != &root_) inputs = nullptr;
      Node* at = node;
      for (const Event& e : v) {
        at->children.push_back(std::make_unique<Node>());
        at = at->children.back().get();
        at->event = e;
        if (inputs) at->inputs = std::exchange(inputs, nullptr);
      }
      return;
    }
    // A sequence found on other input values than the branch it would go into is left out: the
    // branch's subtree explores every input path its prefix allows (the input branches of its
    // steps are flipped below it), and finds the race again, with values that take that path.
    // Run with the branch's values instead, the sequence may not reverse anything on their path
    // (the inputs differential test: 9 of 2,000 programs ran a trace twice, up to 6% more).
    if (node == &root_ && inputs && into->inputs && *inputs != *into->inputs) return;
    const ThreadId p = into->event.thread;
    auto it = std::find_if(v.begin(), v.end(), [p](const Event& e) { return e.thread == p; });
    if (it != v.end()) v.erase(it);
    node = into;
  }
}

std::unique_ptr<WakeupTree::Node> WakeupTree::take_first() {
  auto first = std::move(root_.children.front());
  root_.children.erase(root_.children.begin());
  return first;
}

}  // namespace weft::explorer
