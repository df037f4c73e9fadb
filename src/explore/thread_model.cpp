#include "weft/explore/thread_model.hpp"

#include <algorithm>

#include "weft/trace/dependence.hpp"
#include "weft/trace/directive_follower.hpp"
#include "weft/trace/hash_mix.hpp"
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
/// thread that had not finished is among the pending ones, at its next operation; and every
/// input it read was followed (tracked, given the directive's value, never made concrete
/// without a constraint).
bool clean(const Trace& t) {
  if (!t.failures.empty() || t.runtime_state_read || t.read_fixed_inputs || t.symbolic.untracked ||
      t.symbolic.unconstrained_concretisations > 0)
    return false;
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

bool is_atomic_access(OpKind kind) {
  return kind == OpKind::kAtomicLoad || kind == OpKind::kAtomicStore ||
         kind == OpKind::kAtomicRmw || kind == OpKind::kAtomicCas;
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

ThreadModel::ThreadModel(std::uint32_t max_steps_per_thread, bool segments, bool rc11)
    : max_steps_(max_steps_per_thread), segments_(segments), rc11_(rc11) {}

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
                                               std::uint32_t size, bool& from_inputs) const {
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
      if (from) from_inputs |= from->from_inputs >> b & 1;
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

void ThreadModel::store(Memory& memory, ObjectKey address, std::uint32_t size, std::uint64_t value,
                        std::uint32_t expression) {
  for (std::uint32_t i = 0; i < size; ++i) {
    const ObjectKey a = address + i;
    Granule& g = memory[a / kMemoryGranule];
    const auto b = static_cast<unsigned>(a % kMemoryGranule);
    const auto bit = static_cast<std::uint8_t>(1u << b);
    g.bytes[b] = static_cast<std::uint8_t>(value >> (8 * i));
    g.known |= bit;
    g.from_inputs =
        static_cast<std::uint8_t>(expression ? g.from_inputs | bit : g.from_inputs & ~bit);
    g.source[b] = expression;
    g.offset[b] = static_cast<std::uint8_t>(i);
  }
}

std::optional<std::uint64_t> ThreadModel::read_key(const Memory& memory, ObjectKey address,
                                                   std::uint32_t size, std::uint64_t value) {
  std::uint64_t sources = 0;
  bool symbolic = false;
  for (std::uint32_t i = 0; i < size; ++i) {
    const ObjectKey a = address + i;
    const auto it = memory.find(a / kMemoryGranule);
    if (it == memory.end()) continue;
    const Granule& g = it->second;
    const auto b = static_cast<unsigned>(a % kMemoryGranule);
    if (!((g.known & g.from_inputs) >> b & 1)) continue;
    if (g.source[b] == kUnknownSource) return std::nullopt;
    symbolic = true;
    // (byte, expression, its byte), mixed to 64 bits, so that a key made of sources and one
    // made of a plain value do not meet in practice.
    sources = hash_mix(sources,
                       (std::uint64_t{g.source[b]} << 16) | (std::uint64_t{i} << 8) | g.offset[b]);
  }
  // The bytes computed from inputs are known by their sources alone: their values follow from
  // the inputs, which the branches after the read decide about.
  if (!symbolic) return value;
  std::uint64_t plain = value;
  for (std::uint32_t i = 0; i < size; ++i) {
    const ObjectKey a = address + i;
    const auto it = memory.find(a / kMemoryGranule);
    if (it != memory.end() &&
        ((it->second.known & it->second.from_inputs) >> (a % kMemoryGranule) & 1))
      plain &= ~(std::uint64_t{0xff} << (8 * i));
  }
  return plain ^ sources;
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

std::uint32_t ThreadModel::number_of(InputKey key, std::uint8_t width) {
  const auto [it, added] =
      input_numbers_.try_emplace(key.packed(), static_cast<std::uint32_t>(input_keys_.size()));
  if (added) {
    input_keys_.push_back(key);
    input_widths_.push_back(width);
  }
  return it->second;
}

ThreadModel::NodeId ThreadModel::see_local_code(NodeId n, const std::vector<VariantInput>& inputs,
                                                const std::vector<Branch>& branches,
                                                ThreadId thread) {
  const auto different = [&] {
    disable("thread " + std::to_string(thread) + " did different things after the same history");
    return kNoNode;
  };
  Node& node = nodes_[n];
  if (inputs.empty() && branches.empty()) return node.state == State::kLocalCode ? different() : n;
  if (node.state == State::kUnknown) node.state = State::kLocalCode;
  if (node.state != State::kLocalCode) return different();
  std::uint32_t* link = &node.first_variant;
  for (std::uint32_t v = node.first_variant; v != kNoVariant; v = variants_[v].next) {
    const Variant& known = variants_[v];
    link = &variants_[v].next;
    const auto* b = &branches_[known.branches_from];
    const std::uint32_t common =
        std::min<std::uint32_t>(known.branch_count, static_cast<std::uint32_t>(branches.size()));
    std::uint32_t k = 0;
    while (k < common && b[k] == branches[k]) ++k;
    const auto* in = &variant_inputs_[known.inputs_from];
    if (k == known.branch_count && k == branches.size()) {
      if (!std::equal(inputs.begin(), inputs.end(), in, in + known.input_count)) return different();
      return known.end;
    }
    // The code is a function of the history and the sides taken: two runs of it part at a
    // branch on one condition.
    if (k == common || b[k].condition != branches[k].condition || b[k].kind != branches[k].kind ||
        b[k].site != branches[k].site)
      return different();
  }
  Variant v;
  v.inputs_from = static_cast<std::uint32_t>(variant_inputs_.size());
  v.input_count = static_cast<std::uint32_t>(inputs.size());
  v.branches_from = static_cast<std::uint32_t>(branches_.size());
  v.branch_count = static_cast<std::uint32_t>(branches.size());
  variant_inputs_.insert(variant_inputs_.end(), inputs.begin(), inputs.end());
  branches_.insert(branches_.end(), branches.begin(), branches.end());
  v.end = new_node();
  *link = static_cast<std::uint32_t>(variants_.size());
  variants_.push_back(v);
  return v.end;
}

void ThreadModel::learn(const Trace& t) {
  if (!usable() || t.values.size() != t.events.size() || !clean(t)) return;
  // With segments, a thread's local code is followed by its plain reads only: code that reads
  // inputs too is not learnt (which of the two it did first, the record does not say).
  if (segments_ && (!t.segments_recorded || !t.symbolic.inputs.empty())) return;
  const bool locals = !t.events.empty() && t.local_states.size() == t.events.size();
  local_states_ |= locals;
  std::vector<NodeId> at;  // by thread: its node now; kNoNode once it is no longer followed
  const auto node_of = [&at](ThreadId id) -> NodeId& {
    if (id >= at.size()) at.resize(id + 1, kNoNode);
    return at[id];
  };
  if (main_root_ == kNoNode) main_root_ = new_node();
  node_of(kMainThread) = main_root_;

  // Inputs and branches on them, by thread in order, taken local code by local code: the code
  // a thread runs after its event at step i reads and branches at step i + 1 (a new thread's
  // first code runs inside its creation's step, main's before the first).
  const InputObservations& sym = t.symbolic;
  std::vector<std::uint32_t> numbers(sym.inputs.size());
  std::vector<std::vector<std::uint32_t>> inputs_of, branches_of;  // by thread: indices
  for (std::uint32_t k = 0; k < sym.inputs.size(); ++k) {
    numbers[k] = number_of(sym.inputs[k].key, sym.inputs[k].width);
    const ThreadId th = sym.inputs[k].key.thread;
    if (th >= inputs_of.size()) inputs_of.resize(th + 1);
    inputs_of[th].push_back(k);
  }
  for (std::uint32_t k = 0; k < sym.branches.size(); ++k) {
    const ThreadId th = sym.branches[k].thread;
    if (th >= branches_of.size()) branches_of.resize(th + 1);
    branches_of[th].push_back(k);
  }
  std::vector<std::size_t> next_input(inputs_of.size()), next_branch(branches_of.size());
  std::vector<Branch> branches;
  std::vector<VariantInput> read;
  // The entries of thread th's list `of` (indices of `all`) at step `step`, past the cursor:
  // [from, end); `skipped` if entries of earlier steps were passed over.
  const auto at_step = [](const auto& all, const auto& of, std::vector<std::size_t>& cursor,
                          ThreadId th, std::size_t step, std::size_t& from, std::size_t& end,
                          bool& skipped) {
    from = end = 0;
    if (th >= of.size()) return;
    std::size_t& k = cursor[th];
    while (k < of[th].size() && all[of[th][k]].step < step) ++k, skipped = true;
    from = k;
    while (k < of[th].size() && all[of[th][k]].step == step) ++k;
    end = k;
  };
  // Follows `th`'s local code before step `step`; false if that disabled the model.
  const auto local_code_of = [&](ThreadId th, std::size_t step) {
    bool skipped = false;  // inputs or branches of code that was not followed
    std::size_t from_input, end_input, from_branch, end_branch;
    at_step(sym.inputs, inputs_of, next_input, th, step, from_input, end_input, skipped);
    at_step(sym.branches, branches_of, next_branch, th, step, from_branch, end_branch, skipped);
    const NodeId n = node_of(th);
    if (n == kNoNode) return true;
    if (skipped) {
      node_of(th) = kNoNode;
      return true;
    }
    read.clear();
    for (std::size_t k = from_input; k < end_input; ++k) {
      const InputRead& in = sym.inputs[inputs_of[th][k]];
      const auto [name, added] =
          name_numbers_.try_emplace(in.name, static_cast<std::uint32_t>(names_.size()));
      if (added) names_.push_back(in.name);
      read.push_back({numbers[inputs_of[th][k]], name->second, in.width, in.is_signed});
    }
    branches.clear();
    bool ends = false;  // a failed assumption: the thread goes no further
    for (std::size_t k = from_branch; k < end_branch; ++k) {
      const SymbolicBranch& b = sym.branches[branches_of[th][k]];
      branches.push_back(
          {pool_.import(sym.expressions, b.condition, numbers), b.taken, b.kind, b.site});
      ends |= b.kind == BranchKind::kAssume && !b.taken;
    }
    const NodeId end = see_local_code(n, read, branches, th);
    if (end == kNoNode) return false;
    node_of(th) = ends ? kNoNode : end;
    return true;
  };
  if (!local_code_of(kMainThread, 0)) return;
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

  // A read of `value` from [address, address+size) against what events wrote in this execution
  // and the memory before them; false if that disabled the model.
  const auto check_read = [&](ObjectKey address, std::uint32_t size, std::uint64_t value) {
    for (std::uint32_t b = 0; trusted && b < size; ++b) {
      const ObjectKey a = address + b;
      const auto byte = static_cast<std::uint8_t>(value >> (8 * b));
      const ObjectKey g = a / kMemoryGranule;
      const unsigned bit = static_cast<unsigned>(a % kMemoryGranule);
      if (written_by_event(a)) {
        auto w = written.find(g);
        if (w != written.end() && (w->second.known >> bit & 1) && w->second.bytes[bit] != byte) {
          disable(
              "a read saw a value no event wrote (memory written outside the program's visible "
              "operations)");
          return false;
        }
        continue;
      }
      Granule& init = initial_[g];
      if ((init.known >> bit & 1) && init.bytes[bit] != byte) {
        disable("memory held other values before the events in two executions");
        return false;
      }
      init.bytes[bit] = byte;
      init.known |= static_cast<std::uint8_t>(1u << bit);
    }
    return true;
  };
  const auto different = [&](ThreadId th) {
    disable("thread " + std::to_string(th) + " did different things after the same history");
    return std::optional<NodeId>{};
  };
  // Segments: thread th's code after a step, from node n (kNoNode: not followed), `s` what it
  // did (nullptr: nothing the runtime recorded). The node it ended at, or nullopt if that
  // disabled the model.
  const auto follow_segment = [&](NodeId n, const Segment* s,
                                  ThreadId th) -> std::optional<NodeId> {
    if (s) {
      for (std::uint32_t k = 0; k < s->read_count; ++k) {
        const PlainAccess& r = t.segment_accesses[s->reads_from + k];
        if (!check_read(r.address, r.size, r.value)) return std::nullopt;
        if (n == kNoNode) continue;
        Node& node = nodes_[n];
        if (node.state == State::kUnknown) {
          node.state = State::kPlainRead;
          node.op = Operation{OpKind::kRead, 0, r.size, r.address, 0};
        } else if (node.state != State::kPlainRead || node.op.object != r.address ||
                   node.op.size != r.size) {
          return different(th);
        }
        n = child(n, r.value);
      }
      // What an opaque segment did is not known: nor is memory after it.
      if (s->opaque) {
        trusted = false;
        n = kNoNode;
      }
      for (std::uint32_t k = 0; k < s->write_count; ++k) {
        const PlainAccess& w = t.segment_accesses[s->writes_from + k];
        for (unsigned b = 0; b < kMemoryGranule; ++b)
          if (w.mask >> b & 1) store(written, w.address + b, 1, w.value >> (8 * b));
      }
    }
    if (n == kNoNode) return kNoNode;
    Node& end = nodes_[n];
    const std::uint32_t count = s ? s->write_count : 0;
    const PlainAccess* writes = count ? &t.segment_accesses[s->writes_from] : nullptr;
    if (!end.segment_writes_known) {
      end.segment_writes_from = static_cast<std::uint32_t>(segment_writes_.size());
      end.segment_write_count = count;
      end.segment_writes_known = true;
      if (count) segment_writes_.insert(segment_writes_.end(), writes, writes + count);
    } else if (end.segment_write_count != count ||
               (count && !std::equal(writes, writes + count,
                                     segment_writes_.begin() + end.segment_writes_from))) {
      disable("thread " + std::to_string(th) + " wrote different values after the same history");
      return std::nullopt;
    }
    return n;
  };
  // The segments in the order of their steps (the log has them in the order they ended).
  std::vector<std::uint32_t> by_step(t.segments.size());
  for (std::uint32_t k = 0; k < by_step.size(); ++k) by_step[k] = k;
  std::stable_sort(by_step.begin(), by_step.end(), [&](std::uint32_t a, std::uint32_t b) {
    return t.segments[a].after_step < t.segments[b].after_step;
  });
  std::size_t next_segment = 0;
  // After step i: the code its thread ran next (a new thread's first code, run inside its
  // creation, then its creator's), and whether the thread ended there. False if that disabled
  // the model.
  const auto after_step = [&](std::size_t i) {
    const Event& e = t.events[i];
    if (segments_) {
      const bool creates = e.op.kind == OpKind::kThreadCreate;
      const auto created = static_cast<ThreadId>(e.op.object);
      const Segment* mine = nullptr;
      const Segment* childs = nullptr;
      for (; next_segment < by_step.size() && t.segments[by_step[next_segment]].after_step <= i;
           ++next_segment) {
        const Segment& s = t.segments[by_step[next_segment]];
        if (s.after_step == i && s.thread == e.thread && !mine) {
          mine = &s;
        } else if (s.after_step == i && creates && s.thread == created && !childs) {
          childs = &s;
        } else {
          disable("the program's record of what its threads did between events is inconsistent");
          return false;
        }
      }
      if (creates) {
        const auto end = follow_segment(node_of(created), childs, created);
        if (!end) return false;
        node_of(created) = *end;
      }
      const auto end = follow_segment(node_of(e.thread), mine, e.thread);
      if (!end) return false;
      node_of(e.thread) = *end;
    }
    if (node_of(e.thread) == kNoNode || i >= t.finished_thread.size() || !t.finished_thread[i])
      return true;
    Node& after = nodes_[node_of(e.thread)];
    if (after.state != State::kUnknown && after.state != State::kFinished) {
      disable("thread " + std::to_string(e.thread) + " ended and went on after the same history");
      return false;
    }
    after.state = State::kFinished;
    return true;
  };

  // Under RC11, from the first weak step on, a read may see an older store than the last, and
  // memory and the values the trace records are not what sequential consistency says: the model
  // learns that the step is weak (simulate() stops there) and nothing after it.
  const std::size_t first_weak = t.weak_steps.empty() ? t.events.size() : t.weak_steps.front();
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    if (i > 0 && !after_step(i - 1)) return;
    const Event& e = t.events[i];
    if (i == first_weak) {
      const NodeId n = node_of(e.thread);
      if (n != kNoNode && see_step(n, e.op, e.thread)) nodes_[n].weak = true;
      return;
    }
    const AccessValues& values = t.values[i];
    // Memory first, for every event (also of threads no longer followed): it is what the
    // reads of the others are checked against.
    std::uint64_t returned = 0;
    bool known = true;
    if (reads_value(e.op.kind)) {
      if (!(values.known & AccessValues::kRead) || e.op.size == 0 || e.op.size > 8) {
        known = false;
      } else {
        // A value computed from inputs is known by the expressions it came from as well.
        const auto key = read_key(written, e.op.object, e.op.size, values.read);
        if (key)
          returned = *key;
        else
          known = false;
        if (!check_read(e.op.object, e.op.size, values.read)) return;
      }
    }
    // What a value computed from inputs is: its expression, or kUnknownSource if the trace did
    // not give it.
    std::uint32_t expression = symbolic::kConcrete;
    if (values.known & AccessValues::kWrittenFromInputs)
      expression = values.written_expression
                       ? pool_.import(sym.expressions, values.written_expression, numbers)
                       : kUnknownSource;
    if (writes_value(e.op.kind) && (values.known & AccessValues::kWritten) && e.op.size >= 1 &&
        e.op.size <= 8) {
      store(written, e.op.object, e.op.size, values.written, expression);
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
      // The result may be computed from inputs (then the value alone does not say what the
      // joining thread does with it).
      if (asked && !sym.inputs.empty()) known = false;
      if (asked && known) {
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
      if (!(values.known & AccessValues::kWritten) || expression == kUnknownSource) {
        node_of(e.thread) = kNoNode;
        continue;
      }
      Node& after = nodes_[next];
      // A value computed from inputs is the expression's (its value, this run's inputs').
      if (after.written_known && (after.written_expression != expression ||
                                  (!expression && after.written != values.written)))
        return disable("thread " + std::to_string(e.thread) +
                       " wrote different values after the same history");
      after.written = values.written;
      after.written_expression = expression;
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
      if (!local_code_of(static_cast<ThreadId>(e.op.object), i + 1)) return;
    }
    node_of(e.thread) = next;
    if (!local_code_of(e.thread, i + 1)) return;
  }
  if (!t.events.empty() && !after_step(t.events.size() - 1)) return;
  bool all_followed = true;
  for (const PendingThread& p : t.pending) {
    const NodeId n = p.thread < at.size() ? at[p.thread] : kNoNode;
    all_followed &= n != kNoNode;
    if (n == kNoNode) continue;
    if (!see_step(n, p.op, p.thread)) return;
    if (!nodes_[n].local_state) nodes_[n].local_state = p.local_state;
  }
  if (t.outcome != Outcome::kDeadlock || !all_followed) return;
  // The deadlock as the runtime said it, for the executions that end in it again.
  Owners owners;
  std::vector<bool> finished;
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    if (acquires_mutex(e.op) || releases_mutex(e.op)) set_holder(owners, e.op, e.thread);
    if (i < t.finished_thread.size() && t.finished_thread[i]) {
      if (e.thread >= finished.size()) finished.resize(e.thread + 1);
      finished[e.thread] = true;
    }
  }
  std::vector<NodeId> blocked;
  for (const PendingThread& p : t.pending) blocked.push_back(at[p.thread]);
  const auto ended = [&](ThreadId id) { return id < finished.size() && finished[id]; };
  for (const bool by_site : {false, true}) {
    const auto key = deadlock_key(t.pending, owners, ended, blocked, by_site);
    if (!key) continue;
    const auto [it, added] = deadlocks_.try_emplace(*key, Deadlock{t.message, t.failing_thread});
    // Said otherwise in two executions: something the key does not hold is in the message.
    if (!added &&
        (it->second.message != t.message || it->second.failing_thread != t.failing_thread))
      it->second.said_alike = false;
  }
}

ThreadId ThreadModel::holder_in(const Owners& owners, ObjectKey mutex) {
  for (const auto& [m, owner] : owners)
    if (m == mutex) return owner;
  return kNoThread;
}

void ThreadModel::set_holder(Owners& owners, const Operation& op, ThreadId thread) {
  const ObjectKey m = mutex_of(op);
  const ThreadId holder = sync_rules::holder_after(op, thread, holder_in(owners, m));
  std::erase_if(owners, [&](const auto& o) { return o.first == m; });
  if (holder != kNoThread) owners.emplace_back(m, holder);
}

std::optional<std::uint64_t> ThreadModel::deadlock_key(
    const std::vector<PendingThread>& pending, const Owners& owners,
    const std::function<bool(ThreadId)>& finished, const std::vector<NodeId>& nodes,
    bool by_site) const {
  std::uint64_t key = by_site;
  const auto mix = [&key](std::uint64_t v) { key = hash_mix(key, v); };
  for (std::size_t i = 0; i < pending.size(); ++i) {
    mix(pending[i].thread);
    // The thread's step, or what the report says of it: the operation and its code site
    // (known once the step ran in some execution). The second finds a deadlock reached again
    // after other histories.
    if (by_site) {
      const Node& node = nodes_[nodes[i]];
      if (!node.site_known) return std::nullopt;
      const Operation& op = pending[i].op;
      mix(static_cast<std::uint64_t>(op.kind));
      mix(op.object);
      mix(op.partner);
      mix(node.site);
    } else {
      mix(nodes[i]);
    }
    // What the message says of a mutex it waits for: who holds it, and whether that one ended.
    if (acquires_mutex(pending[i].op)) {
      const ThreadId owner = holder_in(owners, mutex_of(pending[i].op));
      mix(owner);
      mix(owner != kNoThread && finished(owner));
    }
  }
  return key;
}

const ThreadModel::Variant* ThreadModel::local_code(NodeId from, ThreadId thread,
                                                    std::uint32_t inputs_read, NodeId& end) {
  const Node& node = nodes_[from];
  if (node.state != State::kLocalCode) {
    end = from;
    return node.state == State::kUnknown ? nullptr : &variants_none_;
  }
  if (!inputs_given_) return nullptr;
  // The variant whose path condition the directive's inputs satisfy: at most one does.
  for (std::uint32_t v = node.first_variant; v != kNoVariant; v = variants_[v].next) {
    const Variant& variant = variants_[v];
    bool holds = true;
    for (std::uint32_t k = 0; holds && k < variant.branch_count; ++k) {
      const Branch& b = branches_[variant.branches_from + k];
      holds = (pool_.evaluate(b.condition, model_values_) != 0) == b.taken;
    }
    if (!holds) continue;
    for (std::uint32_t k = 0; k < variant.input_count; ++k)
      if (input_keys_[variant_inputs_[variant.inputs_from + k].number] !=
          InputKey{thread, inputs_read + k})
        return nullptr;
    const Node& last = nodes_[variant.end];
    if (last.state == State::kUnknown || last.state == State::kLocalCode) return nullptr;
    for (std::uint32_t k = 0; k < variant.branch_count; ++k)
      if (!expressible(branches_[variant.branches_from + k].condition, &variant)) return nullptr;
    end = variant.end;
    return &variant;
  }
  return nullptr;
}

bool ThreadModel::expressible(symbolic::ExprId id, const Variant* also) {
  if (id == symbolic::kConcrete) return true;
  auto it = inputs_used_.find(id);
  if (it == inputs_used_.end()) it = inputs_used_.emplace(id, pool_.inputs_of(id)).first;
  for (const std::uint32_t input : it->second) {
    if (input < trace_number_.size() && trace_number_[input] != kNoInput) continue;
    const VariantInput* in = also ? &variant_inputs_[also->inputs_from] : nullptr;
    if (!also || std::none_of(in, in + also->input_count,
                              [&](const VariantInput& r) { return r.number == input; }))
      return false;
  }
  return true;
}

void ThreadModel::run_local_code(ThreadId thread, const Variant* variant, NodeId end) {
  InputObservations& sym = current_.symbolic;
  Thread& th = threads_[thread];
  th.node = end;
  th.inputs += variant->input_count;
  for (std::uint32_t k = 0; k < variant->input_count; ++k) {
    const VariantInput& in = variant_inputs_[variant->inputs_from + k];
    const auto number = static_cast<std::uint32_t>(sym.inputs.size());
    trace_number_[in.number] = number;
    model_number_.push_back(in.number);
    sym.expressions.input(in.width, number);
    sym.inputs.push_back({input_keys_[in.number], in.width, in.is_signed, names_[in.name],
                          model_values_[in.number], current_.events.size()});
  }
  for (std::uint32_t k = 0; k < variant->branch_count; ++k) {
    const Branch& b = branches_[variant->branches_from + k];
    sym.branches.push_back({to_trace(b.condition), b.taken, b.kind, thread,
                            static_cast<std::uint32_t>(current_.events.size()), b.site});
  }
}

symbolic::ExprId ThreadModel::to_trace(symbolic::ExprId id) {
  return current_.symbolic.expressions.import(pool_, id, trace_number_);
}

void ThreadModel::forget_symbolic(std::size_t inputs, std::size_t branches,
                                  std::size_t expressions) {
  InputObservations& sym = current_.symbolic;
  while (sym.inputs.size() > inputs) {
    trace_number_[model_number_.back()] = kNoInput;
    model_number_.pop_back();
    sym.inputs.pop_back();
  }
  if (sym.branches.size() > branches) sym.branches.resize(branches);
  sym.expressions.keep_first(expressions);
}

bool ThreadModel::start_over() {
  threads_.assign(1, Thread{});
  waiting_.clear();
  owners_.clear();
  memory_.clear();
  memory_undo_.clear();
  shadow_.clear();
  shadow_undo_.clear();
  mutex_clocks_.clear();
  atomic_clocks_.clear();
  undo_.clear();
  current_ = Trace{};
  model_number_.clear();
  trace_number_.assign(input_keys_.size(), kNoInput);
  last_ = kMainThread;
  NodeId end = kNoNode;
  const Variant* code = local_code(main_root_, kMainThread, 0, end);
  if (!code || nodes_[end].state != State::kPending) {
    threads_.clear();  // the next directive starts over again
    return false;
  }
  run_local_code(kMainThread, code, end);
  waiting_.insert(kMainThread);
  return true;
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
    while (shadow_undo_.size() > u.shadow_undo) {
      shadow_[shadow_undo_.back().granule] = shadow_undo_.back().before;
      shadow_undo_.pop_back();
    }
    if (u.atomic && u.had_atomic_clocks) {
      atomic_clocks_[u.atomic] = AtomicClocks{u.atomic_write, u.atomic_reads};
    } else if (u.atomic) {
      atomic_clocks_.erase(u.atomic);
    }
    if (u.released && u.had_mutex_clock) {
      mutex_clocks_[u.mutex] = u.mutex_clock;
    } else if (u.released) {
      mutex_clocks_.erase(u.mutex);
    }
    forget_symbolic(u.inputs, u.branches, u.expressions);
    undo_.pop_back();
  }
  current_.keep_steps(steps);
}

const Trace* ThreadModel::simulate(const TestDirective& d) {
  if (!usable() || main_root_ == kNoNode || nodes_[main_root_].state == State::kUnknown)
    return nullptr;
  // Resume after the steps the directive's prefix repeats, up to where its sleep set starts
  // (before it, no thread sleeps: the state is the same whichever directive chose the steps;
  // and a random policy has drawn nothing yet), and before the first input it gives another
  // value.
  trace_number_.resize(input_keys_.size(), kNoInput);
  // The values inputs get (an input the directive does not give is 0, unless a random policy
  // draws it: then the model knows none).
  inputs_given_ = d.track_inputs && (d.policy == SchedulePolicy::kSticky || d.seed == 0);
  model_values_.resize(input_keys_.size());
  for (std::size_t i = 0; i < input_keys_.size(); ++i)
    model_values_[i] = symbolic::truncate(input_value(d.inputs, input_keys_[i]), input_widths_[i]);
  bool again = threads_.empty();
  std::size_t resume = 0;
  if (!again) {
    const std::size_t shared = std::min({undo_.size(), d.prefix.size(), d.sleep_from});
    while (resume < shared && d.prefix[resume] == current_.events[resume].thread) ++resume;
    for (const InputRead& in : current_.symbolic.inputs) {
      if (in.step > resume) break;
      if (symbolic::truncate(input_value(d.inputs, in.key), in.width) == in.value) continue;
      if (in.step == 0) again = true;
      resume = in.step == 0 ? 0 : in.step - 1;
      break;
    }
  }
  if (again) {
    if (!start_over()) return nullptr;
  } else {
    rewind(resume);
  }
  current_.pending.clear();
  current_.outcome = Outcome::kComplete;
  current_.message.clear();
  current_.failing_thread = kNoThread;
  current_.prefix_followed = resume;
  current_.diverged_at.reset();

  const auto owner_of = [&](ObjectKey m) { return holder_in(owners_, m); };
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
      // A deadlock: computed only if an execution that ran ended in it (the same threads
      // blocked at the same steps, the same holders), with what that one said of it.
      if (!waiting_.empty()) {
        if (!known_deadlock()) return nullptr;
        current_.outcome = Outcome::kDeadlock;
        current_.message = deadlock_->message;
        current_.failing_thread = deadlock_->failing_thread;
      }
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
    if (node.weak) return nullptr;  // under RC11, where the execution leaves SC
    if (op.kind == OpKind::kProcessExit && !node.exit_known) return nullptr;
    if (sync_rules::gives_a_mutex_it_does_not_hold(op, chosen, owner_of(mutex_of(op))))
      return nullptr;  // misuse: a bug
    NodeId child_end = kNoNode;
    const Variant* child_code = nullptr;
    if (op.kind == OpKind::kThreadCreate) {
      const auto root = child_root_.find(n);
      if (root == child_root_.end()) return nullptr;
      child_code = local_code(root->second, static_cast<ThreadId>(op.object), 0, child_end);
      if (!child_code || (nodes_[child_end].state != State::kPending &&
                          nodes_[child_end].state != State::kPlainRead))
        return nullptr;
    }
    AccessValues values;
    NodeId next = kNoNode, end = kNoNode;
    const Variant* code = nullptr;
    if (op.kind != OpKind::kProcessExit) {
      std::uint64_t returned = 0;
      if (op.kind == OpKind::kThreadJoin) {
        const Node& last = nodes_[threads_[static_cast<ThreadId>(op.object)].node];
        if (!node.join_asked_known || (node.join_asked && !last.result_known)) return nullptr;
        // A result may be computed from inputs (see learn()).
        if (node.join_asked && !current_.symbolic.inputs.empty()) return nullptr;
        if (node.join_asked) {
          returned = last.result;
          values.read = returned;
          values.known |= AccessValues::kRead;
        }
      }
      if (reads_value(op.kind)) {
        bool from_inputs = false;
        const auto value = load(memory_, op.object, op.size, from_inputs);
        if (!value) return nullptr;
        values.read = *value;
        values.known |= AccessValues::kRead;
        returned = *value;
        if (from_inputs) {
          const auto key = read_key(memory_, op.object, op.size, *value);
          if (!key) return nullptr;
          returned = *key;
        }
      }
      next = find_child(n, returned);
      // A step never seen, or after which the thread stopped (a bug, a busy-wait loop).
      if (next == kNoNode || nodes_[next].state == State::kUnknown) return nullptr;
      if (writes_value(op.kind)) {
        const Node& after = nodes_[next];
        if (!after.written_known || !expressible(after.written_expression, nullptr)) return nullptr;
        // A value computed from inputs is its expression's under this directive's inputs.
        values.written =
            after.written_expression
                ? symbolic::truncate(pool_.evaluate(after.written_expression, model_values_),
                                     8 * op.size)
                : after.written;
        values.known |= AccessValues::kWritten;
      }
      // (Most steps lead to a node without local code on inputs.)
      if (nodes_[next].state == State::kLocalCode) {
        code = local_code(next, chosen, threads_[chosen].inputs, end);
        if (!code) return nullptr;
      } else {
        end = next;
      }
    }

    // The step.
    StepUndo u;
    u.chosen = chosen;
    u.before = threads_[chosen];
    u.waiting = waiting_;
    u.last = last_;
    u.memory_undo = memory_undo_.size();
    u.shadow_undo = shadow_undo_.size();
    u.inputs = current_.symbolic.inputs.size();
    u.branches = current_.symbolic.branches.size();
    u.expressions = current_.symbolic.expressions.size();
    last_ = chosen;
    const symbolic::ExprId written_expression =
        next != kNoNode ? nodes_[next].written_expression : symbolic::kConcrete;
    if (written_expression) {
      values.known |= AccessValues::kWrittenFromInputs;
      values.written_expression = to_trace(written_expression);
    }
    current_.add_step({chosen, op}, std::move(enabled), node.site, false, values);
    if (local_states_) current_.add_local_state(node.local_state);
    if (acquires_mutex(op) || releases_mutex(op)) {
      u.mutex = mutex_of(op);
      u.owner = owner_of(u.mutex);
      set_holder(owners_, op, chosen);
    }
    // Happens-before for the race check of segments: the step is its thread's next event; a
    // lock comes after the mutex's last release, a join after the joined thread's end, an
    // atomic access after the variable's accesses as below.
    bool ok = true;  // false: the step races (the model declines, undoing it)
    if (segments_) {
      VectorClock& clock = threads_[chosen].clock;
      clock.set(chosen, clock[chosen] + 1);
      if (acquires_mutex(op)) {
        if (const auto it = mutex_clocks_.find(u.mutex); it != mutex_clocks_.end())
          clock.join(it->second);
      } else if (releases_mutex(op)) {
        const auto [it, added] = mutex_clocks_.try_emplace(u.mutex);
        u.released = true;
        u.had_mutex_clock = !added;
        if (!added) u.mutex_clock = it->second;
        it->second = clock;
      } else if (op.kind == OpKind::kThreadJoin) {
        clock.join(threads_[static_cast<ThreadId>(op.object)].clock);
      } else if (is_atomic_access(op.kind)) {
        // After the variable's last write; a write also after the reads since (a
        // compare-exchange counts as a write, as the runtime's clocks count it). Under RC11
        // (see the class comment) `write` is what the last store released, and only a store
        // or an update that changed the value releases.
        const auto [it, added] = atomic_clocks_.try_emplace(op.object);
        u.atomic = op.object;
        u.had_atomic_clocks = !added;
        if (!added) {
          u.atomic_write = it->second.write;
          u.atomic_reads = it->second.reads;
        }
        if (!rc11_ || op.kind != OpKind::kAtomicStore) clock.join(it->second.write);
        if (rc11_) {
          const bool changed = (values.known & AccessValues::kRead) &&
                               (values.known & AccessValues::kWritten) &&
                               values.written != values.read;
          if (op.kind == OpKind::kAtomicStore || (writes_value(op.kind) && changed))
            it->second.write = clock;
        } else if (writes_value(op.kind)) {
          clock.join(it->second.reads);
          it->second.write = clock;
          it->second.reads = VectorClock{};
        } else {
          it->second.reads.join(clock);
        }
      }
      if (reads_value(op.kind) || writes_value(op.kind))
        ok = access(op.object, op.size, writes_value(op.kind), is_atomic_access(op.kind), chosen,
                    clock[chosen]);
    }
    if (values.known & AccessValues::kWritten) {
      for (ObjectKey g = op.object / kMemoryGranule;
           g <= (op.object + op.size - 1) / kMemoryGranule; ++g)
        memory_undo_.push_back({g, memory_[g]});
      store(memory_, op.object, op.size, values.written, written_expression);
    }
    if (child_end != kNoNode) {
      // The new thread's first code runs inside the creation, before its creator goes on.
      const auto c = static_cast<ThreadId>(op.object);
      if (c >= threads_.size()) threads_.resize(c + 1);
      threads_[c] = Thread{};
      if (segments_) threads_[c].clock = threads_[chosen].clock;
      run_local_code(c, child_code, child_end);
      waiting_.insert(c);
      u.started = c;
      // Its first segment, also inside the creation.
      if (segments_ && ok) {
        const NodeId first = run_segment(c, child_end);
        ok = first != kNoNode && nodes_[first].state == State::kPending;
        if (ok) threads_[c].node = first;
      }
    }
    ++threads_[chosen].steps;
    if (end != kNoNode) {
      if (code) {
        run_local_code(chosen, code, end);
      } else {
        threads_[chosen].node = end;
      }
      if (segments_ && ok) {
        const NodeId after = run_segment(chosen, end);
        ok = after != kNoNode;
        if (ok) threads_[chosen].node = after;
      }
      if (ok && nodes_[threads_[chosen].node].state == State::kFinished) {
        threads_[chosen].finished = true;
        waiting_.erase(chosen);
        current_.finished_thread.back() = true;
        // Its end, which a join comes after.
        VectorClock& clock = threads_[chosen].clock;
        if (segments_) clock.set(chosen, clock[chosen] + 1);
      }
    }
    undo_.push_back(std::move(u));
    if (!ok) {
      rewind(undo_.size() - 1);
      return nullptr;
    }
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

bool ThreadModel::access(ObjectKey address, std::uint64_t size, bool write, bool atomic,
                         ThreadId thread, std::uint32_t epoch) {
  const auto [first, last] = granule_span(address, size);
  for (ObjectKey g = first; g <= last; ++g)
    if (!access_granule(g, bytes_in_granule(address, size, g), write, atomic, thread, epoch))
      return false;
  return true;
}

bool ThreadModel::access_granule(ObjectKey g, std::uint8_t bytes, bool write, bool atomic,
                                 ThreadId thread, std::uint32_t epoch) {
  const VectorClock& clock = threads_[thread].clock;
  Shadow& s = shadow_[g];
  shadow_undo_.push_back({g, s});
  unsigned kept = 0;
  for (unsigned k = 0; k < s.count; ++k) {
    const Access& a = s.entries[k];
    const bool before = a.thread == thread || clock.covers(a.thread, a.epoch);
    const bool conflicts = (a.bytes & bytes) && (a.write || write) && !(a.atomic && atomic);
    if (conflicts && !before) return false;
    // It stands for `a` if whatever conflicts with `a` conflicts with it.
    if (before && (a.bytes & ~bytes) == 0 && (write || !a.write) && (!atomic || a.atomic)) continue;
    s.entries[kept++] = a;
  }
  if (kept == kShadowEntries) return false;
  s.entries[kept++] = Access{thread, epoch, write, atomic, bytes};
  s.count = static_cast<std::uint8_t>(kept);
  return true;
}

ThreadModel::NodeId ThreadModel::run_segment(ThreadId thread, NodeId from) {
  NodeId n = from;
  const std::uint32_t epoch = threads_[thread].clock[thread] + 1;  // after its last event
  while (nodes_[n].state == State::kPlainRead) {
    const ObjectKey address = nodes_[n].op.object;
    const std::uint32_t size = nodes_[n].op.size;
    bool from_inputs = false;
    const auto value = load(memory_, address, size, from_inputs);
    if (!value || from_inputs || !access(address, size, false, false, thread, epoch))
      return kNoNode;
    n = find_child(n, *value);
    if (n == kNoNode) return kNoNode;
  }
  const Node& end = nodes_[n];
  if (end.state == State::kUnknown || !end.segment_writes_known) return kNoNode;
  for (std::uint32_t k = 0; k < end.segment_write_count; ++k) {
    const PlainAccess& w = segment_writes_[end.segment_writes_from + k];
    const ObjectKey g = w.address / kMemoryGranule;
    if (!access_granule(g, w.mask, true, false, thread, epoch)) return kNoNode;
    memory_undo_.push_back({g, memory_[g]});
    for (unsigned b = 0; b < kMemoryGranule; ++b)
      if (w.mask >> b & 1) store(memory_, w.address + b, 1, w.value >> (8 * b));
  }
  return n;
}

bool ThreadModel::known_deadlock() {
  std::vector<PendingThread> pending;
  std::vector<NodeId> blocked;
  for (ThreadId id = waiting_.first(); id != kNoThread; id = waiting_.next_from(id + 1)) {
    pending.push_back({id, nodes_[threads_[id].node].op, false, 0});
    blocked.push_back(threads_[id].node);
  }
  const auto ended = [&](ThreadId id) { return id < threads_.size() && threads_[id].finished; };
  for (const bool by_site : {false, true}) {
    const auto key = deadlock_key(pending, owners_, ended, blocked, by_site);
    if (!key) continue;
    const auto it = deadlocks_.find(*key);
    if (it == deadlocks_.end() || !it->second.said_alike) continue;
    deadlock_ = &it->second;
    return true;
  }
  return false;
}

namespace {

/// Whether two pools' expressions have one structure (inputs by their numbers in their traces).
bool same_expression(const symbolic::ExpressionPool& a, symbolic::ExprId x,
                     const symbolic::ExpressionPool& b, symbolic::ExprId y) {
  std::vector<std::pair<symbolic::ExprId, symbolic::ExprId>> todo{{x, y}};
  while (!todo.empty()) {
    const auto [p, q] = todo.back();
    todo.pop_back();
    if ((p == symbolic::kConcrete) != (q == symbolic::kConcrete)) return false;
    if (p == symbolic::kConcrete) continue;
    const symbolic::ExprNode& m = a[p];
    const symbolic::ExprNode& n = b[q];
    if (m.kind != n.kind || m.width != n.width || m.value != n.value) return false;
    todo.insert(todo.end(), {{m.a, n.a}, {m.b, n.b}, {m.c, n.c}});
  }
  return true;
}

/// Where two traces' inputs and branches on them differ, or "".
std::string symbolic_difference(const Trace& computed, const Trace& ran) {
  const InputObservations& c = computed.symbolic;
  const InputObservations& r = ran.symbolic;
  if (c.inputs.size() != r.inputs.size())
    return "the number of inputs read (" + std::to_string(c.inputs.size()) + " computed, " +
           std::to_string(r.inputs.size()) + " ran)";
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const InputRead& x = c.inputs[i];
    const InputRead& y = r.inputs[i];
    if (x.key != y.key || x.width != y.width || x.is_signed != y.is_signed || x.name != y.name ||
        x.value != y.value || x.step != y.step)
      return "input " + std::to_string(i + 1) + " read";
  }
  if (c.branches.size() != r.branches.size())
    return "the number of branches on inputs (" + std::to_string(c.branches.size()) +
           " computed, " + std::to_string(r.branches.size()) + " ran)";
  for (std::size_t i = 0; i < c.branches.size(); ++i) {
    const SymbolicBranch& x = c.branches[i];
    const SymbolicBranch& y = r.branches[i];
    if (x.taken != y.taken || x.kind != y.kind || x.thread != y.thread || x.step != y.step ||
        x.site != y.site ||
        !same_expression(c.expressions, x.condition, r.expressions, y.condition))
      return "branch " + std::to_string(i + 1) + " on inputs";
  }
  for (std::size_t i = 0; i < computed.values.size() && i < ran.values.size(); ++i) {
    const AccessValues& x = computed.values[i];
    const AccessValues& y = ran.values[i];
    if ((x.known & AccessValues::kWrittenFromInputs) !=
            (y.known & AccessValues::kWrittenFromInputs) ||
        !same_expression(c.expressions, x.written_expression, r.expressions, y.written_expression))
      return "the expression written at step " + std::to_string(i + 1);
  }
  return "";
}

}  // namespace

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
  if (computed.message != ran.message || computed.failing_thread != ran.failing_thread)
    return "the report";
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
  return symbolic_difference(computed, ran);
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
