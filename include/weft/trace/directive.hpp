// The test directive: what an exploration strategy asks the runtime to execute next.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "weft/trace/dependence.hpp"
#include "weft/trace/inputs.hpp"
#include "weft/trace/operation.hpp"

namespace weft {

/// How the runtime picks the next thread once the prefix is used up.
enum class SchedulePolicy : std::uint8_t {
  kSticky,  ///< keep running the last thread while it is enabled, else the lowest enabled id
  kRandom,  ///< uniformly among the enabled threads, from `seed`
  /// PCT (Burckhardt et al., ASPLOS 2010): each thread gets a random priority from `seed` when
  /// first enabled, and the enabled thread of highest priority runs; the thread that runs the
  /// step `priority_changes[i-1]` then drops to priority i, below every initial priority (the
  /// steps come in the order they were drawn, so which lowered thread ranks above which is
  /// random too: PCT §3).
  kPriority,
  /// A random path of the tree that depth-first search with sleep sets explores (thesis §2.4),
  /// for Knuth's estimate of its size (explore/size_estimate.hpp): each step orders the threads
  /// not asleep at random and takes one by a guess of its subtree's size (using
  /// `quiet_accesses`); the ones ordered before it join the sleep set, as the siblings that
  /// search explores first would. The trace records the walk's weight
  /// (Trace::walk_log2_weight).
  kSleepSetWalk,
  /// Partial order sampling (Yuan, Yang, Gu, CAV 2018): each thread's pending event has a
  /// random priority from `seed`, and the enabled one of highest priority runs; then the next
  /// event of its thread, and every enabled event that races with (is dependent on) the one
  /// that ran, get fresh priorities. Unlike uniform random scheduling, every partial order is
  /// sampled with a probability that does not shrink with the events independent of it.
  kPartialOrderSampling,
  /// kSticky, but a thread runs at most kTurnSteps steps in a row while another thread could go:
  /// then the next enabled thread after it by id. A thread that loops forever does not keep the
  /// others from ending; the stateful unfoldings stop following it at a cut-off
  /// (explore/cut_off_events.hpp), and the others still have to reach theirs.
  kStickyInTurns,
  /// The enabled thread of lowest id, always: which thread runs next is a function of what ran,
  /// not of the order it ran in (the graph exploration, strategies/trust.cpp, needs that).
  kLowest,
};
/// The largest SchedulePolicy, for checking a decoded one.
inline constexpr unsigned kLastSchedulePolicy = static_cast<unsigned>(SchedulePolicy::kLowest);
/// kStickyInTurns: the steps a thread runs in a row at most while another could go.
inline constexpr std::uint32_t kTurnSteps = 64;

/// For SchedulePolicy::kSleepSetWalk's guesses: a memory access or mutex operation as its
/// object and whether it only reads (object << 1 | writes); nullopt for other operations.
inline std::optional<std::uint64_t> quiet_access_key(const Operation& op) {
  const Domain domain = domain_of(op.kind);
  if (domain != Domain::kMemory && domain != Domain::kMutex) return std::nullopt;
  return op.object << 1 | (is_read(op.kind) ? 0 : 1);
}

/// A sleep-set entry: thread `thread` need not run `op` until a dependent operation has run.
/// With `wake_on` (sync_key values, sync_objects.hpp), it waits instead for an operation on one
/// of those objects: reachability testing keeps a call away from a completion slot that a new
/// call must fill, whatever kind the two calls are (Lei and Carver §VII, unmatched receives).
struct SleepEntry {
  ThreadId thread = kNoThread;
  Operation op;
  std::vector<ObjectKey> wake_on = {};
  friend bool operator==(const SleepEntry&, const SleepEntry&) = default;
};

/// One test: follow `prefix` (thread to run at each step), then the policy. From step
/// `sleep_from` on, the runtime keeps `sleep` as a sleep set (thesis §2.4): an entry leaves it when
/// a dependent operation executes, sleeping threads are not picked by the policy, and the
/// execution is abandoned as sleep-set blocked when only sleeping threads are enabled. `inputs`
/// (sorted by key) are the values inputs get; an input not listed gets 0.
struct TestDirective {
  std::vector<ThreadId> prefix;
  std::size_t sleep_from = 0;
  std::vector<SleepEntry> sleep;
  ReadPolicy read_policy = ReadPolicy::kReadsCommute;
  SchedulePolicy policy = SchedulePolicy::kSticky;
  std::uint64_t seed = 0;
  /// kPriority: the steps (distinct, in the order drawn) at which the running thread's priority
  /// drops, to 1 at the first, 2 at the second, ...
  std::vector<std::uint32_t> priority_changes;
  std::vector<InputValue> inputs;
  /// kSleepSetWalk: the accesses (quiet_access_key, sorted) that earlier walks never saw
  /// another thread's operation depend on afterwards: a thread put to sleep at one is guessed
  /// never to wake, and the walk seldom puts one to sleep (explore/size_estimate.hpp).
  std::vector<std::uint64_t> quiet_accesses;
  /// Native programs: run the code that follows values computed from inputs (shadow
  /// expressions). Off, each function runs its plain copy, at full speed; an input read then
  /// makes the runner run the directive again with it on (ForkServer::run).
  bool track_inputs = true;
  /// Under a model whose accesses have options (RC11: which store a load reads, after which
  /// store a store goes), the option step i takes, counted from the newest store in coherence
  /// order (0: the newest, as under sequential consistency). Steps past its end take 0, or a
  /// random option under the random policies.
  std::vector<std::uint32_t> choices;
  /// Under RC11, per step, the store the step's access must take, named by the step that made
  /// it (Trace::GraphAccess::kFirstValue: the location's first value; kFree: the option in
  /// `choices`): the store a load or update reads, the one a store is placed right after.
  /// When that store is not among the access's options (the graph would be inconsistent), the
  /// execution is abandoned as Outcome::kSleepBlocked. In process only.
  static constexpr std::uint32_t kFree = ~std::uint32_t{0} - 1;
  std::vector<std::uint32_t> sources;
  /// Under RC11: offer every access every consistent store (rc11::Machine::offer_every_option).
  bool every_option = false;
};

}  // namespace weft
