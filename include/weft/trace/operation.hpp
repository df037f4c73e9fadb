// Visible operations: the actions of a thread that another thread can observe or be affected by.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "weft/trace/thread_id.hpp"

namespace weft {

/// Identity of what an operation acts on: a memory address range start, a mutex, a condition
/// variable, a semaphore, or (for thread operations) a ThreadId. Objects of the in-process API get
/// keys that are stable across executions (creating thread and creation count), spaced
/// `kInProcessObjectSpacing` apart so that their address ranges never overlap.
using ObjectKey = std::uint64_t;
inline constexpr ObjectKey kInProcessObjectSpacing = ObjectKey{1} << 16;

/// Kinds of visible operation, one row each in op_kinds.def (whose order is part of the wire
/// format: append, never reorder).
enum class OpKind : std::uint8_t {
#define WEFT_OP_KIND(kind, name, domain, traits) kind,
#include "weft/trace/op_kinds.def"
#undef WEFT_OP_KIND
};
/// How many kinds there are: a byte at or past it is no kind (decoders reject it).
inline constexpr std::uint8_t kOpKindCount = 0
#define WEFT_OP_KIND(kind, name, domain, traits) +1
#include "weft/trace/op_kinds.def"
#undef WEFT_OP_KIND
    ;

/// The object of an operation that stands for an inline-assembly statement: a kYield for a
/// barrier (no operands: it names no memory), a kAtomicSection with no footprint (dependent with
/// everything) for one whose effects weft cannot see.
inline constexpr ObjectKey kInlineAsmObject = 1;

/// The slot key of thread `thread`'s `k`-th buffered store of an execution under x86-TSO
/// (OpKind::kBufferedStore): a granule no program address or in-process object has (bit 63).
inline constexpr ObjectKey store_buffer_slot(ThreadId thread, std::uint32_t k) {
  return ObjectKey{1} << 63 | ObjectKey{thread} << 32 | ObjectKey{k} * 8;
}
/// Whether `key` is a store-buffer slot key.
inline constexpr bool is_store_buffer_slot(ObjectKey key) {
  return (key >> 63) != 0;
}
/// The thread whose store a slot key stands for.
inline constexpr ThreadId store_buffer_owner(ObjectKey slot) {
  return static_cast<ThreadId>((slot >> 32) & 0x7fffffff);
}

/// What kind of object an operation acts on; operations on different domains never interact.
enum class Domain : std::uint8_t {
  kNone,
  kMemory,
  kMutex,
  kCond,
  kSemaphore,
  kThread,
  kProcess,
  kFutex,    ///< futex words (the futex system call); a futex wait also reads its word
  kChannel,  ///< message channels (pipes, sockets, eventfds; weft::channel); key: the channel
};

/// Memory is indexed in aligned granules of this many bytes; within a granule, accesses are told
/// apart by the bytes they touch (a ByteMask), so dependence and happens-before are exact to the
/// byte.
inline constexpr ObjectKey kMemoryGranule = 8;
/// Bytes of one granule: bit i stands for byte i.
using ByteMask = std::uint8_t;

/// What an atomic section read and wrote, recorded when it ends: the bytes of a few granules. A
/// section is one event made of several accesses; it depends on what they depend on (a section's
/// accesses are fixed by the values it reads, so an event independent of them cannot change
/// them). A section that is still pending, touched more granules than fit, or performed other
/// visible operations inside has no known footprint and depends on everything.
struct Footprint {
  static constexpr std::size_t kCapacity = 4;
  /// Granule index << 16 | bytes read << 8 | bytes written.
  std::array<ObjectKey, kCapacity> entries{};
  std::uint8_t count = 0;
  bool known = false;

  /// Notes an access to [address, address+size); false (and the footprint unknown) when the
  /// granules it touches no longer fit.
  bool add(ObjectKey address, std::uint64_t size, bool write);
  ObjectKey granule(std::size_t i) const { return entries[i] >> 16; }
  ByteMask read_bytes(std::size_t i) const { return static_cast<ByteMask>(entries[i] >> 8); }
  ByteMask written_bytes(std::size_t i) const { return static_cast<ByteMask>(entries[i]); }

  friend bool operator==(const Footprint&, const Footprint&) = default;
};

struct Operation {
  OpKind kind = OpKind::kYield;
  /// Outcome bits known only after execution (trylock acquired: 1). Part of the event, not of
  /// the pending operation.
  std::uint8_t result = 0;
  /// Bytes accessed (memory operations only).
  std::uint32_t size = 0;
  ObjectKey object = 0;
  /// Condition-variable operations: the associated mutex. A channel send: the messages its
  /// channel holds at most, when known (weft::channel), else 0. A selective wait: 1 when only
  /// a message makes an alternative ready (weft::select), 0 when a closed channel does too. A
  /// thread creation: the code the thread starts at, the same in every execution (0: not known).
  ObjectKey partner = 0;
  /// kCondWake of a timed wait: it may also run without a signal (a timeout is a scheduling
  /// choice); `result` then says whether it was signalled (1) or timed out (0).
  bool timed = false;
  /// kAtomicSection: what it touched (known once it has run).
  Footprint footprint{};

  friend bool operator==(const Operation&, const Operation&) = default;
};

/// Channel operations name in their footprint's entries the channels they act on besides their
/// object:
/// - a selective wait (kChannelSelect), the channels it watches, when they are at most
///   Footprint::kCapacity and known (weft::select, poll over few descriptors); otherwise it
///   watches every channel;
/// - a send, receive or close on a descriptor that epoll instances watch, those instances: what
///   an epoll_wait returns, and in which order, depends on the order of the operations on the
///   channels it watches;
/// - a change to what an epoll instance watches (kChannelWatch), the descriptor's channel.
inline bool watches_every_channel(const Operation& select) {
  return !select.footprint.known;
}
/// Whether `op` is a selective wait on every channel (dependent with every channel operation).
inline bool on_every_channel(const Operation& op) {
  return op.kind == OpKind::kChannelSelect && watches_every_channel(op);
}
/// Calls `f` with each channel a channel operation acts on (not on_every_channel): its object
/// (but a selective wait's), then its footprint's entries.
template <class F>
void for_each_channel(const Operation& op, F&& f) {
  if (op.kind != OpKind::kChannelSelect) f(op.object);
  if (!op.footprint.known) return;
  for (std::size_t i = 0; i < op.footprint.count; ++i) f(op.footprint.entries[i]);
}
/// Names `channels` (each once) in `op`'s footprint; false, and the footprint unknown, when
/// more than Footprint::kCapacity.
template <class Keys>
bool set_channels(Operation& op, const Keys& channels) {
  op.footprint = Footprint{};
  for (ObjectKey key : channels) {
    bool seen = false;
    for (std::size_t i = 0; i < op.footprint.count; ++i) seen |= op.footprint.entries[i] == key;
    if (seen) continue;
    if (op.footprint.count == Footprint::kCapacity) {
      op.footprint = Footprint{};
      return false;
    }
    op.footprint.entries[op.footprint.count++] = key;
  }
  op.footprint.known = true;
  return true;
}
/// Sets the channels `select` watches (all of them if more than fit).
template <class Keys>
void set_watched(Operation& select, const Keys& channels) {
  set_channels(select, channels);
}

/// One executed (or pending) operation of one thread.
struct Event {
  ThreadId thread = kNoThread;
  Operation op;
  friend bool operator==(const Event&, const Event&) = default;
};

/// One past the last byte of [address, address+size); a size of 0 counts as 1 byte.
inline ObjectKey byte_end(ObjectKey address, std::uint64_t size) {
  return address + (size ? size : 1);
}

/// First and last granule index that [address, address+size) touches.
inline std::pair<ObjectKey, ObjectKey> granule_span(ObjectKey address, std::uint64_t size) {
  return {address / kMemoryGranule, (byte_end(address, size) - 1) / kMemoryGranule};
}

/// The bytes of granule `g` that [address, address+size) covers.
inline ByteMask bytes_in_granule(ObjectKey address, std::uint64_t size, ObjectKey g) {
  const ObjectKey start = g * kMemoryGranule;
  const ObjectKey from = address > start ? address - start : 0;
  const ObjectKey end = byte_end(address, size);
  const ObjectKey to = end - start < kMemoryGranule ? end - start : kMemoryGranule;
  return static_cast<ByteMask>(((1u << to) - 1) & ~((1u << from) - 1));
}

/// The traits op_kinds.def gives a kind (see there).
namespace op_trait {
inline constexpr std::uint8_t kReadsValue = 1, kWritesValue = 2, kOnlyReads = 4, kMayBlock = 8,
                              kTakesMutex = 16, kGivesMutex = 32;
}
/// What op_kinds.def says of each kind, indexed by the kind.
struct OpKindTraits {
  const char* name;
  Domain domain;
  std::uint8_t traits;  ///< op_trait bits
};
inline constexpr OpKindTraits kOpKindTraits[] = {
#define WEFT_OP_KIND(kind, name, domain, traits) \
  {name, Domain::domain, [] {                    \
     using namespace op_trait;                   \
     return static_cast<std::uint8_t>(traits);   \
   }()},
#include "weft/trace/op_kinds.def"
#undef WEFT_OP_KIND
};
static_assert(sizeof kOpKindTraits / sizeof kOpKindTraits[0] == kOpKindCount);
namespace op_kind_detail {
inline constexpr const OpKindTraits& of(OpKind kind) {
  return kOpKindTraits[static_cast<std::uint8_t>(kind)];
}
}  // namespace op_kind_detail

inline Domain domain_of(OpKind kind) {
  return op_kind_detail::of(kind).domain;
}
/// Operations that only read their object: plain and atomic loads, a futex wait's compare (for
/// the commutative-reads relation).
inline bool is_read(OpKind kind) {
  return (op_kind_detail::of(kind).traits & op_trait::kOnlyReads) != 0;
}
/// Memory operations that return what they read (read, atomic load, exchange/fetch-op, CAS):
/// the bytes AccessValues::read records.
inline bool reads_value(OpKind kind) {
  return (op_kind_detail::of(kind).traits & op_trait::kReadsValue) != 0;
}
/// Memory operations that store (write, atomic store, exchange/fetch-op, CAS): the bytes
/// AccessValues::written records.
inline bool writes_value(OpKind kind) {
  return (op_kind_detail::of(kind).traits & op_trait::kWritesValue) != 0;
}
/// Lock and the second half of a condition wait: they take a mutex, and only while it is free.
inline bool takes_mutex(OpKind kind) {
  return (op_kind_detail::of(kind).traits & op_trait::kTakesMutex) != 0;
}
/// Unlock and the first half of a condition wait: they give up a mutex the thread holds.
inline bool gives_mutex(OpKind kind) {
  return (op_kind_detail::of(kind).traits & op_trait::kGivesMutex) != 0;
}
/// An exit, or an atomic section whose footprint is not known: dependent with every event of
/// every other thread.
bool touches_everything(const Operation& op);
/// A memory operation, or an atomic section with a known footprint.
bool accesses_memory(const Operation& op);
/// Calls `f(granule, read_only_bytes, written_bytes)` for each granule `op` accesses (nothing
/// unless accesses_memory(op)). A byte an atomic section both read and wrote counts as written.
template <class F>
void for_each_access(const Operation& op, F&& f) {
  if (domain_of(op.kind) == Domain::kMemory || op.kind == OpKind::kFutexWait) {
    const auto [first, last] = granule_span(op.object, op.size);
    const bool writes = !is_read(op.kind);
    for (ObjectKey g = first; g <= last; ++g) {
      const ByteMask bytes = bytes_in_granule(op.object, op.size, g);
      f(g, writes ? ByteMask{0} : bytes, writes ? bytes : ByteMask{0});
    }
    // A flush also writes its store's slot (op_kinds.def).
    if (op.kind == OpKind::kBufferFlush) f(op.partner / kMemoryGranule, ByteMask{0}, ByteMask{1});
  } else if (op.kind == OpKind::kAtomicSection && op.footprint.known) {
    for (std::size_t i = 0; i < op.footprint.count; ++i) {
      const ByteMask written = op.footprint.written_bytes(i);
      f(op.footprint.granule(i), static_cast<ByteMask>(op.footprint.read_bytes(i) & ~written),
        written);
    }
  }
}
/// Operations that may block (enabledness depends on other threads).
inline bool may_block(OpKind kind) {
  return (op_kind_detail::of(kind).traits & op_trait::kMayBlock) != 0;
}
/// A signal or broadcast that found no waiter left to wake (POSIX: it has no effect). The
/// scheduler sets `result` to 1 for one; a pending one (result 0) counts as taking effect, the
/// conservative reading.
inline bool is_lost_notification(const Operation& op) {
  return (op.kind == OpKind::kCondSignal || op.kind == OpKind::kCondBroadcast) && op.result != 0;
}

/// How a condition-variable operation touches its variable, seen as two parts (POET §2, its
/// Table 3 dependence): the number of waiters no signal has covered yet (which decides whether
/// a notification is lost) and the pool of signals left for waiters to take. A lost
/// notification only reads the number; a wait adds to it; a wake that takes a signal changes
/// only the pool (its number was counted down by that signal); a wake that timed out, and a
/// notification that takes effect, change both. So lost notifications commute with each other
/// and with wakes, and a wait with a wake (their mutex orders them when they share it). A
/// pending wake (result 0, not yet woken) counts as one that timed out: it touches both.
struct CondFootprint {
  enum class Waiters : std::uint8_t { kNone, kRead, kWritten };
  Waiters waiters = Waiters::kNone;
  bool signals_written = false;
};
inline CondFootprint cond_footprint(const Operation& op) {
  using W = CondFootprint::Waiters;
  switch (op.kind) {
    case OpKind::kCondWait:
      return {W::kWritten, false};
    case OpKind::kCondWake:
      return op.result != 0 ? CondFootprint{W::kNone, true} : CondFootprint{W::kWritten, true};
    case OpKind::kCondSignal:
    case OpKind::kCondBroadcast:
      return is_lost_notification(op) ? CondFootprint{W::kRead, false}
                                      : CondFootprint{W::kWritten, true};
    default:
      return {};
  }
}
/// `op` as it will run in another order (a race reversal moves it before the operation it
/// raced with, or runs a thread's pending operation): whether a notification is lost, or a
/// timed wake woken, depends on what ran before it, so that outcome is cleared to the reading
/// cond_footprint takes conservatively; an untimed wake runs only when woken.
inline Operation as_it_will_run(Operation op) {
  if (op.kind == OpKind::kCondWake)
    op.result = op.timed ? 0 : 1;
  else if (op.kind == OpKind::kCondSignal || op.kind == OpKind::kCondBroadcast)
    op.result = 0;
  return op;
}
/// Whether two operations on one condition variable depend on each other (cond_footprint).
inline bool cond_footprints_conflict(const Operation& x, const Operation& y) {
  using W = CondFootprint::Waiters;
  const CondFootprint a = cond_footprint(x), b = cond_footprint(y);
  const bool waiters = (a.waiters == W::kWritten && b.waiters != W::kNone) ||
                       (b.waiters == W::kWritten && a.waiters != W::kNone);
  return waiters || (a.signals_written && b.signals_written);
}

/// Operations that take a mutex: lock, successful trylock, and the reacquire of a condition wait.
inline bool acquires_mutex(const Operation& op) {
  return takes_mutex(op.kind) || (op.kind == OpKind::kMutexTryLock && op.result != 0);
}
/// Operations that give a mutex up: unlock and the release of a condition wait.
inline bool releases_mutex(const Operation& op) {
  return gives_mutex(op.kind);
}
/// The mutex an operation acquires or releases (its object, or partner for condition waits).
ObjectKey mutex_of(const Operation& op);

/// Whether `op` ends an atomic block of ExitBlock (Bruening and Chapin §4.3): a lock exit (an
/// unlock or a condition wait), or an operation the Java setting has only inside a monitor,
/// which weft takes as one of its own: a join, semaphore, barrier, futex and channel operations
/// and atomic accesses.
bool ends_atomic_block(const Operation& op);

/// Short lower-case name, e.g. "read", "lock", "cond_wait".
inline const char* op_name(OpKind kind) {
  return static_cast<std::uint8_t>(kind) < kOpKindCount ? op_kind_detail::of(kind).name : "unknown";
}
/// How reports name an object: "#0.3" for the in-process API's, the address ("0x4a20") for a
/// native program's (the driver replaces it by the variable's name).
std::string object_name(ObjectKey key);
/// Human-readable description, e.g. "write obj#3 (4 bytes)", "lock mutex#2".
std::string describe(const Operation& op, const ThreadRegistry* threads = nullptr);

}  // namespace weft
