#include "weft/explore/lockset.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "weft/trace/vector_clock.hpp"
#include "weft/trace/wire.hpp"

namespace weft::explorer {
namespace {

struct Access {
  ThreadId thread = kNoThread;
  bool write = false;
  std::vector<ObjectKey> locks;  // sorted
  std::uint64_t site = 0;
  std::size_t step = 0;
  bool after = false;  // in the code after the event at `site` (a segment), not the event
};

struct Location {
  VectorClock seen;                   // the clocks of its accesses since it was last owned, joined
  std::vector<ObjectKey> candidates;  // the locks held at every one of them (sorted)
  bool written = false;
  std::vector<Access> recent;  // the last few, for the witness
};

constexpr std::size_t kRecent = 8;
constexpr std::size_t kMaxReports = 8;  // per execution: a loop over an array would flood

std::string locks_text(const std::vector<ObjectKey>& locks) {
  if (locks.empty()) return "holding no lock";
  std::string s = "holding mutex";
  if (locks.size() > 1) s += "es";
  for (std::size_t i = 0; i < locks.size(); ++i) s += (i ? ", " : " ") + object_name(locks[i]);
  return s;
}

class Checker {
 public:
  Checker(Trace& t, const ThreadRegistry& threads, bool in_process)
      : t_(t), threads_(threads), in_process_(in_process) {}

  std::size_t run() {
    std::vector<std::vector<std::uint32_t>> segments_after(t_.events.size());
    for (std::uint32_t s = 0; s < t_.segments.size(); ++s)
      if (t_.segments[s].after_step < t_.events.size())
        segments_after[t_.segments[s].after_step].push_back(s);
    // Every thread's record made at once: a clock must not move while a reference to it is
    // held (its storage may lie inside it).
    std::size_t threads = 1;
    for (const Event& e : t_.events) {
      threads = std::max<std::size_t>(threads, e.thread + 1);
      if (e.op.kind == OpKind::kThreadCreate || e.op.kind == OpKind::kThreadJoin)
        threads = std::max<std::size_t>(threads, e.op.object + 1);
    }
    for (const Segment& s : t_.segments) threads = std::max<std::size_t>(threads, s.thread + 1);
    clocks_.resize(threads);
    held_.resize(threads);
    for (std::size_t i = 0; i < t_.events.size(); ++i) {
      const Event& e = t_.events[i];
      VectorClock& c = clock(e.thread);
      c.set(e.thread, c[e.thread] + 1);
      const Operation& op = e.op;
      if (op.kind == OpKind::kThreadCreate) {
        const auto child = static_cast<ThreadId>(op.object);
        clock(child) = clock(e.thread);
      } else if (op.kind == OpKind::kThreadJoin) {
        clock(e.thread).join(clock(static_cast<ThreadId>(op.object)));
      } else if (acquires_mutex(op)) {
        held(e.thread).insert(mutex_of(op));
      } else if (releases_mutex(op)) {
        auto& h = held(e.thread);
        if (const auto it = h.find(mutex_of(op)); it != h.end()) h.erase(it);
      } else if (op.kind == OpKind::kRead || op.kind == OpKind::kWrite) {
        access(e.thread, op.object, op.size, op.kind == OpKind::kWrite, t_.sites[i], i);
      }
      for (std::uint32_t s : segments_after[i]) segment(t_.segments[s], i);
    }
    return reported_;
  }

 private:
  VectorClock& clock(ThreadId t) { return clocks_.at(t); }
  std::multiset<ObjectKey>& held(ThreadId t) { return held_.at(t); }

  void segment(const Segment& s, std::size_t step) {
    if (s.opaque) return;
    for (std::uint32_t k = 0; k < s.read_count; ++k) {
      const PlainAccess& a = t_.segment_accesses[s.reads_from + k];
      access(s.thread, a.address, a.size, false, t_.sites[step], step, true);
    }
    for (std::uint32_t k = 0; k < s.write_count; ++k) {
      const PlainAccess& a = t_.segment_accesses[s.writes_from + k];
      for (unsigned b = 0; b < kMemoryGranule; ++b)
        if (a.mask >> b & 1) access(s.thread, a.address + b, 1, true, t_.sites[step], step, true);
    }
  }

  void access(ThreadId thread, ObjectKey address, std::uint64_t size, bool write,
              std::uint64_t site, std::size_t step, bool after = false) {
    const VectorClock& now = clock(thread);
    Access a{thread, write, {}, site, step, after};
    const auto& h = held(thread);
    a.locks.assign(h.begin(), h.end());
    a.locks.erase(std::unique(a.locks.begin(), a.locks.end()), a.locks.end());
    for (ObjectKey byte = address; byte < address + size; ++byte) {
      auto [it, fresh] = bytes_.try_emplace(byte);
      Location& loc = it->second;
      if (fresh || loc.seen.leq(now)) {  // owned by this thread now (Eraser's exclusive state)
        loc.seen = now;
        loc.candidates = a.locks;
        loc.written = write;
        loc.recent.assign(1, a);
        continue;
      }
      std::vector<ObjectKey> both;
      std::set_intersection(loc.candidates.begin(), loc.candidates.end(), a.locks.begin(),
                            a.locks.end(), std::back_inserter(both));
      loc.candidates = std::move(both);
      loc.seen.join(now);
      loc.written |= write;
      if (loc.recent.size() == kRecent) loc.recent.erase(loc.recent.begin());
      loc.recent.push_back(a);
      if (loc.candidates.empty() && loc.written) report(byte, loc, a);
    }
  }

  void report(ObjectKey byte, const Location& loc, const Access& a) {
    const ObjectKey granule = byte / kMemoryGranule;
    if (reported_ == kMaxReports || !reported_granules_.insert(granule).second) return;
    // The witness: the latest other thread's access that this one conflicts with.
    const Access* other = nullptr;
    for (auto it = loc.recent.rbegin(); it != loc.recent.rend(); ++it)
      if (it->thread != a.thread && (it->write || a.write)) {
        other = &*it;
        break;
      }
    if (!other) return;
    const auto describe = [&](const Access& x) {
      return "thread " + threads_.name(x.thread) + " " + (x.write ? "wrote" : "read") + " it" +
             (x.site ? (x.after ? " after " : " at ") + code_mark(x.site) : "") + " " +
             locks_text(x.locks);
    };
    Failure f;
    f.outcome = Outcome::kLockDiscipline;
    f.thread = a.thread;
    f.step = a.step + 1;
    f.message = "locking discipline violated on " + location(byte) + ": " + describe(*other) +
                ", and " + describe(a) +
                "; no lock is held at every access (Eraser's lockset), so some schedule may run "
                "them as a data race";
    // Read-write locks and barriers keep their state in weft's runtime, not in mutexes the
    // check sees held: what they guard looks unguarded to it.
    if (t_.runtime_state_read)
      f.message +=
          " (unless a read-write lock or barrier guards it: the execution used one, and the "
          "lockset does not see what those hold, so this may be a false alarm)";
    t_.failures.push_back(f);
    if (!is_bug(t_.outcome)) {
      t_.outcome = f.outcome;
      t_.message = f.message;
      t_.failing_thread = f.thread;
    }
    ++reported_;
  }

  // How the report names the location of `byte`.
  std::string location(ObjectKey byte) const {
    if (!in_process_) return data_mark(byte);
    const ObjectKey offset = byte % kInProcessObjectSpacing;
    return object_name(byte - offset) + (offset ? "+" + std::to_string(offset) : "");
  }

  Trace& t_;
  const ThreadRegistry& threads_;
  bool in_process_;
  std::vector<VectorClock> clocks_;
  std::vector<std::multiset<ObjectKey>> held_;
  std::map<ObjectKey, Location> bytes_;
  std::set<ObjectKey> reported_granules_;
  std::size_t reported_ = 0;
};

}  // namespace

std::size_t check_locking_discipline(Trace& trace, const ThreadRegistry& threads, bool in_process) {
  return Checker(trace, threads, in_process).run();
}

}  // namespace weft::explorer
