#include "weft/explore/thread_model.hpp"

#include <algorithm>

#include "weft/trace/dependence.hpp"
#include "weft/trace/directive_follower.hpp"
#include "weft/trace/sync_rules.hpp"

namespace weft::explorer {
namespace {

/// Whether a thread did the same thing twice. An operation the model does not carry out may
/// differ in what it found out while it ran (an atomic section's footprint, a trylock's result):
/// such a step is never computed, so only its being one matters.
bool same_step(const Operation& a, const Operation& b) {
  if (!ThreadModel::carries_out(a) && !ThreadModel::carries_out(b)) return true;
  return a == b;
}

/// An execution the model may learn from: it ended without a bug of any thread, so every
/// thread that had not finished is among the pending ones, at its next operation; and it read
/// no input, whose values the model does not know (a thread's behaviour would depend on them).
bool clean(const Trace& t) {
  if (!t.failures.empty() || t.runtime_state_read || !t.symbolic.inputs.empty()) return false;
  switch (t.outcome) {
    case Outcome::kComplete:
    case Outcome::kDeadlock:
    case Outcome::kSleepBlocked:
    case Outcome::kDiscarded:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool ThreadModel::carries_out(const Operation& op) {
  if (reads_value(op.kind) || writes_value(op.kind)) return op.size >= 1 && op.size <= 8;
  switch (op.kind) {
    case OpKind::kMutexLock:
    case OpKind::kMutexUnlock:
    case OpKind::kThreadCreate:
    case OpKind::kThreadJoin:
    case OpKind::kYield:
    case OpKind::kProcessExit:
      return true;
    default:
      return false;
  }
}

ThreadModel::ThreadModel(std::uint32_t max_steps_per_thread) : max_steps_(max_steps_per_thread) {}

ThreadModel::NodeId ThreadModel::new_node() {
  nodes_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

ThreadModel::NodeId ThreadModel::child(NodeId from, std::uint64_t returned) {
  const auto it = edges_.find({from, returned});
  if (it != edges_.end()) return it->second;
  const NodeId n = new_node();
  edges_.emplace(EdgeKey{from, returned}, n);
  return n;
}

ThreadModel::NodeId ThreadModel::find_child(NodeId from, std::uint64_t returned) {
  // Most steps take the edge their node took last time (a DPOR varies few values at a time).
  Node& node = nodes_[from];
  if (node.last_next != kNoNode && node.last_returned == returned) return node.last_next;
  const auto it = edges_.find({from, returned});
  if (it == edges_.end()) return kNoNode;
  node.last_returned = returned;
  node.last_next = it->second;
  return it->second;
}

void ThreadModel::disable(std::string why) {
  if (disabled_.empty()) disabled_ = std::move(why);
}

std::optional<std::uint64_t> ThreadModel::load(const Memory& memory, ObjectKey address,
                                               std::uint32_t size) const {
  std::uint64_t value = 0;
  std::uint32_t done = 0;
  // Granule by granule (an access of up to 8 bytes touches one or two): the bytes events of
  // this execution wrote, else those of the initial memory.
  while (done < size) {
    const ObjectKey a = address + done;
    const ObjectKey g = a / kMemoryGranule;
    const auto first = static_cast<unsigned>(a % kMemoryGranule);
    const unsigned count = std::min<unsigned>(size - done, kMemoryGranule - first);
    const auto it = memory.find(g);
    const Granule* written = it != memory.end() ? &it->second : nullptr;
    const Granule* initial = nullptr;
    for (unsigned b = first; b < first + count; ++b, ++done) {
      const Granule* from = written && (written->known >> b & 1) ? written : nullptr;
      if (!from) {
        if (!initial) {
          const auto init = initial_.find(g);
          if (init == initial_.end()) return std::nullopt;
          initial = &init->second;
        }
        if (!(initial->known >> b & 1)) return std::nullopt;
        from = initial;
      }
      value |= std::uint64_t{from->bytes[b]} << (8 * done);
    }
  }
  return value;
}

void ThreadModel::store(Memory& memory, ObjectKey address, std::uint32_t size,
                        std::uint64_t value) {
  for (std::uint32_t i = 0; i < size; ++i) {
    const ObjectKey a = address + i;
    Granule& g = memory[a / kMemoryGranule];
    const unsigned bit = static_cast<unsigned>(a % kMemoryGranule);
    g.bytes[bit] = static_cast<std::uint8_t>(value >> (8 * i));
    g.known |= static_cast<std::uint8_t>(1u << bit);
  }
}

void ThreadModel::forget(Memory& written, Memory& unknown, ObjectKey address, std::uint64_t size) {
  for (std::uint64_t b = 0; b < (size ? size : 1); ++b) {
    const ObjectKey a = address + b;
    const auto bit = static_cast<std::uint8_t>(1u << (a % kMemoryGranule));
    unknown[a / kMemoryGranule].known |= bit;
    if (auto w = written.find(a / kMemoryGranule); w != written.end())
      w->second.known &= static_cast<std::uint8_t>(~bit);
  }
}

bool ThreadModel::see_step(NodeId n, const Operation& op, ThreadId thread) {
  Node& node = nodes_[n];
  if (node.state == State::kUnknown) {
    node.state = State::kPending;
    node.op = op;
    node.modelled = carries_out(op);
    return true;
  }
  if (node.state == State::kPending && same_step(node.op, op)) return true;
  disable("thread " + std::to_string(thread) + " did different things after the same history");
  return false;
}

void ThreadModel::learn(const Trace& t) {
  if (!usable() || t.values.size() != t.events.size() || !clean(t)) return;
  const bool locals = !t.events.empty() && t.local_states.size() == t.events.size();
  local_states_ |= locals;
  std::vector<NodeId> at;  // by thread: its node now; kNoNode once it is no longer followed
  const auto node_of = [&at](ThreadId id) -> NodeId& {
    if (id >= at.size()) at.resize(id + 1, kNoNode);
    return at[id];
  };
  if (main_root_ == kNoNode) main_root_ = new_node();
  node_of(kMainThread) = main_root_;
  Memory written;       // what events of this execution wrote, as far as known
  Memory unknown;       // bytes events wrote with values not recorded (in `known`)
  bool trusted = true;  // whether `written` and `unknown` say what events did to memory
  const auto written_by_event = [&](ObjectKey a) {
    const ObjectKey g = a / kMemoryGranule;
    const unsigned bit = static_cast<unsigned>(a % kMemoryGranule);
    const auto w = written.find(g);
    const auto u = unknown.find(g);
    return (w != written.end() && (w->second.known >> bit & 1)) ||
           (u != unknown.end() && (u->second.known >> bit & 1));
  };

  for (std::size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const AccessValues& values = t.values[i];
    // Memory first, for every event (also of threads no longer followed): it is what the
    // reads of the others are checked against.
    std::uint64_t returned = 0;
    bool known = true;
    if (reads_value(e.op.kind)) {
      if (!(values.known & AccessValues::kRead) || e.op.size == 0 || e.op.size > 8) {
        known = false;
      } else {
        returned = values.read;
        for (std::uint32_t b = 0; trusted && b < e.op.size; ++b) {
          const ObjectKey a = e.op.object + b;
          const auto byte = static_cast<std::uint8_t>(returned >> (8 * b));
          const ObjectKey g = a / kMemoryGranule;
          const unsigned bit = static_cast<unsigned>(a % kMemoryGranule);
          if (written_by_event(a)) {
            auto w = written.find(g);
            if (w != written.end() && (w->second.known >> bit & 1) && w->second.bytes[bit] != byte)
              return disable(
                  "a read saw a value no event wrote (memory written outside the "
                  "program's visible operations)");
            continue;
          }
          Granule& init = initial_[g];
          if ((init.known >> bit & 1) && init.bytes[bit] != byte)
            return disable("memory held other values before the events in two executions");
          init.bytes[bit] = byte;
          init.known |= static_cast<std::uint8_t>(1u << bit);
        }
      }
    }
    if (writes_value(e.op.kind) && (values.known & AccessValues::kWritten) && e.op.size >= 1 &&
        e.op.size <= 8) {
      store(written, e.op.object, e.op.size, values.written);
    } else if (writes_value(e.op.kind)) {
      forget(written, unknown, e.op.object, e.op.size);
    } else if (e.op.kind == OpKind::kFree) {
      forget(written, unknown, e.op.object, e.op.size);
    } else if (touches_everything(e.op)) {
      // It may have written anything: from here on, reads are not checked, nor taken as the
      // initial memory.
      trusted = false;
    } else if (!carries_out(e.op)) {
      for_each_access(e.op, [&](ObjectKey g, ByteMask, ByteMask bytes) {
        for (unsigned bit = 0; bit < kMemoryGranule; ++bit)
          if (bytes >> bit & 1) forget(written, unknown, g * kMemoryGranule + bit, 1);
      });
    }

    const NodeId n = node_of(e.thread);
    if (n == kNoNode) continue;
    if (!see_step(n, e.op, e.thread)) return;
    {
      Node& node = nodes_[n];
      if (locals && !node.local_state) node.local_state = t.local_states[i];
      if (!node.site_known) {
        node.site = i < t.sites.size() ? t.sites[i] : 0;
        node.site_known = true;
      } else if (i < t.sites.size() && node.site != t.sites[i]) {
        return disable("thread " + std::to_string(e.thread) +
                       " did different things after the same history");
      }
      if (e.op.kind == OpKind::kProcessExit) {
        // The process ends here; the execution is clean, so this is how it ended.
        if (node.exit_known && node.exit_outcome != t.outcome)
          return disable("the same exit ended two executions differently");
        node.exit_known = true;
        node.exit_outcome = t.outcome;
        node_of(e.thread) = kNoNode;
        continue;
      }
    }
    if (!carries_out(e.op)) {
      node_of(e.thread) = kNoNode;
      continue;
    }
    if (e.op.kind == OpKind::kThreadJoin) {
      // The joined thread's result, if the joining one asked for it (else nothing), which its
      // end decides: kept with that end for simulate().
      const auto target = static_cast<ThreadId>(e.op.object);
      const NodeId end = target < at.size() ? at[target] : kNoNode;
      Node& join = nodes_[n];
      const bool asked = values.known & AccessValues::kRead;
      if (join.join_asked_known && join.join_asked != asked)
        return disable("thread " + std::to_string(e.thread) +
                       " did different things after the same history");
      join.join_asked = asked;
      join.join_asked_known = true;
      if (asked) {
        returned = values.read;
        if (end == kNoNode || nodes_[end].state != State::kFinished) {
          known = false;
        } else {
          Node& last = nodes_[end];
          if (last.result_known && last.result != values.read)
            return disable("thread " + std::to_string(target) +
                           " ended with different results after the same history");
          last.result = values.read;
          last.result_known = true;
        }
      }
    }
    if (!known) {
      node_of(e.thread) = kNoNode;
      continue;
    }
    const NodeId next = child(n, returned);
    if (writes_value(e.op.kind)) {
      Node& after = nodes_[next];
      if (!(values.known & AccessValues::kWritten)) {
        node_of(e.thread) = kNoNode;
        continue;
      }
      if (after.written_known && after.written != values.written)
        return disable("thread " + std::to_string(e.thread) +
                       " wrote different values after the same history");
      after.written = values.written;
      after.written_known = true;
    }
    if (e.op.kind == OpKind::kThreadCreate) {
      const auto it = child_root_.find(n);
      NodeId root = it != child_root_.end() ? it->second : kNoNode;
      if (root == kNoNode) {
        root = new_node();
        child_root_.emplace(n, root);
      }
      node_of(static_cast<ThreadId>(e.op.object)) = root;
    }
    node_of(e.thread) = next;
    if (i < t.finished_thread.size() && t.finished_thread[i]) {
      Node& after = nodes_[next];
      if (after.state == State::kPending)
        return disable("thread " + std::to_string(e.thread) +
                       " ended and went on after the same history");
      after.state = State::kFinished;
    }
  }
  for (const PendingThread& p : t.pending) {
    const NodeId n = p.thread < at.size() ? at[p.thread] : kNoNode;
    if (n == kNoNode) continue;
    if (!see_step(n, p.op, p.thread)) return;
    if (!nodes_[n].local_state) nodes_[n].local_state = p.local_state;
  }
}

void ThreadModel::start_over() {
  threads_.assign(1, Thread{});
  waiting_.clear();
  owners_.clear();
  memory_.clear();
  memory_undo_.clear();
  undo_.clear();
  current_ = Trace{};
  last_ = kMainThread;
  threads_[kMainThread].node = main_root_;
  waiting_.insert(kMainThread);
}

void ThreadModel::rewind(std::size_t steps) {
  while (undo_.size() > steps) {
    const StepUndo& u = undo_.back();
    threads_[u.chosen] = u.before;
    if (u.started != kNoThread) threads_[u.started] = Thread{};
    waiting_ = u.waiting;
    last_ = u.last;
    if (u.mutex) {
      std::erase_if(owners_, [&](const auto& o) { return o.first == u.mutex; });
      if (u.owner != kNoThread) owners_.emplace_back(u.mutex, u.owner);
    }
    while (memory_undo_.size() > u.memory_undo) {
      memory_[memory_undo_.back().granule] = memory_undo_.back().before;
      memory_undo_.pop_back();
    }
    undo_.pop_back();
  }
  current_.keep_steps(steps);
}

const Trace* ThreadModel::simulate(const TestDirective& d) {
  if (!usable() || main_root_ == kNoNode || nodes_[main_root_].state != State::kPending ||
      !d.inputs.empty())
    return nullptr;
  // Resume after the steps the directive's prefix repeats, up to where its sleep set starts
  // (before it, no thread sleeps: the state is the same whichever directive chose the steps;
  // and a random policy has drawn nothing yet).
  if (threads_.empty()) start_over();
  std::size_t resume = 0;
  const std::size_t shared = std::min({undo_.size(), d.prefix.size(), d.sleep_from});
  while (resume < shared && d.prefix[resume] == current_.events[resume].thread) ++resume;
  rewind(resume);
  current_.pending.clear();
  current_.outcome = Outcome::kComplete;
  current_.prefix_followed = resume;
  current_.diverged_at.reset();

  const auto owner_of = [&](ObjectKey m) {
    for (const auto& [mutex, owner] : owners_)
      if (mutex == m) return owner;
    return kNoThread;
  };
  // The scheduler's rules for the modelled operations (sync_rules.hpp).
  const auto is_enabled = [&](ThreadId id) {
    return sync_rules::lock_or_join_may_run(
        nodes_[threads_[id].node].op, owner_of,
        [&](ThreadId target) { return target < threads_.size() && threads_[target].finished; });
  };

  DirectiveFollower follower(d);
  // The loop of Scheduler::Impl::run, step for step, with the same DirectiveFollower: it must
  // choose what the runtime would. Everything that can make it decline is decided before the
  // step changes any state, so that the steps before stay resumable.
  for (std::size_t step = resume;; ++step) {
    follower.start_step(step, current_.events.empty() ? nullptr : &current_.events.back());
    ThreadSet enabled, exiting;
    for (ThreadId id = waiting_.first(); id != kNoThread; id = waiting_.next_from(id + 1)) {
      const Thread& th = threads_[id];
      // An operation it does not carry out, or a thread at the step bound (a bug report).
      if (!nodes_[th.node].modelled || th.steps >= max_steps_) return nullptr;
      if (is_enabled(id))
        (nodes_[th.node].op.kind == OpKind::kProcessExit ? exiting : enabled).insert(id);
    }
    if (enabled.empty()) enabled = std::move(exiting);
    if (enabled.empty()) {
      if (!waiting_.empty()) return nullptr;  // a deadlock: a bug, found by running it
      break;
    }
    const ThreadId chosen =
        follower.choose(step, enabled, last_, current_.prefix_followed, current_.diverged_at,
                        {this, [](const void* self, ThreadId id) -> const Operation& {
                           const auto& model = *static_cast<const ThreadModel*>(self);
                           return model.nodes_[model.threads_[id].node].op;
                         }});
    if (chosen == kNoThread) {
      current_.outcome = Outcome::kSleepBlocked;
      break;
    }

    // What the step does, decided first.
    const NodeId n = threads_[chosen].node;
    const Node& node = nodes_[n];
    const Operation& op = node.op;
    if (!node.site_known || (local_states_ && !node.local_state)) return nullptr;
    if (op.kind == OpKind::kProcessExit && !node.exit_known) return nullptr;
    if (sync_rules::gives_a_mutex_it_does_not_hold(op, chosen, owner_of(mutex_of(op))))
      return nullptr;  // misuse: a bug
    NodeId child_root = kNoNode;
    if (op.kind == OpKind::kThreadCreate) {
      const auto root = child_root_.find(n);
      if (root == child_root_.end() || nodes_[root->second].state != State::kPending)
        return nullptr;
      child_root = root->second;
    }
    AccessValues values;
    NodeId next = kNoNode;
    if (op.kind != OpKind::kProcessExit) {
      std::uint64_t returned = 0;
      if (op.kind == OpKind::kThreadJoin) {
        const Node& end = nodes_[threads_[static_cast<ThreadId>(op.object)].node];
        if (!node.join_asked_known || (node.join_asked && !end.result_known)) return nullptr;
        if (node.join_asked) {
          returned = end.result;
          values.read = returned;
          values.known |= AccessValues::kRead;
        }
      }
      if (reads_value(op.kind)) {
        const auto value = load(memory_, op.object, op.size);
        if (!value) return nullptr;
        returned = *value;
        values.read = returned;
        values.known |= AccessValues::kRead;
      }
      next = find_child(n, returned);
      // A step never seen, or after which the thread stopped (a bug, a busy-wait loop).
      if (next == kNoNode || nodes_[next].state == State::kUnknown) return nullptr;
      if (writes_value(op.kind)) {
        if (!nodes_[next].written_known) return nullptr;
        values.written = nodes_[next].written;
        values.known |= AccessValues::kWritten;
      }
    }

    // The step.
    StepUndo u;
    u.chosen = chosen;
    u.before = threads_[chosen];
    u.waiting = waiting_;
    u.last = last_;
    u.memory_undo = memory_undo_.size();
    last_ = chosen;
    current_.add_step({chosen, op}, std::move(enabled), node.site, false, values);
    if (local_states_) current_.add_local_state(node.local_state);
    if (acquires_mutex(op) || releases_mutex(op)) {
      u.mutex = mutex_of(op);
      u.owner = owner_of(u.mutex);
      std::erase_if(owners_, [&](const auto& o) { return o.first == u.mutex; });
      const ThreadId holder = sync_rules::holder_after(op, chosen, u.owner);
      if (holder != kNoThread) owners_.emplace_back(u.mutex, holder);
    }
    if (child_root != kNoNode) {
      const auto c = static_cast<ThreadId>(op.object);
      if (c >= threads_.size()) threads_.resize(c + 1);
      threads_[c].node = child_root;
      waiting_.insert(c);
      u.started = c;
    }
    if (values.known & AccessValues::kWritten) {
      for (ObjectKey g = op.object / kMemoryGranule;
           g <= (op.object + op.size - 1) / kMemoryGranule; ++g)
        memory_undo_.push_back({g, memory_[g]});
      store(memory_, op.object, op.size, values.written);
    }
    Thread& me = threads_[chosen];
    ++me.steps;
    if (next != kNoNode) {
      me.node = next;
      if (nodes_[next].state == State::kFinished) {
        me.finished = true;
        waiting_.erase(chosen);
        current_.finished_thread.back() = true;
      }
    }
    undo_.push_back(std::move(u));
    if (op.kind == OpKind::kProcessExit) {
      current_.outcome = node.exit_outcome;
      break;  // the exiting thread stays pending at its exit
    }
  }
  for (ThreadId id = waiting_.first(); id != kNoThread; id = waiting_.next_from(id + 1))
    current_.pending.push_back(
        {id, nodes_[threads_[id].node].op, is_enabled(id), nodes_[threads_[id].node].local_state});
  current_.walk_log2_weight = follower.walk_log2_weight();
  return &current_;
}

std::string first_difference(const Trace& computed, const Trace& ran) {
  const auto at = [](std::size_t i, const char* what) {
    return std::string(what) + " of step " + std::to_string(i + 1);
  };
  const std::size_t n = std::min(computed.events.size(), ran.events.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!(computed.events[i] == ran.events[i])) return at(i, "the event");
    if (!(computed.enabled[i] == ran.enabled[i])) return at(i, "the enabled threads");
    if (computed.finished_thread[i] != ran.finished_thread[i]) return at(i, "the thread's end");
    if (i < ran.sites.size() && computed.sites[i] != ran.sites[i]) return at(i, "the site");
    if (i < ran.values.size()) {
      const AccessValues& c = computed.values[i];
      const AccessValues& r = ran.values[i];
      if (((c.known & AccessValues::kRead) &&
           (!(r.known & AccessValues::kRead) || c.read != r.read)) ||
          ((c.known & AccessValues::kWritten) &&
           (!(r.known & AccessValues::kWritten) || c.written != r.written)))
        return at(i, "the values");
    }
  }
  if (computed.events.size() != ran.events.size())
    return "the number of steps (" + std::to_string(computed.events.size()) + " computed, " +
           std::to_string(ran.events.size()) + " ran)";
  if (computed.outcome != ran.outcome)
    return std::string("the outcome (") + outcome_name(computed.outcome) + " computed, " +
           outcome_name(ran.outcome) + " ran)";
  if (!ran.failures.empty()) return "the failures";
  if (computed.prefix_followed != ran.prefix_followed || computed.diverged_at != ran.diverged_at)
    return "how far the prefix was followed";
  if (computed.pending.size() != ran.pending.size()) return "the threads pending at the end";
  for (std::size_t i = 0; i < ran.pending.size(); ++i) {
    const PendingThread& c = computed.pending[i];
    const PendingThread& r = ran.pending[i];
    if (c.thread != r.thread || !(c.op == r.op) || c.enabled != r.enabled)
      return "the threads pending at the end";
  }
  return "";
}

const Trace& ModelledRunner::run(const TestDirective& directive,
                                 const std::function<Trace(const TestDirective&)>& run_for_real) {
  ++executions_;
  const Trace* computed = model_.simulate(directive);
  if (computed) ++modelled_;
  if (computed && mode_ == Mode::kOn) return *computed;
  ran_ = run_for_real(directive);
  if (computed) {
    const std::string difference = first_difference(*computed, ran_);
    if (!difference.empty())
      throw ModelError("the thread model computed execution " + std::to_string(executions_) +
                       " otherwise than the program ran it (" + difference +
                       "): run with --thread-model=off, and please report it");
  }
  model_.learn(ran_);
  return ran_;
}

}  // namespace weft::explorer
