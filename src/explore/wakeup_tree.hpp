// Wakeup trees (Abdulla, Aronis, Jonsson, Sagonas 2014, §6): the ordered tree of event sequences
// that optimal DPOR still has to explore from one node of the execution tree.
#pragma once

#include <memory>
#include <vector>

#include "weft/trace/dependence.hpp"
#include "weft/trace/directive.hpp"
#include "weft/trace/operation.hpp"

namespace weft::explorer {

/// Whether thread p is a weak initial of sequence v (Abdulla et al. Def. 6.1): either p's first
/// event in v has no dependent event before it in v, or p does not occur in v and `next_op`, its
/// next operation, is independent of every event of v.
bool weak_initial(ThreadId p, const Operation& next_op, const std::vector<Event>& v,
                  ReadPolicy policy);

/// Whether thread p occurs in v and its first event there has no dependent event before it, so that
/// every extension of v starts a trace in which p's event can come first (an initial, Abdulla et
/// al. Def. 6.1, without the "weak" case of a thread that does not occur in v).
bool initial(ThreadId p, const std::vector<Event>& v, ReadPolicy policy);

class WakeupTree {
 public:
  struct Node {
    Event event;
    std::vector<std::unique_ptr<Node>> children;
    /// The input values of the execution whose race made this branch (set on a new branch of
    /// the root): with inputs, a sequence reverses its race only on the path it was found on, so
    /// the test that follows it gives the inputs that took that path.
    std::shared_ptr<const std::vector<InputValue>> inputs;
  };

  bool empty() const { return root_.children.empty(); }
  /// Inserts v unless a branch already covers it (insert[E](v, wut) of the paper): walks down
  /// through children whose thread is a weak initial of what remains of v, removing that thread's
  /// first event; stops at a leaf (covered) or appends the rest of v as the new last branch.
  void insert(std::vector<Event> v, ReadPolicy policy,
              std::shared_ptr<const std::vector<InputValue>> inputs = nullptr);
  /// Removes and returns the first (leftmost) branch below the root.
  std::unique_ptr<Node> take_first();
  /// Adopts the children of `node` as this tree's branches.
  void adopt(std::vector<std::unique_ptr<Node>> children) { root_.children = std::move(children); }

 private:
  Node root_;
};

}  // namespace weft::explorer
