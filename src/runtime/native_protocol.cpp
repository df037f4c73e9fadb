// The protocol between weft and a program built by weft-cc (weft/runtime/native_protocol.hpp).
// Compiled into the driver and into the runtime linked into programs, so that both sides read
// and write every record with the same code.
#include "weft/runtime/native_protocol.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace weft::native {

// ---- options through the environment --------------------------------------------------------

namespace {

constexpr const char* kPointsEnv = "WEFT_POINTS";
constexpr const char* kMemoryModelEnv = "WEFT_MEMORY_MODEL";
constexpr const char* kPromotedSitesEnv = "WEFT_PROMOTED_SITES";
constexpr const char* kMaxStepsEnv = "WEFT_MAX_STEPS";
constexpr const char* kMaxThreadsEnv = "WEFT_MAX_THREADS";
constexpr const char* kNondetEnv = "WEFT_NONDET";
constexpr const char* kExploreInputsEnv = "WEFT_EXPLORE_INPUTS";
constexpr const char* kExecutionMsEnv = "WEFT_EXECUTION_MS";
constexpr const char* kMemoryLimitEnv = "WEFT_MEMORY_MB";
constexpr const char* kShowOutputEnv = "WEFT_SHOW_OUTPUT";
constexpr const char* kFreshProcessEnv = "WEFT_FRESH_PROCESS";
constexpr const char* kKeepSpinningEnv = "WEFT_KEEP_SPINNING";
constexpr const char* kMemoryChecksEnv = "WEFT_MEMORY_CHECKS";
constexpr const char* kLeaksEnv = "WEFT_LEAKS";
constexpr const char* kLocalStatesEnv = "WEFT_LOCAL_STATES";
constexpr const char* kSegmentsEnv = "WEFT_SEGMENTS";

std::string setting(const char* name, const std::string& value) {
  return std::string(name) + "=" + value;
}

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  return v && *v ? *v == '1' : fallback;
}

}  // namespace

std::uint64_t ProgramOptions::cpu_seconds() const {
  return execution_seconds > 0 ? static_cast<std::uint64_t>(execution_seconds) + 1 : 0;
}

std::vector<std::string> ProgramOptions::environment() const {
  std::vector<std::string> env{
      setting(kPointsEnv, points),
      setting(kMemoryModelEnv, memory_model),
      setting(kMaxStepsEnv, std::to_string(max_steps_per_thread)),
      setting(kMaxThreadsEnv, std::to_string(max_threads)),
      setting(kNondetEnv, std::to_string(nondet_value)),
      setting(kExploreInputsEnv, explore_inputs ? "1" : "0"),
      setting(kExecutionMsEnv,
              std::to_string(static_cast<std::uint64_t>(std::max(0.0, execution_seconds) * 1000))),
      setting(kMemoryLimitEnv, std::to_string(memory_mb)),
      setting(kShowOutputEnv, show_output ? "1" : "0"),
      setting(kFreshProcessEnv, fresh_process ? "1" : "0"),
      setting(kKeepSpinningEnv, keep_spinning ? "1" : "0"),
      setting(kMemoryChecksEnv, memory_checks ? "1" : "0"),
      setting(kLeaksEnv, leaks ? "1" : "0"),
      setting(kLocalStatesEnv, local_states ? "1" : "0"),
      setting(kSegmentsEnv, record_segments ? "1" : "0"),
  };
  std::string sites;
  char hex[24];
  for (std::uint64_t site : promoted_sites) {
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(site));
    if (!sites.empty()) sites += ',';
    sites += hex;
  }
  env.push_back(setting(kPromotedSitesEnv, sites));
  return env;
}

ProgramOptions ProgramOptions::from_environment() {
  ProgramOptions o;
  if (const char* p = std::getenv(kPointsEnv); p && *p) o.points = p;
  if (const char* m = std::getenv(kMemoryModelEnv); m && *m) o.memory_model = m;
  o.max_steps_per_thread =
      static_cast<std::uint32_t>(env_number(kMaxStepsEnv, o.max_steps_per_thread));
  o.max_threads = static_cast<std::uint32_t>(env_number(kMaxThreadsEnv, o.max_threads));
  if (const char* v = std::getenv(kNondetEnv)) o.nondet_value = std::strtoll(v, nullptr, 10);
  o.execution_seconds =
      static_cast<double>(
          env_number(kExecutionMsEnv, static_cast<std::uint64_t>(o.execution_seconds * 1000))) /
      1000;
  o.memory_mb = env_number(kMemoryLimitEnv, o.memory_mb);
  o.show_output = env_flag(kShowOutputEnv, o.show_output);
  o.explore_inputs = env_flag(kExploreInputsEnv, o.explore_inputs);
  o.fresh_process = env_flag(kFreshProcessEnv, o.fresh_process);
  o.keep_spinning = env_flag(kKeepSpinningEnv, o.keep_spinning);
  o.memory_checks = env_flag(kMemoryChecksEnv, o.memory_checks);
  o.leaks = env_flag(kLeaksEnv, o.leaks);
  o.local_states = env_flag(kLocalStatesEnv, o.local_states);
  o.record_segments = env_flag(kSegmentsEnv, o.record_segments);
  for (const char* p = std::getenv(kPromotedSitesEnv); p && *p;) {
    char* end = nullptr;
    const std::uint64_t site = std::strtoull(p, &end, 16);
    if (end == p) break;
    o.promoted_sites.push_back(site);
    p = *end == ',' ? end + 1 : end;
  }
  std::sort(o.promoted_sites.begin(), o.promoted_sites.end());
  return o;
}

// ---- waiting for the other side -------------------------------------------------------------

namespace {

long futex(const std::atomic<std::uint32_t>& word, int op, std::uint32_t value,
           const timespec* timeout) {
  // Shared between processes (a MAP_SHARED mapping): not FUTEX_PRIVATE_FLAG.
  return syscall(SYS_futex, const_cast<std::atomic<std::uint32_t>*>(&word), op, value, timeout,
                 nullptr, 0);
}

long elapsed_ns(const timespec& start) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start.tv_sec) * 1'000'000'000L + (now.tv_nsec - start.tv_nsec);
}

// Below this, the spinning only pauses the CPU: an answer this quick comes from a process on
// another CPU, and a system call would cost more than the wait.
constexpr long kPauseOnlyNanoseconds = 40'000;

}  // namespace

void publish(std::atomic<std::uint32_t>& word, std::atomic<std::uint32_t>& sleeping) {
  word.fetch_add(1, std::memory_order_seq_cst);
  // Seen together with the sleeper's store of `sleeping` before its last look at `word`: one of
  // the two sees the other's store, so a sleeper is always woken.
  if (sleeping.load(std::memory_order_seq_cst)) futex(word, FUTEX_WAKE, INT32_MAX, nullptr);
}

bool wait_for_change(const std::atomic<std::uint32_t>& word, std::uint32_t seen,
                     std::atomic<std::uint32_t>& sleeping, int timeout_ms) {
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (unsigned i = 0;; ++i) {
    if (word.load(std::memory_order_acquire) != seen) return true;
    if ((i & 63) != 63) {
      __builtin_ia32_pause();
      continue;
    }
    const long spun = elapsed_ns(start);
    if (spun > kSpinNanoseconds || (timeout_ms >= 0 && spun / 1'000'000 >= timeout_ms)) break;
    if (spun > kPauseOnlyNanoseconds) sched_yield();
  }
  while (true) {
    sleeping.store(1, std::memory_order_seq_cst);
    if (word.load(std::memory_order_seq_cst) != seen) break;
    timespec left{};
    if (timeout_ms >= 0) {
      const long remaining = static_cast<long>(timeout_ms) * 1'000'000 - elapsed_ns(start);
      if (remaining <= 0) {
        sleeping.store(0, std::memory_order_relaxed);
        return word.load(std::memory_order_acquire) != seen;
      }
      left.tv_sec = remaining / 1'000'000'000;
      left.tv_nsec = remaining % 1'000'000'000;
    }
    futex(word, FUTEX_WAIT, seen, timeout_ms >= 0 ? &left : nullptr);
  }
  sleeping.store(0, std::memory_order_relaxed);
  return true;
}

// ---- binary records ----------------------------------------------------------------------

namespace {

// Appends fixed-width little-endian fields to a byte range; `ok` turns false (and stays) when
// the range is full.
class ByteWriter {
 public:
  ByteWriter(char* at, std::size_t capacity) : begin_(at), at_(at), end_(at + capacity) {}
  template <class T>
  void put(T value) {
    bytes(&value, sizeof value);
  }
  void bytes(const void* data, std::size_t n) {
    if (!ok_ || static_cast<std::size_t>(end_ - at_) < n) {
      ok_ = false;
      return;
    }
    std::memcpy(at_, data, n);
    at_ += n;
  }
  void string(std::string_view s) {
    put(static_cast<std::uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  bool ok() const { return ok_; }
  std::size_t size() const { return static_cast<std::size_t>(at_ - begin_); }

 private:
  char* begin_;
  char* at_;
  char* end_;
  bool ok_ = true;
};

// Reads what ByteWriter wrote; throws ProtocolError past the end.
class ByteReader {
 public:
  ByteReader(const char* at, std::size_t size) : at_(at), end_(at + size) {}
  template <class T>
  T get(const char* what) {
    T value;
    need(sizeof value, what);
    std::memcpy(&value, at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string string(const char* what) {
    const auto n = get<std::uint32_t>(what);
    need(n, what);
    std::string s(at_, n);
    at_ += n;
    return s;
  }
  /// A count of items of at least `item_bytes` each: refused before anything is allocated for
  /// them if the record cannot hold that many.
  std::size_t count(std::size_t item_bytes, const char* what) {
    const auto n = get<std::uint32_t>(what);
    if (item_bytes && n > left() / item_bytes)
      throw ProtocolError(std::string("a record claims more ") + what + " than it holds");
    return n;
  }
  std::size_t left() const { return static_cast<std::size_t>(end_ - at_); }

 private:
  void need(std::size_t n, const char* what) {
    if (left() < n) throw ProtocolError(std::string("a record ends inside its ") + what);
  }
  const char* at_;
  const char* end_;
};

// Thread ids as the two sides number them: the threads weft sent keep their ids, the log
// announces the rest. In the record, a thread is the program's id.
class ThreadMap {
 public:
  ThreadMap(std::size_t sent, ThreadRegistry& threads) : sent_(sent), threads_(threads) {}
  ThreadId operator()(std::uint32_t id) const {
    if (id < sent_) return id;
    if (id - sent_ < announced_.size()) return announced_[id - sent_];
    throw ProtocolError("a record names thread " + std::to_string(id) + ", never announced");
  }
  ThreadId maybe(std::uint32_t id) const { return id == kNoThread ? kNoThread : (*this)(id); }
  void announce(std::uint32_t id, std::uint32_t parent, std::uint32_t index) {
    if (id != sent_ + announced_.size())
      throw ProtocolError("thread " + std::to_string(id) + " announced out of order");
    announced_.push_back(threads_.child((*this)(parent), index));
  }

 private:
  std::size_t sent_;
  ThreadRegistry& threads_;
  std::vector<ThreadId> announced_;
};

constexpr std::uint8_t kTimed = 1, kFinished = 2, kFootprint = 4, kEnabled = 8;
// An event or pending thread record carries its thread's local state (Trace::local_states).
constexpr std::uint8_t kLocalState = 16;

void put_op(ByteWriter& w, const Operation& op) {
  w.put(static_cast<std::uint8_t>(op.kind));
  w.put(op.result);
  std::uint8_t flags = (op.timed ? kTimed : 0) | (op.footprint.known ? kFootprint : 0);
  w.put(flags);
  w.put(op.size);
  w.put(op.object);
  w.put(op.partner);
  if (op.footprint.known) {
    w.put(op.footprint.count);
    for (std::size_t i = 0; i < op.footprint.count; ++i) w.put(op.footprint.entries[i]);
  }
}

Operation get_op(ByteReader& r, const ThreadMap& map) {
  Operation op;
  const auto kind = r.get<std::uint8_t>("operation kind");
  if (kind >= kOpKindCount) throw ProtocolError("unknown operation kind " + std::to_string(kind));
  op.kind = static_cast<OpKind>(kind);
  op.result = r.get<std::uint8_t>("operation result");
  const auto flags = r.get<std::uint8_t>("operation flags");
  op.timed = flags & kTimed;
  op.size = r.get<std::uint32_t>("operation size");
  op.object = r.get<std::uint64_t>("object");
  op.partner = r.get<std::uint64_t>("partner");
  if (domain_of(op.kind) == Domain::kThread) op.object = map(static_cast<std::uint32_t>(op.object));
  if (flags & kFootprint) {
    op.footprint.known = true;
    op.footprint.count = r.get<std::uint8_t>("footprint size");
    if (op.footprint.count > Footprint::kCapacity)
      throw ProtocolError("a footprint has at most " + std::to_string(Footprint::kCapacity) +
                          " entries");
    for (std::size_t i = 0; i < op.footprint.count; ++i)
      op.footprint.entries[i] = r.get<std::uint64_t>("footprint entry");
  }
  return op;
}

void put_set(ByteWriter& w, const ThreadSet& set) {
  w.put(static_cast<std::uint32_t>(set.word_count()));
  for (std::size_t i = 0; i < set.word_count(); ++i) w.put(set.word(i));
}

ThreadSet get_set(ByteReader& r, const ThreadMap& map, std::size_t sent) {
  ThreadSet set;
  const std::size_t words = r.count(8, "enabled set");
  for (std::size_t i = 0; i < words; ++i) {
    const auto bits = r.get<std::uint64_t>("enabled set");
    // The ids weft sent are its own: the word is taken as it is.
    if ((i + 1) * 64 <= sent) {
      set.set_word(i, bits);
      continue;
    }
    for (std::uint64_t b = bits; b; b &= b - 1)
      set.insert(map(static_cast<std::uint32_t>(i * 64 + __builtin_ctzll(b))));
  }
  return set;
}

}  // namespace

std::size_t encode_directive(const TestDirective& d, const ThreadRegistry& threads, char* out,
                             std::size_t capacity) {
  ByteWriter w(out, capacity);
  w.put(static_cast<std::uint32_t>(threads.size()));
  for (ThreadId t = 1; t < threads.size(); ++t) {
    w.put(static_cast<std::uint32_t>(threads.parent(t)));
    w.put(static_cast<std::uint32_t>(threads.creation_index(t)));
  }
  w.put(static_cast<std::uint32_t>(d.prefix.size()));
  w.bytes(d.prefix.data(), d.prefix.size() * sizeof(ThreadId));
  w.put(static_cast<std::uint64_t>(d.sleep_from));
  w.put(static_cast<std::uint32_t>(d.sleep.size()));
  for (const SleepEntry& e : d.sleep) {
    w.put(static_cast<std::uint32_t>(e.thread));
    put_op(w, e.op);
    w.put(static_cast<std::uint32_t>(e.wake_on.size()));
    w.bytes(e.wake_on.data(), e.wake_on.size() * sizeof(ObjectKey));
  }
  w.put(static_cast<std::uint8_t>(d.read_policy));
  w.put(static_cast<std::uint8_t>(d.policy));
  w.put(d.seed);
  w.put(static_cast<std::uint32_t>(d.priority_changes.size()));
  w.bytes(d.priority_changes.data(), d.priority_changes.size() * sizeof(std::uint32_t));
  w.put(static_cast<std::uint8_t>(d.track_inputs));
  w.put(static_cast<std::uint32_t>(d.inputs.size()));
  for (const InputValue& v : d.inputs) {
    w.put(static_cast<std::uint32_t>(v.key.thread));
    w.put(v.key.ordinal);
    w.put(v.value);
  }
  w.put(static_cast<std::uint32_t>(d.quiet_accesses.size()));
  w.bytes(d.quiet_accesses.data(), d.quiet_accesses.size() * sizeof(std::uint64_t));
  w.put(static_cast<std::uint32_t>(d.choices.size()));
  w.bytes(d.choices.data(), d.choices.size() * sizeof(std::uint32_t));
  w.put(static_cast<std::uint8_t>(d.every_option));
  w.put(static_cast<std::uint32_t>(d.sources.size()));
  w.bytes(d.sources.data(), d.sources.size() * sizeof(std::uint32_t));
  return w.ok() ? w.size() : 0;
}

TestDirective decode_directive(const char* in, std::size_t size, ThreadRegistry& threads) {
  ByteReader r(in, size);
  const std::size_t count = r.get<std::uint32_t>("thread count");
  if (count == 0 || count - 1 > r.left() / 8)
    throw ProtocolError("a directive claims more threads than it holds");
  for (std::size_t t = 1; t < count; ++t) {
    const auto parent = r.get<std::uint32_t>("thread");
    const auto index = r.get<std::uint32_t>("thread");
    if (parent >= t) throw ProtocolError("a directive's thread has a later parent");
    if (threads.child(parent, index) != t)
      throw ProtocolError("a directive names one thread twice");
  }
  const ThreadMap map(count, threads);
  TestDirective d;
  const std::size_t steps = r.count(sizeof(ThreadId), "prefix");
  d.prefix.resize(steps);
  for (std::size_t i = 0; i < steps; ++i) d.prefix[i] = map(r.get<std::uint32_t>("prefix"));
  d.sleep_from = r.get<std::uint64_t>("sleep_from");
  const std::size_t sleepers = r.count(4 + 23 + 4, "sleep set");
  for (std::size_t i = 0; i < sleepers; ++i) {
    const ThreadId t = map(r.get<std::uint32_t>("sleep set"));
    SleepEntry e{t, get_op(r, map), {}};
    const std::size_t wakers = r.count(sizeof(ObjectKey), "sleeper's objects");
    for (std::size_t k = 0; k < wakers; ++k)
      e.wake_on.push_back(r.get<ObjectKey>("sleeper's objects"));
    d.sleep.push_back(std::move(e));
  }
  d.read_policy = static_cast<ReadPolicy>(r.get<std::uint8_t>("read policy") & 1);
  const unsigned policy = r.get<std::uint8_t>("policy");
  if (policy > kLastSchedulePolicy) throw ProtocolError("a directive names no schedule policy");
  d.policy = static_cast<SchedulePolicy>(policy);
  d.seed = r.get<std::uint64_t>("seed");
  const std::size_t changes = r.count(sizeof(std::uint32_t), "priority changes");
  d.priority_changes.resize(changes);
  for (std::size_t i = 0; i < changes; ++i)
    d.priority_changes[i] = r.get<std::uint32_t>("priority changes");
  d.track_inputs = r.get<std::uint8_t>("input tracking") != 0;
  const std::size_t inputs = r.count(16, "inputs");
  d.inputs.reserve(inputs);
  for (std::size_t i = 0; i < inputs; ++i) {
    InputValue v;
    v.key.thread = map(r.get<std::uint32_t>("input thread"));
    v.key.ordinal = r.get<std::uint32_t>("input ordinal");
    v.value = r.get<std::uint64_t>("input value");
    d.inputs.push_back(v);
  }
  const std::size_t quiet = r.count(sizeof(std::uint64_t), "quiet accesses");
  d.quiet_accesses.resize(quiet);
  for (std::size_t i = 0; i < quiet; ++i)
    d.quiet_accesses[i] = r.get<std::uint64_t>("quiet accesses");
  if (!std::is_sorted(d.quiet_accesses.begin(), d.quiet_accesses.end()))
    throw ProtocolError("a directive's quiet accesses are not sorted");
  const std::size_t choices = r.count(sizeof(std::uint32_t), "options");
  d.choices.resize(choices);
  for (std::size_t i = 0; i < choices; ++i) d.choices[i] = r.get<std::uint32_t>("options");
  d.every_option = r.get<std::uint8_t>("every option") != 0;
  const std::size_t sources = r.count(sizeof(std::uint32_t), "sources");
  d.sources.resize(sources);
  for (std::size_t i = 0; i < sources; ++i) d.sources[i] = r.get<std::uint32_t>("sources");
  return d;
}

// ---- the log: the program's side ----------------------------------------------------------

namespace {
constexpr std::size_t kRecordHeader = 5;  // tag, payload length
}

LogWriter::LogWriter(void* memory, std::size_t bytes, symbolic::ExprNode* mirror,
                     std::size_t mirror_nodes)
    : header_(static_cast<LogHeader*>(memory)),
      records_(static_cast<char*>(memory) + sizeof(LogHeader)),
      mirror_(mirror),
      mirror_nodes_(mirror ? mirror_nodes : 0) {
  header_->magic = kLogMagic;
  header_->version = kProtocolVersion;
  header_->capacity = bytes - sizeof(LogHeader);
  reset(1);
}

void LogWriter::reset(std::size_t sent_threads, std::size_t known_expressions) {
  // Node i is mirror_[i]: weft's count cannot promise more than the mirror holds.
  known_ = mirror_nodes_ ? std::min(known_expressions, mirror_nodes_ - 1) : 0;
  header_->used = 0;
  header_->fault_pc = 0;
  header_->fault_address = 0;
  header_->fault_signal = 0;
  header_->overflowed = 0;
  announced_ = sent_threads;
}

// A record's payload is written in place after the last record, and the record is published
// by growing `used` last (commit): a reader that sees the length sees the whole record (same
// process order; weft reads only after the execution ended).
ByteWriter payload_writer(LogHeader* header, char* records) {
  const std::size_t start = header->used + kRecordHeader;
  return ByteWriter(records + start, start <= header->capacity ? header->capacity - start : 0);
}

void LogWriter::commit(Record tag, bool written, std::size_t size) {
  if (!written) {
    header_->overflowed = 1;
    return;
  }
  char* at = records_ + header_->used;
  at[0] = static_cast<char>(tag);
  const auto length = static_cast<std::uint32_t>(size);
  std::memcpy(at + 1, &length, sizeof length);
  header_->used += kRecordHeader + size;
}

void LogWriter::announce(const ThreadRegistry& threads) {
  while (announced_ < threads.size()) {
    ByteWriter w = payload_writer(header_, records_);
    const auto id = static_cast<ThreadId>(announced_);
    w.put(id);
    w.put(static_cast<std::uint32_t>(threads.parent(id)));
    w.put(static_cast<std::uint32_t>(threads.creation_index(id)));
    commit(Record::kThread, w.ok(), w.size());
    if (!w.ok()) return;
    ++announced_;
  }
}

void LogWriter::event(const Trace& t, std::size_t i, const ThreadRegistry& threads,
                      const AccessValues& values) {
  announce(threads);  // every thread the record may name
  ByteWriter w = payload_writer(header_, records_);
  const Event& e = t.events[i];
  w.put(static_cast<std::uint32_t>(e.thread));
  put_op(w, e.op);
  const bool finished = i < t.finished_thread.size() && t.finished_thread[i];
  const bool local = i < t.local_states.size();
  w.put(static_cast<std::uint8_t>((finished ? kFinished : 0) | (local ? kLocalState : 0)));
  if (local) w.put(t.local_states[i]);
  w.put(i < t.sites.size() ? t.sites[i] : std::uint64_t{0});
  put_set(w, t.enabled[i]);
  w.put(values.known);
  if (values.known & AccessValues::kRead) w.put(values.read);
  if (values.known & AccessValues::kWritten) w.put(values.written);
  if (values.known & AccessValues::kWrittenFromInputs) w.put(values.written_expression);
  commit(Record::kEvent, w.ok(), w.size());
}

void LogWriter::skip_known_expressions(const symbolic::ExpressionPool& pool,
                                       SymbolicLogged& logged) {
  const auto nodes = pool.nodes();
  for (std::size_t i = logged.expressions + 1; known_ != 0 && i < nodes.size(); ++i) {
    if (i > known_ || !(mirror_[i] == nodes[i])) {
      known_ = 0;  // the shared prefix ended: every later node is sent
      break;
    }
    logged.expressions = i;
  }
}

void LogWriter::symbolic(const InputObservations& seen, SymbolicLogged& logged,
                         const ThreadRegistry& threads, bool events_name_expressions) {
  announce(threads);
  for (; logged.inputs < seen.inputs.size(); ++logged.inputs) {
    const InputRead& in = seen.inputs[logged.inputs];
    ByteWriter w = payload_writer(header_, records_);
    w.put(static_cast<std::uint32_t>(in.key.thread));
    w.put(in.key.ordinal);
    w.put(in.width);
    w.put(static_cast<std::uint8_t>(in.is_signed));
    w.put(in.value);
    w.put(static_cast<std::uint64_t>(in.step));
    w.string(in.name);
    commit(Record::kInput, w.ok(), w.size());
    if (!w.ok()) return;
  }
  // Expressions before the branches that name them, as many nodes per record as fit.
  const auto nodes = seen.expressions.nodes();
  skip_known_expressions(seen.expressions, logged);
  // The known nodes are announced only before a record that follows them (a branch or an event
  // that names them, or the nodes after them): a few records per execution, not one per event.
  const bool followed = events_name_expressions || logged.branches < seen.branches.size() ||
                        logged.expressions + 1 < nodes.size();
  if (followed && !logged.sent_expressions && logged.announced_known < logged.expressions) {
    ByteWriter w = payload_writer(header_, records_);
    w.put(static_cast<std::uint32_t>(logged.expressions));
    commit(Record::kKnownExpressions, w.ok(), w.size());
    if (!w.ok()) return;
    logged.announced_known = logged.expressions;
  }
  while (logged.expressions + 1 < nodes.size()) {
    ByteWriter w = payload_writer(header_, records_);
    std::size_t count = 0;
    const std::size_t first = logged.expressions + 1;
    for (std::size_t i = first; i < nodes.size() && count < 4096; ++i, ++count) {
      const symbolic::ExprNode& n = nodes[i];
      // Into the mirror before the record is published: a node weft has is always there.
      if (i < mirror_nodes_) mirror_[i] = n;
      w.put(static_cast<std::uint8_t>(n.kind));
      w.put(n.width);
      w.put(n.a);
      w.put(n.b);
      w.put(n.c);
      w.put(n.value);
    }
    commit(Record::kExpressions, w.ok(), w.size());
    if (!w.ok()) return;
    logged.sent_expressions = true;
    logged.expressions += count;
  }
  for (; logged.branches < seen.branches.size(); ++logged.branches) {
    const SymbolicBranch& b = seen.branches[logged.branches];
    ByteWriter w = payload_writer(header_, records_);
    w.put(b.condition);
    w.put(static_cast<std::uint8_t>(b.taken));
    w.put(static_cast<std::uint8_t>(b.kind));
    w.put(static_cast<std::uint32_t>(b.thread));
    w.put(b.step);
    w.put(b.site);
    commit(Record::kBranch, w.ok(), w.size());
    if (!w.ok()) return;
  }
  if (seen.untracked && !logged.untracked) {
    ByteWriter w = payload_writer(header_, records_);
    commit(Record::kUntracked, w.ok(), w.size());
    logged.untracked = w.ok();
  }
  if (seen.unconstrained_concretisations != logged.unconstrained) {
    ByteWriter w = payload_writer(header_, records_);
    w.put(seen.unconstrained_concretisations);
    commit(Record::kUnconstrained, w.ok(), w.size());
    if (w.ok()) logged.unconstrained = seen.unconstrained_concretisations;
  }
}

void LogWriter::end(const Trace& t, const ThreadRegistry& threads) {
  announce(threads);
  ByteWriter w = payload_writer(header_, records_);
  w.put(static_cast<std::uint8_t>(t.outcome));
  w.string(t.message);
  w.put(static_cast<std::uint32_t>(t.failing_thread));
  w.put(static_cast<std::uint64_t>(t.prefix_followed));
  w.put(static_cast<std::uint8_t>(t.diverged_at.has_value()));
  w.put(static_cast<std::uint64_t>(t.diverged_at.value_or(0)));
  w.put(static_cast<std::uint32_t>(t.failures.size()));
  for (const Failure& f : t.failures) {
    w.put(static_cast<std::uint8_t>(f.outcome));
    w.put(static_cast<std::uint32_t>(f.thread));
    w.put(static_cast<std::uint64_t>(f.step));
    w.string(f.message);
  }
  w.put(static_cast<std::uint32_t>(t.pending.size()));
  for (const PendingThread& p : t.pending) {
    w.put(static_cast<std::uint32_t>(p.thread));
    put_op(w, p.op);
    const bool local = p.local_state != 0;
    w.put(static_cast<std::uint8_t>((p.enabled ? kEnabled : 0) | (local ? kLocalState : 0)));
    if (local) w.put(p.local_state);
  }
  w.put(static_cast<std::uint8_t>(t.runtime_state_read));
  w.put(t.walk_log2_weight);
  commit(Record::kEnd, w.ok(), w.size());
}

void LogWriter::crashed(ThreadId thread, const ThreadRegistry& threads) {
  announce(threads);
  ByteWriter w = payload_writer(header_, records_);
  w.put(static_cast<std::uint32_t>(thread));
  commit(Record::kCrashed, w.ok(), w.size());
}

void LogWriter::text(Record tag, std::string_view text) {
  ByteWriter w = payload_writer(header_, records_);
  w.bytes(text.data(), text.size());
  commit(tag, w.ok(), w.size());
}

void LogWriter::caveat(CaveatKind kind, std::string_view what) {
  ByteWriter w = payload_writer(header_, records_);
  w.put(static_cast<std::uint8_t>(kind));
  w.string(what);
  commit(Record::kCaveat, w.ok(), w.size());
}

void LogWriter::segment(const Segment& s, std::span<const PlainAccess> accesses,
                        const ThreadRegistry& threads) {
  announce(threads);
  ByteWriter w = payload_writer(header_, records_);
  w.put(s.after_step);
  w.put(static_cast<std::uint32_t>(s.thread));
  w.put(static_cast<std::uint8_t>(s.opaque));
  w.put(s.read_count);
  w.put(s.write_count);
  for (std::uint32_t i = 0; i < s.read_count; ++i) {
    const PlainAccess& a = accesses[s.reads_from + i];
    w.put(a.address);
    w.put(a.value);
    w.put(a.size);
  }
  for (std::uint32_t i = 0; i < s.write_count; ++i) {
    const PlainAccess& a = accesses[s.writes_from + i];
    w.put(a.address);
    w.put(a.value);
    w.put(a.mask);
  }
  commit(Record::kSegment, w.ok(), w.size());
}

void LogWriter::library_call(std::size_t index, std::span<const std::uint64_t> program_callers) {
  ByteWriter w = payload_writer(header_, records_);
  w.put(static_cast<std::uint32_t>(index));
  const std::size_t n = std::min<std::size_t>(program_callers.size(), 255);
  w.put(static_cast<std::uint8_t>(n));
  for (std::size_t i = 0; i < n; ++i) w.put(program_callers[i]);
  commit(Record::kLibraryCall, w.ok(), w.size());
}

void LogWriter::choice(std::size_t step, std::uint32_t choice, std::uint32_t count,
                       const Trace::OlderStore* older) {
  ByteWriter w = payload_writer(header_, records_);
  w.put(static_cast<std::uint64_t>(step));
  w.put(choice);
  w.put(count);
  w.put(static_cast<std::uint8_t>(older != nullptr));
  if (older) {
    w.put(older->store_step);
    w.put(older->newest_step);
    w.put(older->value);
  }
  commit(Record::kChoice, w.ok(), w.size());
}

void LogWriter::weak_step(std::uint32_t step) {
  ByteWriter w = payload_writer(header_, records_);
  w.put(step);
  commit(Record::kWeakStep, w.ok(), w.size());
}

void LogWriter::graph_access(std::uint32_t step, const Trace::GraphAccess& access) {
  ByteWriter w = payload_writer(header_, records_);
  w.put(step);
  w.put(static_cast<std::uint8_t>(access.kind));
  w.put(access.source);
  w.put(access.location);
  commit(Record::kGraphAccess, w.ok(), w.size());
}

void LogWriter::taken_store(const Trace::TakenStore& taken) {
  ByteWriter w = payload_writer(header_, records_);
  w.put(taken.step);
  w.put(taken.store);
  commit(Record::kTakenStore, w.ok(), w.size());
}

void LogWriter::note_fault(int signal, std::uint64_t pc, std::uint64_t address) {
  header_->fault_signal = signal;
  header_->fault_pc = pc;
  header_->fault_address = address;
}

// ---- the log: weft's side ------------------------------------------------------------------

LoggedExecution read_log_records(const void* log, std::size_t sent_threads, ThreadRegistry& threads,
                                 const symbolic::ExpressionPool* known) {
  const auto* header = static_cast<const LogHeader*>(log);
  const char* records = static_cast<const char*>(log) + sizeof(LogHeader);
  const std::size_t used = std::min<std::uint64_t>(header->used, header->capacity);
  ThreadMap map(sent_threads, threads);
  LoggedExecution out;
  Trace& events = out.events;
  bool nodes_sent = false;  // a kExpressions record came: the known prefix has ended
  std::size_t at = 0;
  while (at + kRecordHeader <= used) {
    const auto tag = static_cast<Record>(records[at]);
    std::uint32_t length;
    std::memcpy(&length, records + at + 1, sizeof length);
    if (length > used - at - kRecordHeader) throw ProtocolError("a log record is cut short");
    ByteReader r(records + at + kRecordHeader, length);
    const std::string_view text(records + at + kRecordHeader, length);
    at += kRecordHeader + length;
    switch (tag) {
      case Record::kEvent: {
        const ThreadId thread = map(r.get<std::uint32_t>("thread"));
        const Operation op = get_op(r, map);
        const auto flags = r.get<std::uint8_t>("event flags");
        const std::uint64_t local =
            flags & kLocalState ? r.get<std::uint64_t>("local state") : std::uint64_t{0};
        const auto site = r.get<std::uint64_t>("site");
        ThreadSet enabled = get_set(r, map, sent_threads);
        AccessValues values;
        values.known = r.get<std::uint8_t>("value flags");
        if (values.known & AccessValues::kRead) values.read = r.get<std::uint64_t>("value read");
        if (values.known & AccessValues::kWritten)
          values.written = r.get<std::uint64_t>("value written");
        if (values.known & AccessValues::kWrittenFromInputs) {
          values.written_expression = r.get<std::uint32_t>("expression written");
          // Its nodes come before the event (NativeRuntime logs inputs first).
          if (values.written_expression > out.symbolic.expressions.size())
            throw ProtocolError("a value written as an expression the log does not hold");
        }
        // Local states come with every event or with none.
        const bool all_so_far = events.local_states.size() == events.events.size();
        if ((flags & kLocalState) ? !all_so_far : !events.local_states.empty())
          throw ProtocolError("an event's local state is missing");
        events.add_step({thread, op}, std::move(enabled), site, (flags & kFinished) != 0, values);
        if (flags & kLocalState) events.add_local_state(local);
        break;
      }
      case Record::kThread: {
        const auto id = r.get<std::uint32_t>("thread");
        const auto parent = r.get<std::uint32_t>("parent");
        const auto index = r.get<std::uint32_t>("creation index");
        map.announce(id, parent, index);
        break;
      }
      case Record::kEnd: {
        Trace t;
        const auto outcome = r.get<std::uint8_t>("outcome");
        if (outcome > static_cast<unsigned>(Outcome::kSanitizerReport))
          throw ProtocolError("unknown outcome " + std::to_string(outcome));
        t.outcome = static_cast<Outcome>(outcome);
        t.message = r.string("message");
        t.failing_thread = map.maybe(r.get<std::uint32_t>("failing thread"));
        t.prefix_followed = r.get<std::uint64_t>("prefix followed");
        const bool diverged = r.get<std::uint8_t>("divergence");
        const auto diverged_at = r.get<std::uint64_t>("divergence");
        if (diverged) t.diverged_at = diverged_at;
        const std::size_t failures = r.count(17, "failures");
        for (std::size_t i = 0; i < failures; ++i) {
          Failure f;
          const auto o = r.get<std::uint8_t>("failure");
          if (o > static_cast<unsigned>(Outcome::kSanitizerReport))
            throw ProtocolError("unknown outcome " + std::to_string(o));
          f.outcome = static_cast<Outcome>(o);
          f.thread = map.maybe(r.get<std::uint32_t>("failure"));
          f.step = r.get<std::uint64_t>("failure");
          f.message = r.string("failure");
          t.failures.push_back(std::move(f));
        }
        const std::size_t pending = r.count(4 + 23 + 1, "pending operations");
        for (std::size_t i = 0; i < pending; ++i) {
          PendingThread p;
          p.thread = map(r.get<std::uint32_t>("pending thread"));
          p.op = get_op(r, map);
          const auto state = r.get<std::uint8_t>("pending state");
          p.enabled = state & kEnabled;
          if (state & kLocalState) p.local_state = r.get<std::uint64_t>("local state");
          t.pending.push_back(p);
        }
        t.runtime_state_read = r.get<std::uint8_t>("runtime state");
        t.walk_log2_weight = r.get<double>("walk weight");
        out.ending = std::move(t);
        break;
      }
      case Record::kCrashed:
        out.crashed = map(r.get<std::uint32_t>("crashed thread"));
        break;
      case Record::kSegment: {
        Segment s;
        s.after_step = r.get<std::uint32_t>("segment step");
        s.thread = map(r.get<std::uint32_t>("segment thread"));
        s.opaque = r.get<std::uint8_t>("segment opaque") != 0;
        s.read_count = r.get<std::uint32_t>("segment reads");
        const auto writes = r.get<std::uint32_t>("segment writes");
        if (std::uint64_t{s.read_count} + writes > r.left() / 17)
          throw ProtocolError("a record claims more segment accesses than it holds");
        std::vector<PlainAccess>& accesses = events.segment_accesses;
        s.reads_from = static_cast<std::uint32_t>(accesses.size());
        for (std::uint32_t i = 0; i < s.read_count; ++i) {
          PlainAccess a;
          a.address = r.get<std::uint64_t>("segment read");
          a.value = r.get<std::uint64_t>("segment read");
          a.size = r.get<std::uint8_t>("segment read");
          if (a.size == 0 || a.size > 8) throw ProtocolError("a segment read of a bad size");
          accesses.push_back(a);
        }
        s.writes_from = static_cast<std::uint32_t>(accesses.size());
        s.write_count = writes;
        for (std::uint32_t i = 0; i < writes; ++i) {
          PlainAccess a;
          a.address = r.get<std::uint64_t>("segment write");
          a.value = r.get<std::uint64_t>("segment write");
          a.mask = r.get<std::uint8_t>("segment write");
          accesses.push_back(a);
        }
        events.segments.push_back(s);
        break;
      }
      case Record::kWhere:
        out.crash_details = std::string(text);
        break;
      case Record::kSanitizer:
        if (out.sanitizer_report.empty()) {
          out.sanitizer_report = std::string(text);
          out.sanitizer_report_step = events.events.size();
          out.sanitizer_thread = out.crashed;
        }
        break;
      case Record::kInputs:
        out.read_inputs = true;
        break;
      case Record::kInput: {
        InputRead in;
        in.key.thread = map(r.get<std::uint32_t>("input thread"));
        in.key.ordinal = r.get<std::uint32_t>("input ordinal");
        in.width = r.get<std::uint8_t>("input width");
        if (in.width == 0 || in.width > 64) throw ProtocolError("an input of no width");
        in.is_signed = r.get<std::uint8_t>("input signedness") != 0;
        in.value = r.get<std::uint64_t>("input value");
        in.step = r.get<std::uint64_t>("input step");
        in.name = r.string("input name");
        out.symbolic.inputs.push_back(std::move(in));
        break;
      }
      case Record::kKnownExpressions: {
        const auto count = r.get<std::uint32_t>("known expressions");
        if (nodes_sent || !known || !out.symbolic.expressions.append_prefix_of(*known, count))
          throw ProtocolError("a log claims " + std::to_string(count) +
                              " expression nodes of the execution before that weft does not have");
        break;
      }
      case Record::kExpressions:
        nodes_sent = true;
        while (r.left() > 0) {
          symbolic::ExprNode n;
          n.kind = static_cast<symbolic::ExprKind>(r.get<std::uint8_t>("expression"));
          n.width = r.get<std::uint8_t>("expression");
          n.a = r.get<std::uint32_t>("expression");
          n.b = r.get<std::uint32_t>("expression");
          n.c = r.get<std::uint32_t>("expression");
          n.value = r.get<std::uint64_t>("expression");
          if (!out.symbolic.expressions.append_verbatim(n) ||
              (n.kind == symbolic::ExprKind::kInput && n.value >= out.symbolic.inputs.size()))
            throw ProtocolError("a malformed expression");
        }
        break;
      case Record::kBranch: {
        SymbolicBranch b;
        b.condition = r.get<std::uint32_t>("branch condition");
        b.taken = r.get<std::uint8_t>("branch") != 0;
        const auto kind = r.get<std::uint8_t>("branch kind");
        if (kind > static_cast<unsigned>(BranchKind::kConcretisation))
          throw ProtocolError("an unknown kind of branch");
        b.kind = static_cast<BranchKind>(kind);
        b.thread = map(r.get<std::uint32_t>("branch thread"));
        b.step = r.get<std::uint32_t>("branch step");
        b.site = r.get<std::uint64_t>("branch site");
        if (b.condition == 0 || b.condition > out.symbolic.expressions.size() ||
            out.symbolic.expressions[b.condition].width != 1)
          throw ProtocolError("a branch on a condition the log does not hold");
        out.symbolic.branches.push_back(b);
        break;
      }
      case Record::kUntracked:
        out.symbolic.untracked = true;
        break;
      case Record::kUnconstrained:
        out.symbolic.unconstrained_concretisations = r.get<std::uint32_t>("concretisations");
        break;
      case Record::kUnrestored:
        out.unrestored.emplace_back(text);
        break;
      case Record::kCaveat: {
        const auto kind = r.get<std::uint8_t>("caveat kind");
        if (kind > kLastCaveatKind) throw ProtocolError("an unknown kind of caveat");
        out.caveats.push_back(Caveat{static_cast<CaveatKind>(kind), r.string("caveat")});
        break;
      }
      case Record::kLibraryCall: {
        const auto index = r.get<std::uint32_t>("event index");
        const auto n = r.get<std::uint8_t>("program callers");
        for (unsigned i = 0; i < n; ++i)
          out.library_callers.emplace_back(index, r.get<std::uint64_t>("program caller"));
        break;
      }
      case Record::kChoice: {
        const auto step = r.get<std::uint64_t>("option step");
        const auto choice = r.get<std::uint32_t>("option");
        const auto count = r.get<std::uint32_t>("option count");
        // A step is an event record of the log (or the one being logged): a log of `used`
        // bytes has fewer, which bounds what a hostile step number could make us allocate.
        if (count < 2 || choice >= count || step > UINT32_MAX || step >= used)
          throw ProtocolError("a step's option out of its range");
        out.events.record_choice(step, choice, count);
        if (r.get<std::uint8_t>("older store") != 0) {
          Trace::OlderStore older{static_cast<std::uint32_t>(step), 0, 0, 0};
          older.store_step = r.get<std::uint32_t>("older store");
          older.newest_step = r.get<std::uint32_t>("newest store");
          older.value = r.get<std::uint64_t>("value read");
          out.events.older_stores.push_back(older);
        }
        break;
      }
      case Record::kGraphAccess: {
        const auto step = r.get<std::uint32_t>("access step");
        Trace::GraphAccess access;
        const auto kind = r.get<std::uint8_t>("access kind");
        access.source = r.get<std::uint32_t>("access source");
        access.location = r.get<ObjectKey>("access location");
        if (step >= used || kind == 0 ||
            kind > static_cast<std::uint8_t>(Trace::GraphAccess::Kind::kUpdate) ||
            (access.source != Trace::GraphAccess::kFirstValue && access.source >= step))
          throw ProtocolError("a step's access out of its range");
        access.kind = static_cast<Trace::GraphAccess::Kind>(kind);
        out.events.record_graph_access(step, access);
        break;
      }
      case Record::kTakenStore: {
        Trace::TakenStore taken{};
        taken.step = r.get<std::uint32_t>("taken step");
        taken.store = r.get<std::uint32_t>("taken store");
        if (taken.step >= used ||
            (taken.store != Trace::GraphAccess::kFirstValue && taken.store >= taken.step))
          throw ProtocolError("a taken store out of its range");
        out.events.taken_stores.push_back(taken);
        break;
      }
      case Record::kWeakStep: {
        const auto step = r.get<std::uint32_t>("weak step");
        if (!out.events.weak_steps.empty() && step < out.events.weak_steps.back())
          throw ProtocolError("weak steps out of order");
        out.events.record_weak_step(step);
        break;
      }
      default:
        throw ProtocolError("unknown log record " + std::to_string(static_cast<int>(tag)));
    }
  }
  // A choice is logged when its step takes it, which may be before the step's event record.
  if (events.options.size() > events.events.size())
    throw ProtocolError("an option of a step the log does not hold");
  if (!events.weak_steps.empty() && events.weak_steps.back() >= events.events.size())
    throw ProtocolError("a weak step the log does not hold");
  return out;
}

int blocked_system_call(int pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/syscall", pid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[32] = {};
  const ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  // "running", or the call's number and then its arguments; -1 for a process in user code.
  if (got <= 0 || text[0] < '0' || text[0] > '9') return -1;
  return std::atoi(text);
}

}  // namespace weft::native
