#include "state_fingerprints.hpp"

#include "weft/explore/thread_model.hpp"
#include "weft/trace/sync_rules.hpp"

namespace weft::explorer {
namespace {

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t signature(const Operation& op) {
  std::uint64_t s = mix(static_cast<std::uint64_t>(op.kind), op.object);
  s = mix(s, std::uint64_t{op.size} << 1 | (op.timed ? 1 : 0));
  return mix(s, op.partner);
}

// The operations whose effect on the state the fingerprint holds: the thread model's, and a
// trylock (its result is in the thread's history, its effect in the mutex's owner).
bool held(const Operation& op) {
  return ThreadModel::carries_out(op) || op.kind == OpKind::kMutexTryLock;
}

constexpr std::uint64_t kEnded = 0xe0d;
constexpr std::uint64_t kChild = 0xc41d;

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

std::vector<std::uint64_t> StateFingerprints::of(const Trace& trace) {
  std::vector<std::uint64_t> out;
  why_.clear();
  if (trace.values.size() != trace.events.size()) {
    fail(
        "it needs every shared access to be an event with its values (a native program run with "
        "--points=all)");
    return out;
  }
  if (!trace.symbolic.inputs.empty()) {
    fail("the program reads inputs, whose values a thread's history does not hold");
    return out;
  }
  std::vector<std::uint64_t> thread(1, mix(kMainThread, 1));  // by thread: its history
  std::uint64_t threads = mix(kMainThread, thread[0]);        // the sum of mix(id, history)
  std::uint64_t memory = 0, owners = 0;
  std::unordered_map<ObjectKey, std::uint8_t> bytes;  // written by events
  std::unordered_map<ObjectKey, ThreadId> owner;
  const auto now = [&] { return mix(mix(threads, memory), owners); };
  const auto set_history = [&](ThreadId t, std::uint64_t h) {
    if (t >= thread.size()) thread.resize(t + 1, 0);
    if (thread[t]) threads -= mix(t, thread[t]);
    thread[t] = h;
    threads += mix(t, h);
  };
  out.reserve(trace.events.size() + 1);
  out.push_back(now());
  for (std::size_t k = 0; k < trace.events.size(); ++k) {
    const Event& e = trace.events[k];
    const Operation& op = e.op;
    const AccessValues& v = trace.values[k];
    if (!held(op)) {
      fail(reads_value(op.kind) || writes_value(op.kind)
               ? "an access of " + std::to_string(op.size) + " bytes has no recorded value"
               : std::string("the program uses ") + op_name(op.kind) +
                     ", whose state the fingerprint does not hold (it holds shared memory, "
                     "mutexes and threads)");
      return {};
    }
    std::uint64_t returned = op.result;
    if (accesses_memory(op)) {
      if (reads_value(op.kind)) {
        if (!(v.known & AccessValues::kRead)) {
          fail("an access's value was not recorded");
          return {};
        }
        if (!check_initial(op.object, op.size, v.read, bytes)) {
          fail(
              "memory changed between events (written by code weft did not compile, or by "
              "the kernel), so the shared memory is more than the events show");
          return {};
        }
        returned = v.read;
      }
      if (writes_value(op.kind)) {
        if (!(v.known & AccessValues::kWritten)) {
          fail("an access's value was not recorded");
          return {};
        }
        for (std::uint32_t i = 0; i < op.size; ++i) {
          const ObjectKey at = op.object + i;
          const auto byte = static_cast<std::uint8_t>(v.written >> (8 * i));
          const auto [it, added] = bytes.emplace(at, byte);
          if (!added) {
            memory -= mix(at, it->second);
            it->second = byte;
          }
          memory += mix(at, byte);
        }
      }
    } else if (op.kind == OpKind::kThreadJoin && (v.known & AccessValues::kRead)) {
      returned = v.read;  // what the joined thread returned, when the thread takes it
    }
    if (acquires_mutex(op) || releases_mutex(op)) {
      const ObjectKey m = mutex_of(op);
      const auto it = owner.find(m);
      const ThreadId before = it == owner.end() ? kNoThread : it->second;
      const ThreadId after = sync_rules::holder_after(op, e.thread, before);
      if (before != kNoThread) owners -= mix(m, before);
      if (after != kNoThread) owners += mix(m, after);
      owner[m] = after;
    }
    const std::uint64_t history = e.thread < thread.size() ? thread[e.thread] : 0;
    if (!check_next(history, op)) return {};
    if (op.kind == OpKind::kThreadCreate)
      set_history(static_cast<ThreadId>(op.object), mix(mix(history, kChild), op.object));
    std::uint64_t after = mix(mix(history, signature(op)), returned);
    if (k < trace.finished_thread.size() && trace.finished_thread[k]) after = mix(after, kEnded);
    set_history(e.thread, after);
    out.push_back(now());
  }
  for (const PendingThread& p : trace.pending)
    if (p.thread < thread.size() && !check_next(thread[p.thread], p.op)) return {};
  return out;
}

}  // namespace weft::explorer
