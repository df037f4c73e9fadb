// The thread model: what each thread of a program does, learned from its real executions, so
// that an execution made only of steps seen before is computed in weft instead of run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/trace/directive.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

/// A program without inputs is deterministic per thread: what a thread does next depends only
/// on what its own visible operations returned so far (the values its reads saw, the results
/// of the threads it joined) — the assumption under every stateless exploration, and the thesis'
/// model of a thread as a function of its local history (§3.1; an event is fixed by its causal
/// past). The model records, per thread, a tree of those histories: each node is the operation the
/// thread performs next, each edge the value its last operation returned. An execution whose every
/// thread stays on known edges is then computed here, exactly as the runtime's scheduler would
/// run it (Scheduler::run's DirectiveFollower for the prefix, the policy and sleep sets, and the
/// same blocking), with memory as the values the events wrote. Anything the model has not seen (a
/// new value, an operation it does not model, a bug, a deadlock) makes simulate() decline, and the
/// execution runs for real; its trace then teaches the model. Bugs are therefore only ever found by
/// real executions, and their reports and replays are the program's own.
///
/// The model checks itself against every real execution it learns from: a thread doing two
/// different things after the same history, a read seeing other bytes than the model's memory
/// says it would, or two executions seeing different bytes that no event wrote (memory written
/// behind the events' back) disables it for good. Executions whose threads read state the
/// runtime keeps for the program (Trace::runtime_state_read) teach it nothing.
///
/// It needs every shared access to be an event with its values (native programs with
/// --points=all: Trace::values). Modelled operations: reads, writes and atomics of up to 8
/// bytes, mutex lock and unlock, thread create and join, yields, the process's exit.
class ThreadModel {
 public:
  explicit ThreadModel(std::uint32_t max_steps_per_thread);

  /// The operations the model carries out itself (see the class comment): what they do is
  /// fixed by the thread's history and the memory the events wrote.
  static bool carries_out(const Operation& op);

  /// Learns from a real execution's trace.
  void learn(const Trace& trace);
  /// The trace running `directive` would give, if the model knows every step of it (valid until
  /// the next call), or nullptr.
  const Trace* simulate(const TestDirective& directive);

  /// False once the model contradicted a real execution; then simulate() always declines.
  bool usable() const { return disabled_.empty(); }
  /// Why the model was disabled (empty while it is usable).
  const std::string& disabled_reason() const { return disabled_; }
  /// Thread histories known (nodes of the trees).
  std::size_t known_steps() const { return nodes_.size(); }

 private:
  using NodeId = std::uint32_t;
  static constexpr NodeId kNoNode = ~NodeId{0};

  enum class State : std::uint8_t {
    kUnknown,   ///< the thread's next step was never seen
    kPending,   ///< it performs `op` next
    kFinished,  ///< it returned from its start function
  };
  struct Node {
    Operation op;
    std::uint64_t site = 0;
    /// The thread's local state as it waits to perform `op` (Trace::local_states), 0 if not
    /// seen: a function of its history, as the rest of the thread is.
    std::uint64_t local_state = 0;
    std::uint64_t written = 0;  ///< what the step that led here wrote (write-like steps)
    State state = State::kUnknown;
    bool site_known = false;  ///< seen executed, not only pending at an execution's end
    bool written_known = false;
    bool exit_known = false;
    Outcome exit_outcome = Outcome::kComplete;  ///< kProcessExit: how the execution ends
    std::uint64_t result = 0;  ///< kFinished: what its start function returned (when known)
    bool result_known = false;
    bool join_asked = false;  ///< kThreadJoin: whether the thread takes the joined one's result
    bool join_asked_known = false;
    bool modelled = false;       ///< kPending: simulate() carries `op` out
    NodeId last_next = kNoNode;  ///< the edge find_child() found last, to try first
    std::uint64_t last_returned = 0;
  };
  struct EdgeKey {
    NodeId from;
    std::uint64_t returned;
    friend bool operator==(const EdgeKey&, const EdgeKey&) = default;
  };
  struct EdgeHash {
    std::size_t operator()(const EdgeKey& k) const {
      return std::hash<std::uint64_t>{}(k.returned * 0x9e3779b97f4a7c15ULL ^ k.from);
    }
  };
  /// Bytes of memory as events left them in one execution (granule -> bytes and which are set).
  struct Granule {
    std::uint8_t bytes[8] = {};
    std::uint8_t known = 0;
  };
  using Memory = std::unordered_map<ObjectKey, Granule>;

  NodeId new_node();
  /// The node `from` leads to when its operation returned `returned` (made if new).
  NodeId child(NodeId from, std::uint64_t returned);
  /// A thread at node `n` performs `op` next: so learned if new, else checked (false, and
  /// the model disabled, if the thread did something else there before).
  bool see_step(NodeId n, const Operation& op, ThreadId thread);
  NodeId find_child(NodeId from, std::uint64_t returned);
  void disable(std::string why);
  /// The value [address, address+size) holds: from `memory`, else from the initial memory
  /// learned; nullopt if some byte is unknown.
  std::optional<std::uint64_t> load(const Memory& memory, ObjectKey address,
                                    std::uint32_t size) const;
  static void store(Memory& memory, ObjectKey address, std::uint32_t size, std::uint64_t value);
  /// Bytes an event wrote with values not known: from `written` to `unknown`.
  static void forget(Memory& written, Memory& unknown, ObjectKey address, std::uint64_t size);

  std::uint32_t max_steps_;
  std::vector<Node> nodes_;
  std::unordered_map<EdgeKey, NodeId, EdgeHash> edges_;
  std::unordered_map<NodeId, NodeId> child_root_;  ///< create step -> the child's first node
  NodeId main_root_ = kNoNode;
  /// The executions learnt from recorded local states: computed ones carry them too.
  bool local_states_ = false;
  Memory initial_;  ///< bytes reads saw before any event wrote them
  std::string disabled_;

  // ---- the execution simulate() computed last, kept so that the next resumes from it ----
  // A strategy's next directive mostly repeats the start of the last execution (a DPOR
  // branches off the current path), so the steps they share are not computed again: the state
  // before each step is kept as what the step changed, and undone back to where they part.
  struct Thread {
    NodeId node = kNoNode;
    std::uint32_t steps = 0;
    bool finished = false;
  };
  struct StepUndo {
    ThreadId chosen = kNoThread;
    Thread before;                 ///< the chosen thread before the step
    ThreadId started = kNoThread;  ///< a thread the step created
    ThreadSet waiting;             ///< before the step
    ThreadId last = kNoThread;     ///< before the step
    ObjectKey mutex = 0;           ///< the mutex the step locked or unlocked, if any
    ThreadId owner = kNoThread;    ///< its owner before the step
    std::size_t memory_undo = 0;   ///< memory_undo_'s size before the step
  };
  struct MemoryUndo {
    ObjectKey granule;
    Granule before;
  };
  /// Undoes the steps of the kept execution from the last back to `steps`.
  void rewind(std::size_t steps);
  void start_over();
  std::vector<Thread> threads_;
  ThreadSet waiting_;
  std::vector<std::pair<ObjectKey, ThreadId>> owners_;  ///< held mutexes
  Memory memory_;
  ThreadId last_ = kNoThread;
  Trace current_;  ///< the steps computed (events, enabled sets, sites, values)
  std::vector<StepUndo> undo_;
  std::vector<MemoryUndo> memory_undo_;
};

/// Where a computed execution differs from the real one of the same directive (what a run
/// shows: events, enabled sets, sites, values, the end), or "" if nowhere.
std::string first_difference(const Trace& computed, const Trace& ran);

/// Runs directives through a ThreadModel: computes what it can, runs the rest with `run` and
/// learns from them. In checking mode it runs every directive and fails on a difference.
class ModelledRunner {
 public:
  enum class Mode { kOn, kCheck };
  ModelledRunner(Mode mode, std::uint32_t max_steps_per_thread)
      : mode_(mode), model_(max_steps_per_thread) {}
  /// The trace of `directive` (valid until the next call); throws ModelError when checking finds
  /// a difference.
  const Trace& run(const TestDirective& directive,
                   const std::function<Trace(const TestDirective&)>& run_for_real);
  /// Executions computed (in checking mode: that would have been).
  std::uint64_t modelled() const { return modelled_; }
  const ThreadModel& model() const { return model_; }

 private:
  Mode mode_;
  ThreadModel model_;
  std::uint64_t modelled_ = 0;
  std::uint64_t executions_ = 0;
  Trace ran_;  ///< the last execution that ran
};

/// The thread model computed an execution otherwise than the program ran it.
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace weft::explorer
