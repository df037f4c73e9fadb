#include "syn_sequence.hpp"

#include <algorithm>
#include <optional>

namespace weft::explorer::reachability {
namespace {

// The lines every object joins once an operation touched everything / every channel.
const ObjectKey kEverything = sync_key(Domain::kProcess, 1);
const ObjectKey kEveryChannel = sync_key(Domain::kChannel, (ObjectKey{1} << 58) - 1);

std::uint32_t at(const Clock& c, ThreadId t) {
  return t < c.size() ? c[t] : 0;
}
void join(Clock& into, const Clock& other) {
  if (into.size() < other.size()) into.resize(other.size(), 0);
  for (std::size_t t = 0; t < other.size(); ++t) into[t] = std::max(into[t], other[t]);
}

// The same call, whatever it returned.
bool same_call(const Operation& a, const Operation& b) {
  return a.kind == b.kind && a.object == b.object && a.partner == b.partner && a.timed == b.timed &&
         a.size == b.size && (domain_of(a.kind) != Domain::kChannel || a.footprint == b.footprint);
}

// How an operation changes a semaphore's count.
int sem_delta(const Operation& op) {
  switch (op.kind) {
    case OpKind::kSemPost:
      return 1;
    case OpKind::kSemWait:
      return -1;
    case OpKind::kSemTryWait:
      return op.result ? -1 : 0;
    default:
      return 0;
  }
}

// The second half of an in-process rendezvous send (weft::channel of capacity 0).
bool is_rendezvous_wait(const Operation& op) {
  return op.kind == OpKind::kChannelReceive && op.partner != 0;
}

// The channel a receive or selective wait took a message from, or 0.
ObjectKey channel_taken_from(const Operation& op) {
  if (op.kind == OpKind::kChannelReceive && op.partner == 0 && op.result) return op.object;
  if (op.kind == OpKind::kChannelSelect && op.result > 0 && op.footprint.known &&
      op.result <= op.footprint.count)
    return op.footprint.entries[op.result - 1];
  return 0;
}

}  // namespace

// ---- lines -------------------------------------------------------------------------------

ObjectKey Lines::find(ObjectKey object) {
  auto it = parent_.find(object);
  if (it == parent_.end()) {
    parent_.emplace(object, object);
    seen_before_[object] = false;
    if (all_ && object != all_) merge(object, all_);
    if (channels_ && object != channels_ && is_channel_key(object)) merge(object, channels_);
    return find(object);
  }
  ObjectKey root = object;
  while (parent_[root] != root) root = parent_[root];
  while (parent_[object] != root) {  // path compression
    const ObjectKey next = parent_[object];
    parent_[object] = root;
    object = next;
  }
  return root;
}

void Lines::merge(ObjectKey a, ObjectKey b) {
  const ObjectKey ra = find(a), rb = find(b);
  if (ra == rb) return;
  const bool old_a = seen_before_[ra], old_b = seen_before_[rb];
  if (old_a && old_b) ++late_merges_;
  parent_[std::max(ra, rb)] = std::min(ra, rb);
  seen_before_[std::min(ra, rb)] = old_a || old_b;
}

void Lines::learn(const Operation& op) {
  const SyncObjects s = sync_objects(op);
  if (s.everything && !all_) {
    all_ = kEverything;
    std::vector<ObjectKey> known;
    for (const auto& [key, parent] : parent_) known.push_back(key);
    find(all_);
    for (ObjectKey k : known) merge(k, all_);
  }
  if (s.every_channel && !channels_) {
    channels_ = kEveryChannel;
    std::vector<ObjectKey> known;
    for (const auto& [key, parent] : parent_)
      if (is_channel_key(key)) known.push_back(key);
    find(channels_);
    for (ObjectKey k : known) merge(k, channels_);
  }
  const auto keys = s.list();
  for (std::size_t i = 0; i < keys.size(); ++i) merge(keys[0], keys[i]);
}

void Lines::learn(const Trace& trace) {
  for (auto& [line, before] : seen_before_) before = true;
  for (const Event& e : trace.events) learn(e.op);
  for (const PendingThread& p : trace.pending) learn(p.op);
}

ObjectKey Lines::line_of(const Operation& op) {
  learn(op);
  const SyncObjects s = sync_objects(op);
  if (s.everything) return find(all_);
  if (s.every_channel) return find(channels_);
  return s.count ? find(s.keys[0]) : 0;
}

std::vector<ObjectKey> Lines::members(ObjectKey object) {
  const ObjectKey root = find(object);
  std::vector<ObjectKey> keys;
  for (const auto& [key, parent] : parent_)
    if (find(key) == root) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

// ---- the sequence ---------------------------------------------------------------------------

SynSequence::SynSequence(const Trace& trace, Lines& lines) : trace_(trace) {
  lines.learn(trace);
  std::vector<Clock> thread_clock;
  std::vector<std::uint32_t> count;
  std::unordered_map<ObjectKey, Clock> line_last;
  std::unordered_map<ObjectKey, std::vector<Clock>> taken;  // by channel: who took each message
  std::unordered_map<ObjectKey, std::size_t> taken_when_closed;  // by closed channel
  const auto grow = [&](ThreadId t) {
    if (t >= thread_clock.size()) {
      thread_clock.resize(t + 1);
      count.resize(t + 1, 0);
      steps_of_.resize(t + 1);
      started_at_.resize(t + 1, static_cast<std::size_t>(-1));
      started_at_[kMainThread] = 0;
    }
  };
  events_.reserve(trace.events.size());
  for (std::size_t j = 0; j < trace.events.size(); ++j) {
    const Event& e = trace.events[j];
    grow(e.thread);
    SynEvent s;
    s.call = {e.thread, count[e.thread]};
    s.at_call = thread_clock[e.thread];
    // The sender's wait until its rendezvous message is taken completes with the taking (one
    // synchronization pair, as RichTest models a rendezvous), not on the channel's line, once
    // the message was taken before any close, whenever the wait itself runs. One that a close
    // ended (the channel closed before the taking) is on the line, racing with the close.
    const std::vector<Clock>* takers = nullptr;
    if (is_rendezvous_wait(e.op))
      if (const auto it = taken.find(e.op.object); it != taken.end()) {
        const auto closed = taken_when_closed.find(e.op.object);
        const std::size_t before_close =
            closed == taken_when_closed.end() ? it->second.size() : closed->second;
        if (e.op.partner <= before_close) takers = &it->second;
      }
    s.line = takers ? 0 : lines.line_of(e.op);
    s.done = s.at_call;
    if (s.line) {
      if (auto it = line_last.find(s.line); it != line_last.end()) s.on_line = it->second;
      join(s.done, s.on_line);
    }
    if (takers) join(s.done, (*takers)[e.op.partner - 1]);
    const auto other = static_cast<ThreadId>(e.op.object);
    if (e.op.kind == OpKind::kThreadJoin) {
      grow(other);
      join(s.done, thread_clock[other]);
    }
    if (s.done.size() <= e.thread) s.done.resize(e.thread + 1, 0);
    s.done[e.thread] = ++count[e.thread];
    if (s.line) line_last[s.line] = s.done;
    if (const ObjectKey channel = channel_taken_from(e.op)) taken[channel].push_back(s.done);
    if (e.op.kind == OpKind::kChannelClose && !taken_when_closed.count(e.op.object))
      taken_when_closed[e.op.object] = taken[e.op.object].size();
    thread_clock[e.thread] = s.done;
    if (e.op.kind == OpKind::kThreadCreate) {
      grow(other);
      thread_clock[other] = s.done;
      started_at_[other] = j + 1;
    }
    steps_of_[e.thread].push_back(j);
    events_.push_back(std::move(s));
  }
  for (const PendingThread& p : trace.pending) {
    grow(p.thread);
    pending_.push_back(
        {{p.thread, count[p.thread]}, p.op, lines.line_of(p.op), thread_clock[p.thread]});
  }
}

bool SynSequence::in_past(std::size_t e, const Clock& clock) const {
  return at(clock, events_[e].call.thread) >= events_[e].call.index + 1;
}

std::uint32_t SynSequence::events_before(ThreadId t, std::size_t step) const {
  if (t >= steps_of_.size()) return 0;
  const auto& s = steps_of_[t];
  return static_cast<std::uint32_t>(std::lower_bound(s.begin(), s.end(), step) - s.begin());
}

const Clock* SynSequence::call_clock(const Call& c) const {
  if (c.thread < steps_of_.size() && c.index < steps_of_[c.thread].size())
    return &events_[steps_of_[c.thread][c.index]].at_call;
  for (const PendingCall& p : pending_)
    if (p.call == c) return &p.at_call;
  return nullptr;
}

const Operation* SynSequence::call_op(const Call& c) const {
  if (c.thread < steps_of_.size() && c.index < steps_of_[c.thread].size())
    return &trace_.events[steps_of_[c.thread][c.index]].op;
  for (const PendingCall& p : pending_)
    if (p.call == c) return &p.op;
  return nullptr;
}

ObjectKey SynSequence::call_line(const Call& c) const {
  if (c.thread < steps_of_.size() && c.index < steps_of_[c.thread].size())
    return events_[steps_of_[c.thread][c.index]].line;
  for (const PendingCall& p : pending_)
    if (p.call == c) return p.line;
  return 0;
}

// Whether call `c` (operation `op`) could complete on event e's line in the line's state before
// e: the paper's OpenList (Table 2). When c's thread was at c at that step, the scheduler said
// so (its operation depends only on its line's state, which a replay of c-struct(e) repeats).
// Otherwise the line's state is worked out: a mutex's holder, a semaphore's count; for other
// objects, another thread making the same call between e and the line's previous completion
// tells. A call that cannot be judged counts as open: its variant is then not replayable, which
// the strategy counts (a gap), never a lost sequence.
bool SynSequence::open_at(std::size_t e, const Call& c, const Operation& op) const {
  if (!may_block(op.kind)) return true;
  if (events_before(c.thread, e) == c.index) return trace_.enabled[e].contains(c.thread);
  if (op.kind == OpKind::kMutexLock) {
    ThreadId owner = kNoThread;
    for (std::size_t k = 0; k < e; ++k) {
      const Operation& x = trace_.events[k].op;
      const bool on_mutex = domain_of(x.kind) == Domain::kMutex || x.kind == OpKind::kCondWait ||
                            x.kind == OpKind::kCondWake;
      if (!on_mutex || mutex_of(x) != op.object) continue;
      if (acquires_mutex(x)) owner = trace_.events[k].thread;
      if (releases_mutex(x)) owner = kNoThread;
    }
    return owner == kNoThread || owner == c.thread;
  }
  if (op.kind == OpKind::kSemWait) {
    // A reference point: a wait that ran (it found `result` units), or one that could not.
    std::optional<std::pair<std::size_t, std::int64_t>> ref;
    for (std::size_t k = 0; k < trace_.events.size() && !ref; ++k) {
      const Operation& x = trace_.events[k].op;
      if (x.kind == OpKind::kSemWait && x.object == op.object && x.result < 255)
        ref = {k, x.result};
    }
    for (std::size_t k = 0; k < trace_.events.size() && !ref; ++k)
      for (ThreadId u = 0; u < steps_of_.size() && !ref; ++u) {
        const std::uint32_t i = events_before(u, k);
        const Operation* x = call_op({u, i});
        if (x && x->kind == OpKind::kSemWait && x->object == op.object &&
            !trace_.enabled[k].contains(u))
          ref = {k, 0};
      }
    if (!ref) return true;
    std::int64_t count = ref->second;
    for (std::size_t k = ref->first; k < e; ++k)
      if (trace_.events[k].op.object == op.object &&
          domain_of(trace_.events[k].op.kind) == Domain::kSemaphore)
        count += sem_delta(trace_.events[k].op);
    for (std::size_t k = e; k < ref->first; ++k)
      if (trace_.events[k].op.object == op.object &&
          domain_of(trace_.events[k].op.kind) == Domain::kSemaphore)
        count -= sem_delta(trace_.events[k].op);
    return count > 0;
  }
  if (domain_of(op.kind) == Domain::kChannel && !op.timed) {
    if (op.kind == OpKind::kChannelSend) {
      // Open below the channel's capacity (or once closed). The capacity is bounded by the sends
      // the trace shows running, or waiting, at known counts.
      const ChannelState now = channel_state(op.object, e);
      if (now.closed) return true;
      if (op.partner) return now.messages < static_cast<std::int64_t>(op.partner);
      std::int64_t room_at_least = 0, room_below = INT64_MAX;
      for (std::size_t k = 0; k <= trace_.events.size(); ++k)
        for (ThreadId u = 0; u < steps_of_.size(); ++u) {
          if (k < started_at_[u]) continue;
          const Operation* x = call_op({u, events_before(u, k)});
          if (!x || x->kind != OpKind::kChannelSend || x->object != op.object || x->timed) continue;
          const ChannelState then = channel_state(op.object, k);
          if (then.closed) continue;
          const bool ran = k < trace_.events.size() && trace_.events[k].thread == u;
          if (ran || (k < trace_.events.size() && trace_.enabled[k].contains(u)))
            room_at_least = std::max(room_at_least, then.messages + 1);
          else if (k < trace_.events.size())
            room_below = std::min(room_below, then.messages);
        }
      if (now.messages < room_at_least) return true;
      return now.messages < room_below;  // unknown counts as open
    }
    const auto ready = [&](ObjectKey channel) {
      const ChannelState c = channel_state(channel, e);
      if (op.kind == OpKind::kChannelReceive && op.partner != 0)
        return c.closed || c.taken >= static_cast<std::int64_t>(op.partner);
      if (op.kind == OpKind::kChannelSelect && op.partner == 1) return c.messages > 0;
      return c.messages > 0 || c.closed;
    };
    if (op.kind == OpKind::kChannelReceive) return ready(op.object);
    if (op.kind == OpKind::kChannelSelect) {
      if (!op.footprint.known) return true;
      for (std::size_t i = 0; i < op.footprint.count; ++i)
        if (ready(op.footprint.entries[i])) return true;
      return false;
    }
  }
  // Another thread at the same call while the line was in the state e found.
  std::size_t from = 0;
  for (std::size_t k = e; k-- > 0;)
    if (events_[k].line == events_[e].line) {
      from = k + 1;
      break;
    }
  for (std::size_t k = from; k <= e; ++k)
    for (ThreadId u = 0; u < steps_of_.size(); ++u) {
      if (k < started_at_[u]) continue;  // not created yet
      const Operation* x = call_op({u, events_before(u, k)});
      if (x && same_call(*x, op)) return trace_.enabled[k].contains(u);
    }
  return true;
}

// Messages in a channel before `step` (in-process channels: a send puts one, a receive or a
// selective wait takes one; a kernel channel's read may take several writes' bytes, which only
// makes a receive look open where it is not).
SynSequence::ChannelState SynSequence::channel_state(ObjectKey channel, std::size_t step) const {
  ChannelState c;
  for (std::size_t k = 0; k < step; ++k) {
    const Operation& x = trace_.events[k].op;
    if (domain_of(x.kind) != Domain::kChannel) continue;
    const bool here = x.object == channel;
    if (here && x.kind == OpKind::kChannelSend && x.result) ++c.messages;
    if (here && x.kind == OpKind::kChannelClose) c.closed = true;
    if (here && x.kind == OpKind::kChannelReceive && x.partner == 0 && x.result)
      --c.messages, ++c.taken;
    if (x.kind == OpKind::kChannelSelect && x.result > 0 && x.footprint.known &&
        x.result <= x.footprint.count && x.footprint.entries[x.result - 1] == channel)
      --c.messages, ++c.taken;
  }
  return c;
}

std::vector<Call> SynSequence::race_set(
    std::size_t e, const std::function<bool(const Call&, const Operation&)>& excluded) const {
  std::vector<Call> set;
  const SynEvent& r = events_[e];
  if (!r.line) return set;
  ThreadId threads = static_cast<ThreadId>(steps_of_.size());
  for (ThreadId t = 0; t < threads; ++t) {
    if (t == r.call.thread) continue;
    // Its first call on the line that did not complete before e (FIFO, Prop. 2 (4)).
    std::optional<Call> call;
    for (std::size_t k : steps_of_[t])
      if (k > e && events_[k].line == r.line) {
        call = events_[k].call;
        break;
      }
    if (!call)
      for (const PendingCall& p : pending_)
        if (p.call.thread == t && p.line == r.line) call = p.call;
    if (!call) continue;
    if (in_past(e, *call_clock(*call))) continue;  // e happens before it (Prop. 2 (2))
    const Operation& op = *call_op(*call);
    if (!open_at(e, *call, op)) continue;
    if (excluded && excluded(*call, op)) continue;
    set.push_back(*call);
  }
  return set;
}

}  // namespace weft::explorer::reachability
