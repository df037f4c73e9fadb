#include "state_fingerprints.hpp"

#include <algorithm>

#include "weft/explore/thread_model.hpp"
#include "weft/trace/hash_mix.hpp"
#include "weft/trace/sync_rules.hpp"
#include "weft/trace/wire.hpp"

namespace weft::explorer {
namespace {

std::uint64_t signature(const Operation& op) {
  std::uint64_t s = hash_mix(static_cast<std::uint64_t>(op.kind), op.object);
  s = hash_mix(s, std::uint64_t{op.size} << 1 | (op.timed ? 1 : 0));
  return hash_mix(s, op.partner);
}

// The operations whose effect on the state the fingerprint holds: the thread model's, a trylock
// (its result is in the thread's history, its effect in the mutex's owner), a free (the block
// is freed: a part of its own), condition variables and semaphores (parts of their own, below).
bool held(const Operation& op) {
  if (ThreadModel::carries_out(op)) return true;
  switch (op.kind) {
    case OpKind::kMutexTryLock:
    case OpKind::kFree:
    case OpKind::kCondWait:
    case OpKind::kCondWake:
    case OpKind::kCondSignal:
    case OpKind::kCondBroadcast:
    case OpKind::kSemWait:
    case OpKind::kSemTryWait:
    case OpKind::kSemPost:
      return true;
    default:
      return false;
  }
}

// A condition variable as the scheduler keeps it (runtime/sync_state.hpp): its waiters, each
// with the epoch it began waiting at, and the tokens signals left, each with its epoch; a waiter
// may take a token of a later epoch. What the future can tell apart is only the order of those
// epochs, so the part is the sequence of waiters and tokens in epoch order, without the numbers
// (which grow with every signal: two states that differ only by them are one).
struct CondModel {
  std::uint64_t epoch = 0;
  std::vector<std::pair<std::uint64_t, ThreadId>> waiters;  // (epoch, thread)
  std::vector<std::uint64_t> tokens;                        // ascending

  void wait(ThreadId t) { waiters.push_back({epoch, t}); }
  void wake(ThreadId t, bool signalled) {
    const auto w = std::find_if(waiters.begin(), waiters.end(),
                                [&](const auto& entry) { return entry.second == t; });
    if (w == waiters.end()) return;
    if (signalled) {
      const auto token = std::upper_bound(tokens.begin(), tokens.end(), w->first);
      if (token != tokens.end()) tokens.erase(token);
    }
    waiters.erase(w);
  }
  void signal() {
    ++epoch;
    if (waiters.size() > tokens.size()) tokens.push_back(epoch);
  }
  void broadcast() {
    ++epoch;
    while (tokens.size() < waiters.size()) tokens.push_back(epoch);
  }
  std::uint64_t value() const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> all;  // (epoch * 2 + kind, what)
    for (std::uint64_t token : tokens) all.push_back({token * 2, 0x70c});
    for (const auto& [e, t] : waiters) all.push_back({e * 2 + 1, hash_mix(0x3a17, t)});
    std::sort(all.begin(), all.end());
    std::uint64_t h = 0xc0d;
    for (const auto& entry : all) h = hash_mix(h, entry.second);
    return h;
  }
};

constexpr std::uint64_t kChild = 0xc41d;
// Each part of the state hashed with its kind, so that the parts of different kinds add up to
// one sum without meeting: a step's change of the state is then the difference of two sums,
// the same in every execution that contains the step's causes (complete_prefix.hpp).
constexpr std::uint64_t kThreadPart = 0x7a1, kBytePart = 0xb17e, kOwnerPart = 0x0a7e,
                        kFreedPart = 0xf4ee, kCondPart = 0xc04d, kSemPart = 0x5e4a;
std::uint64_t part(std::uint64_t kind, std::uint64_t key, std::uint64_t value) {
  return hash_mix(hash_mix(kind, key), value);
}

}  // namespace

bool StateFingerprints::check_initial(ObjectKey address, std::uint32_t size, std::uint64_t read,
                                      const std::unordered_map<ObjectKey, std::uint8_t>& written) {
  for (std::uint32_t i = 0; i < size; ++i) {
    const auto byte = static_cast<std::uint8_t>(read >> (8 * i));
    if (const auto w = written.find(address + i); w != written.end()) {
      if (w->second != byte) return false;
      continue;
    }
    const auto [it, added] = initial_.emplace(address + i, byte);
    if (!added && it->second != byte) return false;
  }
  return true;
}

bool StateFingerprints::check_next(std::uint64_t history, const Operation& op) {
  const auto [it, added] = next_.emplace(history, signature(op));
  if (added || it->second == signature(op)) return true;
  return fail("a thread did something else after the same history as before (" +
              std::string(op_name(op.kind)) +
              " this time): what it does depends on more than the values it read (heap "
              "addresses, the time, inputs), so its history is not its state");
}

bool StateFingerprints::check_went_on(std::uint64_t state_and_result, std::uint64_t after) {
  const auto [it, added] = went_on_.emplace(state_and_result, after);
  if (added || it->second == after) return true;
  return fail(
      "a thread went on differently from the same registers, stack and operation result: what "
      "it does depends on state weft does not see (the C library's, the kernel's), so its local "
      "state is not its state");
}

std::vector<std::uint64_t> StateFingerprints::of(const Trace& trace) {
  std::vector<std::uint64_t> states;
  if (!walk(trace, states, nullptr, nullptr)) states.clear();
  return states;
}

std::optional<StateFingerprints::Changes> StateFingerprints::changes_of(const Trace& trace) {
  std::vector<std::uint64_t> states;
  Changes out;
  if (!walk(trace, states, &out.events, &out.branches)) return std::nullopt;
  return out;
}

namespace {

// An expression of `in`'s pool by its structure, inputs by their keys: the same in every
// execution that computed it the same way from the same inputs, whatever their values.
class ExpressionHashes {
 public:
  explicit ExpressionHashes(const InputObservations& in) : in_(in) {}
  std::uint64_t of(symbolic::ExprId id) {
    if (id == symbolic::kConcrete) return 0;
    if (id < memo_.size() && memo_[id]) return memo_[id];
    const symbolic::ExprNode& n = in_.expressions[id];
    std::uint64_t value = n.value;
    if (n.kind == symbolic::ExprKind::kInput && n.value < in_.inputs.size())
      value = in_.inputs[n.value].key.packed();
    std::uint64_t h = hash_mix(hash_mix(static_cast<std::uint64_t>(n.kind), n.width), value);
    h = hash_mix(hash_mix(hash_mix(h, of(n.a)), of(n.b)), of(n.c)) |
        1;  // never 0, the mark of "not yet"
    if (id >= memo_.size()) memo_.resize(id + 1, 0);
    memo_[id] = h;
    return h;
  }

 private:
  const InputObservations& in_;
  std::vector<std::uint64_t> memo_;
};

constexpr std::uint64_t kBranchStep = 0xb4a;

// Each thread's state from the local states a trace recorded: a thread waiting at an operation
// is its local state there and the operation (whose arguments the local state does not hold:
// they were in registers a call does not keep).
class LocalStates {
 public:
  /// False, with `unread` the first step whose local state is unknown, where one is.
  bool read(const Trace& trace, std::size_t& unread) {
    trace_ = &trace;
    const std::size_t n = trace.events.size();
    next_.assign(n, kNone);
    std::vector<std::size_t> last;  // by thread: its latest event so far
    for (std::size_t k = 0; k < n; ++k) {
      if (!trace.local_states[k]) {
        unread = k;
        return false;
      }
      const ThreadId t = trace.events[k].thread;
      if (t >= last.size()) last.resize(t + 1, kNone);
      if (last[t] != kNone) next_[last[t]] = k;
      last[t] = k;
    }
    pending_.clear();
    for (const PendingThread& p : trace.pending) {
      if (p.thread >= pending_.size()) pending_.resize(p.thread + 1, nullptr);
      pending_[p.thread] = &p;
    }
    return true;
  }
  /// Thread t as it waits at its first operation at or after step `from`.
  std::uint64_t first(ThreadId t, std::size_t from) const {
    for (std::size_t k = from; k < trace_->events.size(); ++k)
      if (trace_->events[k].thread == t) return waiting_at(k);
    return pending(t, hash_mix(kNotStarted, t));
  }
  /// The thread of step k after it, having got `returned`: as it waits at its next operation;
  /// or ended; or stopped by a bug, the bound or the end of the execution.
  std::uint64_t after(std::size_t k, std::uint64_t returned) const {
    if (next_[k] != kNone) return waiting_at(next_[k]);
    const std::uint64_t from = hash_mix(trace_->local_states[k], returned);
    if (ended(k)) return hash_mix(kEnded, from);
    return pending(trace_->events[k].thread, hash_mix(kStopped, from));
  }

  /// Whether the trace shows where the thread of step k went after it (not stopped by a bug).
  bool seen_going_on(std::size_t k) const {
    const ThreadId t = trace_->events[k].thread;
    return next_[k] != kNone || ended(k) ||
           (t < pending_.size() && pending_[t] && pending_[t]->local_state);
  }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};
  static constexpr std::uint64_t kNotStarted = 0x5a2, kEnded = 0xe2d, kStopped = 0x5709;
  // Whether step k was its thread's last: it returned, or it ended the process (a thread that
  // did stays pending at its exit, but is no longer there).
  bool ended(std::size_t k) const {
    return (k < trace_->finished_thread.size() && trace_->finished_thread[k]) ||
           trace_->events[k].op.kind == OpKind::kProcessExit;
  }
  std::uint64_t waiting_at(std::size_t k) const {
    return hash_mix(trace_->local_states[k], signature(trace_->events[k].op));
  }
  std::uint64_t pending(ThreadId t, std::uint64_t otherwise) const {
    const PendingThread* p = t < pending_.size() ? pending_[t] : nullptr;
    if (!p || !p->local_state) return otherwise;
    return hash_mix(p->local_state, signature(p->op));
  }
  const Trace* trace_ = nullptr;
  std::vector<std::size_t> next_;              // by step: its thread's next step
  std::vector<const PendingThread*> pending_;  // by thread
};
constexpr std::uint64_t kSymbolicByte = 0x5b7e;

}  // namespace

// The fingerprints before each event and after the last (`states`), and each event's change; for
// a program that reads inputs, each branch on them a step of its thread (its change in
// `branch_changes`, by branch; the state before an event includes the branches before it), and a
// value computed from inputs held by its expression (thesis §7.2: a branch leads to a new local
// state; the values are as symbolic as the constraints).
bool StateFingerprints::walk(const Trace& trace, std::vector<std::uint64_t>& states,
                             std::vector<std::uint64_t>* event_changes,
                             std::vector<std::uint64_t>* branch_changes) {
  why_.clear();
  if (trace.values.size() != trace.events.size())
    return fail(
        "it needs every shared access to be an event with its values (a native program run with "
        "--points=all)");
  if (std::any_of(trace.caveats.begin(), trace.caveats.end(),
                  [](const Caveat& c) { return c.kind == CaveatKind::kSemaphoreReset; }))
    return fail(
        "sem_init set a semaphore again after threads had used it, so its count is not what its "
        "operations made it");
  const InputObservations& in = trace.symbolic;
  if (in.unconstrained_concretisations)
    return fail(
        "a value computed from inputs was made concrete without a constraint (floating point), "
        "so the states would hold only this execution's value");
  ExpressionHashes expressions(in);
  // A thread's state: its local state where the trace recorded it (as it waits at its next
  // operation: registers, stack, thread-local storage, and the operation), else its history.
  const bool concrete = in.inputs.empty() && !trace.events.empty() &&
                        trace.local_states.size() == trace.events.size();
  LocalStates locals;
  if (std::size_t unread = 0; concrete && !locals.read(trace, unread))
    return fail(std::string("a thread's registers could not be read at its ") +
                op_name(trace.events[unread].op.kind) + " at " +
                code_mark(unread < trace.sites.size() ? trace.sites[unread] : 0) +
                " (reached through code without unwind tables?), so its local state is unknown");
  std::vector<std::uint64_t> thread(
      1, concrete ? locals.first(kMainThread, 0) : hash_mix(kMainThread, 1));  // by thread
  std::uint64_t threads = part(kThreadPart, kMainThread, thread[0]);           // over threads
  std::uint64_t memory = 0, owners = 0;
  std::unordered_map<ObjectKey, std::uint8_t> bytes;  // written by events
  // Bytes whose value was computed from inputs: by address, the hash standing for it.
  std::unordered_map<ObjectKey, std::uint64_t> symbolic_bytes;
  std::unordered_map<ObjectKey, ThreadId> owner;
  std::uint64_t objects = 0;  // condition variables and semaphores
  std::unordered_map<ObjectKey, CondModel> conds;
  std::unordered_map<ObjectKey, std::int64_t> units;  // by semaphore: posts less waits
  const auto now = [&] { return threads + memory + owners + objects; };
  const auto set_history = [&](ThreadId t, std::uint64_t h) {
    if (t >= thread.size()) thread.resize(t + 1, 0);
    if (thread[t]) threads -= part(kThreadPart, t, thread[t]);
    thread[t] = h;
    threads += part(kThreadPart, t, h);
  };
  std::size_t next_branch = 0;
  const auto branches_before = [&](std::size_t step) {
    for (; next_branch < in.branches.size() && in.branches[next_branch].step <= step;
         ++next_branch) {
      const SymbolicBranch& b = in.branches[next_branch];
      const std::uint64_t before = now();
      const std::uint64_t h = b.thread < thread.size() ? thread[b.thread] : 0;
      set_history(b.thread, hash_mix(hash_mix(h, kBranchStep ^ b.site), b.taken ? 1 : 0));
      if (branch_changes) branch_changes->push_back(now() - before);
    }
  };
  states.clear();
  states.reserve(trace.events.size() + 1);
  for (std::size_t k = 0; k < trace.events.size(); ++k) {
    branches_before(k);
    states.push_back(now());
    const Event& e = trace.events[k];
    const Operation& op = e.op;
    const AccessValues& v = trace.values[k];
    if (!held(op))
      return fail(reads_value(op.kind) || writes_value(op.kind)
                      ? "an access of " + std::to_string(op.size) + " bytes has no recorded value"
                      : std::string("the program uses ") + op_name(op.kind) +
                            ", whose state the fingerprint does not hold (it holds shared "
                            "memory, mutexes, condition variables, semaphores and threads)");
    std::uint64_t returned = op.result;
    if (op.kind == OpKind::kFree) {
      // (Its bytes keep their last values in the state: a use after it is a bug of its own.)
      memory += part(kFreedPart, op.object, op.size);
    } else if (accesses_memory(op)) {
      if (reads_value(op.kind)) {
        if (!(v.known & AccessValues::kRead)) return fail("an access's value was not recorded");
        if (!check_initial(op.object, op.size, v.read, bytes))
          return fail("memory changed between events (a read of " + std::to_string(op.size) +
                      " bytes at " + code_mark(k < trace.sites.size() ? trace.sites[k] : 0) +
                      " saw bytes no event wrote: written by code weft did not compile, or by "
                      "the kernel), so the shared memory is more than the events show");
        returned = v.read;
        // A value computed from inputs is what the thread read, not this execution's bytes.
        bool from_inputs = false;
        for (std::uint32_t i = 0; i < op.size && !from_inputs; ++i)
          from_inputs = symbolic_bytes.count(op.object + i) != 0;
        if (from_inputs) {
          returned = kSymbolicByte;
          for (std::uint32_t i = 0; i < op.size; ++i) {
            const auto it = symbolic_bytes.find(op.object + i);
            returned = hash_mix(returned, it != symbolic_bytes.end()
                                              ? it->second
                                              : std::uint64_t{(v.read >> (8 * i)) & 0xff});
          }
        }
      }
      if (writes_value(op.kind)) {
        if (!(v.known & AccessValues::kWritten)) return fail("an access's value was not recorded");
        std::uint64_t from_inputs = 0;
        if (v.known & AccessValues::kWrittenFromInputs) {
          if (v.written_expression == 0)
            return fail(
                "a value computed from inputs was written without its expression, so the "
                "states would hold only this execution's value");
          from_inputs = expressions.of(v.written_expression);
        }
        for (std::uint32_t i = 0; i < op.size; ++i) {
          const ObjectKey at = op.object + i;
          const auto byte = static_cast<std::uint8_t>(v.written >> (8 * i));
          // What the part holds: the byte, or the expression's hash and the byte's place in it.
          const auto held_value = [&](std::uint8_t b, ObjectKey address) {
            const auto s = symbolic_bytes.find(address);
            return s == symbolic_bytes.end() ? std::uint64_t{b}
                                             : hash_mix(kSymbolicByte, s->second);
          };
          const auto [it, added] = bytes.emplace(at, byte);
          if (!added) {
            memory -= part(kBytePart, at, held_value(it->second, at));
            it->second = byte;
          }
          if (from_inputs)
            symbolic_bytes[at] = hash_mix(from_inputs, i);
          else
            symbolic_bytes.erase(at);
          memory += part(kBytePart, at, held_value(byte, at));
        }
      }
    } else if (op.kind == OpKind::kThreadJoin && (v.known & AccessValues::kRead)) {
      returned = v.read;  // what the joined thread returned, when the thread takes it
    } else if (domain_of(op.kind) == Domain::kCond) {
      CondModel& c = conds[op.object];
      objects -= part(kCondPart, op.object, c.value());
      if (op.kind == OpKind::kCondWait) c.wait(e.thread);
      if (op.kind == OpKind::kCondWake) c.wake(e.thread, op.result != 0);
      if (op.kind == OpKind::kCondSignal) c.signal();
      if (op.kind == OpKind::kCondBroadcast) c.broadcast();
      objects += part(kCondPart, op.object, c.value());
    } else if (domain_of(op.kind) == Domain::kSemaphore) {
      // The count relative to its start (a sem_init is no event; a program sets it once).
      std::int64_t& n = units[op.object];
      objects -= part(kSemPart, op.object, static_cast<std::uint64_t>(n));
      n += op.kind == OpKind::kSemPost                                                    ? 1
           : op.kind == OpKind::kSemWait || (op.kind == OpKind::kSemTryWait && op.result) ? -1
                                                                                          : 0;
      objects += part(kSemPart, op.object, static_cast<std::uint64_t>(n));
    }
    if (acquires_mutex(op) || releases_mutex(op)) {
      const ObjectKey m = mutex_of(op);
      const auto it = owner.find(m);
      const ThreadId before = it == owner.end() ? kNoThread : it->second;
      const ThreadId after = sync_rules::holder_after(op, e.thread, before);
      if (before != kNoThread) owners -= part(kOwnerPart, m, before);
      if (after != kNoThread) owners += part(kOwnerPart, m, after);
      owner[m] = after;
    }
    const std::uint64_t history = e.thread < thread.size() ? thread[e.thread] : 0;
    if (concrete) {
      if (op.kind == OpKind::kThreadCreate) {
        const auto child = static_cast<ThreadId>(op.object);
        set_history(child, locals.first(child, k + 1));
      }
      const std::uint64_t after = locals.after(k, returned);
      if (locals.seen_going_on(k) && !check_went_on(hash_mix(history, returned), after))
        return false;
      set_history(e.thread, after);
    } else {
      if (!check_next(history, op)) return false;
      if (op.kind == OpKind::kThreadCreate)
        set_history(static_cast<ThreadId>(op.object),
                    hash_mix(hash_mix(history, kChild), op.object));
      // (Whether the thread ends after the step is no part of it: its history decides that, or
      // with inputs the branches after it, which are steps of their own.)
      set_history(e.thread, hash_mix(hash_mix(history, signature(op)), returned));
    }
    if (event_changes) event_changes->push_back(now() - states.back());
  }
  // The branches after the last event are steps of their own, before the state it ends in.
  branches_before(~std::size_t{0} >> 1);
  states.push_back(now());
  if (!concrete)
    for (const PendingThread& p : trace.pending)
      if (p.thread < thread.size() && !check_next(thread[p.thread], p.op)) return false;
  return true;
}

}  // namespace weft::explorer
