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

#include "weft/symbolic/expression.hpp"
#include "weft/trace/directive.hpp"
#include "weft/trace/trace.hpp"
#include "weft/trace/vector_clock.hpp"

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
/// new value, an operation it does not model, a bug) makes simulate() decline, and the execution
/// runs for real; its trace then teaches the model. Bugs are therefore only ever found by real
/// executions, and their reports and replays are the program's own: a deadlock is computed only
/// when a real execution ended in the same one (the same threads blocked at the same operations
/// of the same code, the same holders of their mutexes), with that execution's report.
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
///
/// Inputs are part of a thread's history: the local code a thread runs between two events
/// (thesis §3.5: a local step) may read inputs, which are nodes of its tree whose edges are the
/// values the directive gives them, and branch on them, which the node the code reaches holds
/// (conditions kept in the model's own pool, inputs numbered by key, and copied into a computed
/// trace with its numbering). A value computed from inputs that a thread writes is kept with
/// its expression, and a read of such bytes is keyed by the expressions as well as the value
/// (what the reader does with it depends on both); the result of a join is not computed when
/// inputs were read.
///
/// With --points=sync (`segments`), plain accesses are not events: the runtime records what each
/// thread's code between two events read and wrote (Trace::segments). A segment's reads of
/// memory it had not written are steps of the thread's tree that no other thread can come
/// between (edges: the values they saw), and the node a segment ends at holds what it wrote.
/// The program is taken to follow the locking discipline weft checks in this mode (ExitBlock
/// §4.1): then each plain read sees the last write before it. A computed execution is checked
/// for that too, with happens-before from program order, thread creation and join, mutexes and
/// atomics (a subset of the runtime's, so it finds every race the runtime would, and more): any
/// two conflicting accesses of one granule that it does not order make the model decline, so
/// that the execution runs and the runtime reports the race.
///
/// Under RC11 (`rc11`), a step whose atomic access is weaker than seq_cst, or after which its
/// thread ran such a fence (Trace::weak_steps), is not carried out: until an execution has one,
/// RC11 offers every access the newest store only, so that the execution is the sequentially
/// consistent one the model computes (docs/memory-models.md). Happens-before then orders atomic
/// accesses as RC11 does with seq_cst ones: an access acquires what its location's last store
/// released, a store releases (an update that did not change the value is taken as a load,
/// which orders less), so that the race check finds every race the runtime would.
class ThreadModel {
 public:
  explicit ThreadModel(std::uint32_t max_steps_per_thread, bool segments = false,
                       bool rc11 = false);

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
    /// It runs local code that reads inputs or branches on them before its next operation:
    /// which code, the directive's input values decide (the variants from `first_variant`).
    kLocalCode,
    /// With segments: its code reads `op.size` bytes at `op.object` (not an event) before its
    /// next operation; the edges are the values it sees.
    kPlainRead,
  };
  static constexpr std::uint32_t kNoVariant = ~std::uint32_t{0};
  /// A branch on inputs, as the thread's local code ran it.
  struct Branch {
    symbolic::ExprId condition = symbolic::kConcrete;  ///< in pool_
    bool taken = false;
    BranchKind kind = BranchKind::kBranch;
    std::uint64_t site = 0;
    friend bool operator==(const Branch&, const Branch&) = default;
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
    bool modelled = false;  ///< kPending: simulate() carries `op` out
    /// The step that led here wrote a value computed from inputs: its expression in pool_.
    symbolic::ExprId written_expression = symbolic::kConcrete;
    /// kLocalCode: the first of its variants (in variants_).
    std::uint32_t first_variant = kNoVariant;
    NodeId last_next = kNoNode;  ///< the edge find_child() found last, to try first
    std::uint64_t last_returned = 0;
    /// With segments: what the segment that ended here wrote (in segment_writes_).
    std::uint32_t segment_writes_from = 0, segment_write_count = 0;
    bool segment_writes_known = false;
    /// Under RC11: an execution's step here was weak (Trace::weak_steps).
    bool weak = false;
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
    std::uint8_t from_inputs = 0;  ///< bytes of a value computed from inputs
    /// Those bytes' expression (in pool_, or kUnknownSource) and which of its bytes each is.
    std::uint32_t source[8] = {};
    std::uint8_t offset[8] = {};
  };
  static constexpr std::uint32_t kUnknownSource = ~std::uint32_t{0};
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
  /// learned; nullopt if some byte is unknown. Sets `from_inputs` if a byte was computed from
  /// inputs.
  std::optional<std::uint64_t> load(const Memory& memory, ObjectKey address, std::uint32_t size,
                                    bool& from_inputs) const;
  /// Stores `value`; `expression` (pool_'s, or kUnknownSource) if it was computed from inputs.
  static void store(Memory& memory, ObjectKey address, std::uint32_t size, std::uint64_t value,
                    std::uint32_t expression = symbolic::kConcrete);
  /// What a read of `value` from [address, address+size) is keyed by in a thread's history:
  /// the value, mixed with the expressions of its bytes computed from inputs (what the reader
  /// does depends on them too); nullopt if one of them is not known.
  static std::optional<std::uint64_t> read_key(const Memory& memory, ObjectKey address,
                                               std::uint32_t size, std::uint64_t value);
  /// Bytes an event wrote with values not known: from `written` to `unknown`.
  static void forget(Memory& written, Memory& unknown, ObjectKey address, std::uint64_t size);

  // ---- inputs (see the class comment) ----
  /// An input a variant of local code reads.
  struct VariantInput {
    std::uint32_t number;  ///< in input_keys_
    std::uint32_t name;    ///< in names_
    std::uint8_t width;
    bool is_signed;
    friend bool operator==(const VariantInput&, const VariantInput&) = default;
  };
  /// One way a thread's local code went from a node: the inputs it read and the branches it
  /// took (its path condition, which no other variant of the node shares), and where it ended.
  struct Variant {
    std::uint32_t inputs_from = 0, input_count = 0;     ///< in variant_inputs_
    std::uint32_t branches_from = 0, branch_count = 0;  ///< in branches_
    NodeId end = kNoNode;
    std::uint32_t next = kNoVariant;  ///< the node's next variant
  };
  /// The model's number of input `key` (made if new).
  std::uint32_t number_of(InputKey key, std::uint8_t width);
  /// The thread at node `n` ran local code that read `inputs` and took `branches`: so learned
  /// if new, else checked. The node it ended at, or kNoNode if the model is disabled.
  NodeId see_local_code(NodeId n, const std::vector<VariantInput>& inputs,
                        const std::vector<Branch>& branches, ThreadId thread);
  /// The variant of the local code at node `from` that a thread which read `inputs_read`
  /// inputs runs under the current directive's values (model_values_), or nullptr if the model
  /// knows none; `end` is where it ends (`from` for a node without local code).
  const Variant* local_code(NodeId from, ThreadId thread, std::uint32_t inputs_read, NodeId& end);
  /// Whether pool_'s `id` uses only inputs the computed trace has read, or `also` reads.
  bool expressible(symbolic::ExprId id, const Variant* also);
  /// Adds that local code to the computed trace (inputs read, then branches) and moves the
  /// thread to its end.
  void run_local_code(ThreadId thread, const Variant* variant, NodeId end);
  /// pool_'s expression `id` in the computed trace's pool (expressible() first).
  symbolic::ExprId to_trace(symbolic::ExprId id);
  // ---- deadlocks ----
  /// What a deadlock's report said (Trace::message, failing_thread).
  struct Deadlock {
    std::string message;
    ThreadId failing_thread = kNoThread;
    bool said_alike = true;  ///< every execution that ended in it said the same
  };
  /// A deadlock by what its report is a function of: each blocked thread, its node (or with
  /// `by_site`, its operation and code site: nullopt if a site is not known), and the holder of
  /// the mutex it waits for and whether that one ended.
  using Owners = std::vector<std::pair<ObjectKey, ThreadId>>;  ///< held mutexes
  static ThreadId holder_in(const Owners& owners, ObjectKey mutex);
  /// The holders after `thread` performed `op`, a mutex's acquire or release.
  static void set_holder(Owners& owners, const Operation& op, ThreadId thread);
  std::optional<std::uint64_t> deadlock_key(const std::vector<PendingThread>& pending,
                                            const Owners& owners,
                                            const std::function<bool(ThreadId)>& finished,
                                            const std::vector<NodeId>& nodes, bool by_site) const;
  /// Whether the computed execution's blocked threads are a deadlock a real one ended in (then
  /// deadlock_ is it).
  bool known_deadlock();
  std::unordered_map<std::uint64_t, Deadlock> deadlocks_;
  const Deadlock* deadlock_ = nullptr;

  /// Undoes the computed trace's inputs and branches back to the given sizes.
  void forget_symbolic(std::size_t inputs, std::size_t branches, std::size_t expressions);

  std::uint32_t max_steps_;
  std::vector<Node> nodes_;
  std::unordered_map<EdgeKey, NodeId, EdgeHash> edges_;
  std::unordered_map<NodeId, NodeId> child_root_;  ///< create step -> the child's first node
  NodeId main_root_ = kNoNode;
  /// The executions learnt from recorded local states: computed ones carry them too.
  bool local_states_ = false;
  Memory initial_;  ///< bytes reads saw before any event wrote them
  std::string disabled_;
  symbolic::ExpressionPool pool_;  ///< conditions and written values, input i is input_keys_[i]
  std::vector<InputKey> input_keys_;
  std::vector<std::uint8_t> input_widths_;
  std::unordered_map<std::uint64_t, std::uint32_t> input_numbers_;  ///< packed key -> number
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_numbers_;
  std::vector<Branch> branches_;
  std::vector<VariantInput> variant_inputs_;
  std::vector<Variant> variants_;
  /// The inputs each expression of pool_ uses (computed when first asked).
  std::unordered_map<symbolic::ExprId, std::vector<std::uint32_t>> inputs_used_;
  /// The current directive's value of each input of pool_'s numbering, and whether those are
  /// the values the program gets.
  std::vector<std::uint64_t> model_values_;
  bool inputs_given_ = true;
  /// The local code of a node that has none.
  Variant variants_none_;

  // ---- the execution simulate() computed last, kept so that the next resumes from it ----
  // A strategy's next directive mostly repeats the start of the last execution (a DPOR
  // branches off the current path), so the steps they share are not computed again: the state
  // before each step is kept as what the step changed, and undone back to where they part.
  struct Thread {
    NodeId node = kNoNode;
    std::uint32_t steps = 0;
    std::uint32_t inputs = 0;  ///< inputs read
    bool finished = false;
    /// With segments: its happens-before clock (its own entry counts its events, and one more
    /// once it ended, as a join sees it).
    VectorClock clock;
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
    std::size_t shadow_undo = 0;   ///< shadow_undo_'s size before the step
    /// The released mutex's clock before the step (with segments), and whether it had one.
    VectorClock mutex_clock;
    bool released = false;
    bool had_mutex_clock = false;
    /// The atomic variable the step accessed (with segments), and its clocks before.
    ObjectKey atomic = 0;
    bool had_atomic_clocks = false;
    VectorClock atomic_write, atomic_reads;
    std::size_t inputs = 0;  ///< the trace's inputs, branches and expressions before it
    std::size_t branches = 0;
    std::size_t expressions = 0;
  };
  struct MemoryUndo {
    ObjectKey granule;
    Granule before;
  };
  /// Undoes the steps of the kept execution from the last back to `steps`.
  void rewind(std::size_t steps);

  // ---- segments (see the class comment) ----
  /// The accesses of a granule a later one must be checked against, each as (thread, epoch):
  /// ordered before a clock iff its entry for the thread is at least the epoch. An access drops
  /// those ordered before it that it stands for: every access that conflicts with the dropped
  /// one conflicts with it (kShadowEntries at most; more, and the model cannot tell).
  struct Access {
    ThreadId thread = kNoThread;
    std::uint32_t epoch = 0;
    bool write = false;
    bool atomic = false;
    std::uint8_t bytes = 0;  ///< of the granule
  };
  static constexpr unsigned kShadowEntries = 8;
  struct Shadow {
    Access entries[kShadowEntries];
    std::uint8_t count = 0;
  };
  /// Checks an access of [address, address+size) by `thread` (its clock now) at `epoch`, and
  /// records it: false if it races with an earlier one (or the model cannot tell).
  bool access(ObjectKey address, std::uint64_t size, bool write, bool atomic, ThreadId thread,
              std::uint32_t epoch);
  /// The same for `bytes` of granule `g`.
  bool access_granule(ObjectKey g, std::uint8_t bytes, bool write, bool atomic, ThreadId thread,
                      std::uint32_t epoch);
  /// The thread's segment after its step, from `from` (the node its step led to): its reads
  /// from memory_, its writes into it, each checked for races. The node it ends at, or kNoNode
  /// if the model does not know it or it races.
  NodeId run_segment(ThreadId thread, NodeId from);
  /// Learning: a segment of `thread` (nullptr: one that did nothing) that went from `node`;
  /// the node it ended at (kNoNode if not followed), or nullopt if the model was disabled.
  std::optional<NodeId> see_segment(NodeId node, const Trace& t, const Segment* segment,
                                    ThreadId thread);
  bool segments_;
  bool rc11_;
  std::vector<PlainAccess> segment_writes_;
  std::unordered_map<ObjectKey, Shadow> shadow_;  ///< by granule, in the kept execution
  struct ShadowUndo {
    ObjectKey granule;
    Shadow before;
  };
  std::vector<ShadowUndo> shadow_undo_;
  std::unordered_map<ObjectKey, VectorClock> mutex_clocks_;  ///< at their last release
  /// By atomic variable (its address): the clock of its last write and the join of its reads'
  /// since, as the race detector orders atomics (a read after the last write, a write after
  /// both).
  struct AtomicClocks {
    VectorClock write, reads;
  };
  std::unordered_map<ObjectKey, AtomicClocks> atomic_clocks_;
  /// Starts the execution again, main at its first event (false if the model does not know
  /// the local code before it).
  bool start_over();
  std::vector<Thread> threads_;
  ThreadSet waiting_;
  Owners owners_;
  Memory memory_;
  ThreadId last_ = kNoThread;
  Trace current_;  ///< the steps computed (events, enabled sets, sites, values)
  std::vector<StepUndo> undo_;
  std::vector<MemoryUndo> memory_undo_;
  /// The trace's number of each input pool_ numbers i (kNoInput if not read), and the other way.
  static constexpr std::uint32_t kNoInput = ~std::uint32_t{0};
  std::vector<std::uint32_t> trace_number_;
  std::vector<std::uint32_t> model_number_;
};

/// Where a computed execution differs from the real one of the same directive (what a run
/// shows: events, enabled sets, sites, values, the end), or "" if nowhere.
std::string first_difference(const Trace& computed, const Trace& ran);

/// Runs directives through a ThreadModel: computes what it can, runs the rest with `run` and
/// learns from them. In checking mode it runs every directive and fails on a difference.
class ModelledRunner {
 public:
  enum class Mode { kOn, kCheck };
  /// `segments`: the program runs with --points=sync and records segments; `rc11`: under RC11
  /// (ThreadModel).
  ModelledRunner(Mode mode, std::uint32_t max_steps_per_thread, bool segments, bool rc11)
      : mode_(mode), model_(max_steps_per_thread, segments, rc11) {}
  /// The trace of `directive` (valid until the next call); throws ModelError when checking finds
  /// a difference.
  const Trace& run(const TestDirective& directive,
                   const std::function<Trace(const TestDirective&)>& run_for_real);
  /// Executions computed (in checking mode: that would have been).
  std::uint64_t modelled() const { return modelled_; }
  Mode mode() const { return mode_; }
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
