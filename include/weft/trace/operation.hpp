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

/// Kinds of visible operation. Values are part of the wire format: append, never reorder.
enum class OpKind : std::uint8_t {
  kRead,          ///< plain read of [object, object+size)
  kWrite,         ///< plain write
  kAtomicLoad,    ///< seq_cst atomic load
  kAtomicStore,   ///< seq_cst atomic store
  kAtomicRmw,     ///< exchange / fetch_op
  kAtomicCas,     ///< compare-exchange (a write whether it succeeds or not: conservative)
  kMutexLock,     ///< blocks while the mutex is held
  kMutexTryLock,  ///< never blocks; `result` says whether it acquired
  kMutexUnlock,
  kCondWait,  ///< first half of a wait: release `partner` (the mutex) and start waiting
  kCondWake,  ///< second half: take a signal and reacquire `partner`; blocks until possible
  kCondSignal,
  kCondBroadcast,
  kSemWait,  ///< blocks while the count is zero; `result`: the count it found (at most 255)
  kSemPost,
  kThreadCreate,  ///< object = the created thread's id
  kThreadJoin,    ///< object = the joined thread's id; blocks until it has finished
  kYield,         ///< a scheduling point that touches nothing (object: kInlineAsmObject or 0)
  // Reserved for later issues; the scheduler rejects them today.
  kSymbolicBranch,
  kChannelSend,
  kChannelReceive,
  kBarrierWait,
  kProcessExit,  ///< the process ends (exit, return from main, abort): cuts off every thread
  kSemTryWait,   ///< never blocks; `result` says whether it took a unit
  /// A block no other thread may interleave with (__VERIFIER_atomic_* with every access a
  /// scheduling point): its accesses are not scheduling points. Once it has run, its Footprint
  /// says what it read and wrote; until then (or if it touched too much) it depends on everything.
  kAtomicSection,
  /// First half of a futex wait: compare the 4-byte word at `object` with the expected value
  /// (in `partner`) and, if equal, start waiting (`result` 1); if not, return at once (0).
  /// It reads the word, so it also depends on what writes it. Native programs only.
  kFutexWait,
  /// Wake up to `partner` threads waiting on the futex word `object`; `result` says how many
  /// (at most 255).
  kFutexWake,
  /// Second half of a futex wait: blocks until a wake (or, `timed`, may time out: `result` 1
  /// woken, 0 timed out).
  kFutexWoken,
  /// free/delete of the heap block [object, object+size): a write of the whole block, so it
  /// conflicts with every access to it (a use after free in one order, none in the other).
  kFree,
};

/// The object of an operation that stands for an inline-assembly statement: a kYield for a
/// barrier (no operands: it names no memory), a kAtomicSection with no footprint (dependent with
/// everything) for one whose effects weft cannot see.
inline constexpr ObjectKey kInlineAsmObject = 1;

/// What kind of object an operation acts on; operations on different domains never interact.
enum class Domain : std::uint8_t {
  kNone,
  kMemory,
  kMutex,
  kCond,
  kSemaphore,
  kThread,
  kProcess,
  kFutex,  ///< futex words (the futex system call); a futex wait also reads its word
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
  /// Condition-variable operations: the associated mutex.
  ObjectKey partner = 0;
  /// kCondWake of a timed wait: it may also run without a signal (a timeout is a scheduling
  /// choice); `result` then says whether it was signalled (1) or timed out (0).
  bool timed = false;
  /// kAtomicSection: what it touched (known once it has run).
  Footprint footprint{};

  friend bool operator==(const Operation&, const Operation&) = default;
};

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

Domain domain_of(OpKind kind);
/// Memory operations that only read (for the commutative-reads relation).
bool is_read(OpKind kind);
/// Memory operations that return what they read (read, atomic load, exchange/fetch-op, CAS):
/// the bytes AccessValues::read records.
bool reads_value(OpKind kind);
/// Memory operations that store (write, atomic store, exchange/fetch-op, CAS): the bytes
/// AccessValues::written records.
bool writes_value(OpKind kind);
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
  } else if (op.kind == OpKind::kAtomicSection && op.footprint.known) {
    for (std::size_t i = 0; i < op.footprint.count; ++i) {
      const ByteMask written = op.footprint.written_bytes(i);
      f(op.footprint.granule(i), static_cast<ByteMask>(op.footprint.read_bytes(i) & ~written),
        written);
    }
  }
}
/// Operations that may block (enabledness depends on other threads).
bool may_block(OpKind kind);
/// Operations that take a mutex: lock, successful trylock, and the reacquire of a condition wait.
bool acquires_mutex(const Operation& op);
/// Operations that give a mutex up: unlock and the release of a condition wait.
bool releases_mutex(const Operation& op);
/// The mutex an operation acquires or releases (its object, or partner for condition waits).
ObjectKey mutex_of(const Operation& op);

/// Short lower-case name, e.g. "read", "lock", "cond_wait".
const char* op_name(OpKind kind);
/// How reports name an object: "#0.3" for the in-process API's, the address ("0x4a20") for a
/// native program's (the driver replaces it by the variable's name).
std::string object_name(ObjectKey key);
/// Human-readable description, e.g. "write obj#3 (4 bytes)", "lock mutex#2".
std::string describe(const Operation& op, const ThreadRegistry* threads = nullptr);

}  // namespace weft
