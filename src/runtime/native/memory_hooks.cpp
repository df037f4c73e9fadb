// The hooks the pass inserts before memory accesses (see src/instrument/). With --points=all
// every shared access is a visible operation; with --points=sync plain accesses are only checked
// for data races and atomics are the scheduling points.
#include <cstdint>
#include <cstring>

#include "code_modules.hpp"
#include "heap_shadow.hpp"
#include "memory_errors.hpp"
#include "native_runtime.hpp"
#include "weft/runtime/hooks.h"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::HeapShadow;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RaceDetector;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::SpinTracker;

namespace {

// The hooks' argument encodings, shared with the pass (weft/runtime/hooks.h).
constexpr std::uint32_t kLoad = WEFT_ATOMIC_LOAD;
constexpr std::uint32_t kStore = WEFT_ATOMIC_STORE;
constexpr std::uint32_t kFence = WEFT_ATOMIC_FENCE;
constexpr std::uint32_t kAsmBarrier = WEFT_ASM_BARRIER;
// llvm::AtomicOrdering's values, which the pass passes as they are.
constexpr std::uint32_t kAcquireRelease = 6;
constexpr std::uint32_t kSequentiallyConsistent = 7;

// Whether an atomic of this kind and ordering has behaviours that sequential consistency does
// not: loads, stores and fences weaker than seq_cst, read-modify-writes weaker than acq_rel (an
// acq_rel RMW reads the latest value and orders both ways; what it lacks is only seq_cst's one
// total order, which no test here has shown to matter, and every shared_ptr copy uses it).
bool weaker_than_sequential_consistency(std::uint32_t kind, std::uint32_t ordering) {
  const bool rmw = (kind & 3) == WEFT_ATOMIC_RMW || (kind & 3) == WEFT_ATOMIC_CMPXCHG;
  return ordering < (rmw && kind != kFence ? kAcquireRelease : kSequentiallyConsistent);
}

// Every instrumented access to the heap is checked against the heap's shadow before it happens
// (memory_errors.hpp): the test is two compares and a load unless the access is wrong.
inline void check_heap(NativeRuntime& rt, const void* addr, std::uint64_t size, bool write,
                       std::uint64_t site) {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  // Not while the execution is cut short: the thread unwinds, and a bug could not stop it.
  if (HeapShadow::covers(a) && !HeapShadow::accessible(a, size) && rt.options().memory_checks &&
      !rt.scheduler().aborting())
    weft::runtime::native::heap_access_error(rt, a, size, write, site);
}

// Whether the access touches a freed heap block: a use after free, which check_heap will stop.
bool in_freed_block(const void* addr, std::uint64_t size) {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  return HeapShadow::covers(a) && !HeapShadow::accessible(a, size) &&
         HeapShadow::state(HeapShadow::first_inaccessible(a, size)) ==
             weft::runtime::native::kFreedBlock;
}

// x86-TSO: before the atomic load or store instruction at `addr` runs, memory is made to hold
// what it should act on: for a load, the thread's own buffered stores over memory (x86 forwards
// them); for a store, memory as it is, kept to be put back once the instruction has written the
// bytes the buffer takes (__weft_atomic_after). No other thread runs in between.
void buffer_access(NativeRuntime& rt, void* addr, std::uint64_t size, bool store,
                   std::uint32_t ordering, std::uint64_t site) {
  NativeRuntime::TsoAccess& a = rt.tso_access();
  // One left set up (an inline-assembly statement with two memory operands) is undone first:
  // memory is never left holding a thread's view.
  if (a.address) {
    if (a.store) rt.scheduler().complete_store(a.address);
    std::memcpy(a.address, a.memory, a.size);
    a.address = nullptr;
  }
  auto* bytes = static_cast<unsigned char*>(addr);
  a.size = static_cast<std::uint32_t>(size);
  std::memcpy(a.memory, bytes, a.size);
  if (!store) {
    unsigned char seen[8];
    std::memcpy(seen, a.memory, a.size);
    rt.scheduler().forward_buffered(reinterpret_cast<weft::ObjectKey>(addr), a.size, seen);
    if (std::memcmp(seen, a.memory, a.size) == 0) return;  // nothing of its own buffered
    std::memcpy(bytes, seen, a.size);
  }
  a.address = bytes;
  a.store = store;
  a.seq_cst = ordering == kSequentiallyConsistent;
  a.site = site;
}

// llvm::AtomicOrdering as the C/C++ order it came from (unordered taken as relaxed).
std::memory_order order_of(std::uint32_t ordering) {
  switch (ordering) {
    case 4:
      return std::memory_order_acquire;
    case 5:
      return std::memory_order_release;
    case kAcquireRelease:
      return std::memory_order_acq_rel;
    case kSequentiallyConsistent:
      return std::memory_order_seq_cst;
    default:
      return std::memory_order_relaxed;
  }
}

// RC11 (docs/memory-models.md): before the atomic instruction at `addr` runs, memory is made to
// hold the value of the store it reads, the option the directive chose among those the RC11
// machine allows; a store takes its option once it has written (__weft_atomic_after). Between
// atomic instructions memory holds the newest store in coherence order, which is what a plain
// access that does not race reads. No other thread runs in between.
void rc11_access(NativeRuntime& rt, void* addr, std::uint32_t size, std::uint32_t kind,
                 std::uint32_t ordering, const NativeRuntime::Expected& expected) {
  auto& sched = rt.scheduler();
  const auto x = reinterpret_cast<weft::ObjectKey>(addr);
  NativeRuntime::Rc11Access& a = rt.rc11_access();
  auto* bytes = static_cast<unsigned char*>(addr);
  a.address = bytes;
  a.size = size;
  a.kind = kind;
  a.order = order_of(ordering);
  a.updates = kind == WEFT_ATOMIC_RMW;
  std::memcpy(a.memory, bytes, size);
  sched.rc11_notice_memory(x, a.memory, size);
  if (kind == kStore) return;
  unsigned char read[8];
  std::memcpy(read, a.memory, size);
  if (kind == kLoad)
    sched.rc11_load(x, a.order, read, size);
  else if (kind == WEFT_ATOMIC_RMW)
    sched.rc11_update_read(x, a.order, read, size);
  else
    a.updates = sched.rc11_compare_exchange_read(x, a.order, order_of(expected.failure_ordering),
                                                 &expected.value, read, size);
  rt.log_choice();
  std::memcpy(a.read, read, size);
  std::memcpy(bytes, read, size);
}

// After the instruction rc11_access set up for: what it wrote goes into the graph.
void rc11_access_done(NativeRuntime& rt) {
  NativeRuntime::Rc11Access& a = rt.rc11_access();
  auto& sched = rt.scheduler();
  unsigned char written[8];
  std::memcpy(written, a.address, a.size);
  std::memcpy(a.address, a.memory, a.size);
  bool newest = true;
  if (a.kind == kStore) {
    newest = sched.rc11_store(reinterpret_cast<weft::ObjectKey>(a.address), a.order, a.address,
                              written, a.size);
    rt.log_choice();
  } else if (a.updates) {
    newest = sched.rc11_update_write(a.address, written, a.size);
  }
  // For a busy-wait loop: the write changed something if memory's newest value changed, or if
  // it was placed before the newest store (memory's bytes stay, yet other threads may read it),
  // unless it is a read-modify-write that wrote back what it read (a test-and-set of a held
  // lock): right after the store it read, it adds no value another thread could not read there.
  const bool wrote_what_it_read = a.updates && std::memcmp(written, a.read, a.size) == 0;
  if ((a.kind == kStore || a.updates) && rt.self().spin.active() && !wrote_what_it_read &&
      (!newest || std::memcmp(a.address, a.memory, a.size) != 0))
    rt.self().spin.note_change();
  a.address = nullptr;
}

std::uint32_t clamp_size(std::uint64_t size) {
  return size > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(size);
}

// For the busy-wait loop the thread may be in (SpinTracker); the access comes right after.
// Whether [addr, addr + size) lies on the running thread's own stack: its fiber's slot, or for
// main, the OS stack above the current frame.
bool on_own_stack(const void* addr, std::uint64_t size) {
  const auto at = reinterpret_cast<std::uintptr_t>(addr);
  const auto frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  const std::uintptr_t begin = NativeRuntime::stack_region_begin();
  if (frame >= begin && frame < NativeRuntime::stack_region_end()) {
    const std::uintptr_t slot = NativeRuntime::stack_slot_bytes();
    const std::uintptr_t mine = begin + (frame - begin) / slot * slot;
    return at >= mine && at + size <= mine + slot;
  }
  constexpr std::uintptr_t kMainStackBytes = std::uintptr_t{8} << 20;
  return at >= frame && at + size <= frame + kMainStackBytes;
}

// `own_stack_seen`: a read of the thread's own stack counts as visible (tested only for reads
// inside a busy-wait candidate, off the common path).
void note_for_spin(NativeRuntime& rt, const void* addr, std::uint64_t size, bool write,
                   bool visible, bool own_stack_seen = false) {
  SpinTracker& spin = rt.self().spin;
  if (!spin.active() || spin.iteration_changed()) return;
  if (write)
    spin.note_plain_write(addr, size, reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)));
  else
    spin.note_read(addr, size, visible || (own_stack_seen && on_own_stack(addr, size)));
}

// An atomic access is a visible event, or part of one (a section's). Under RC11 memory holds
// the value of the store it reads (rc11_access); whether its write changed anything is decided
// once it has written (rc11_access_done).
void note_atomic_for_spin(NativeRuntime& rt, const void* addr, std::uint64_t size,
                          std::uint32_t kind) {
  SpinTracker& spin = rt.self().spin;
  if (!spin.active()) return;
  // A read-modify-write reads too (and a failed compare-exchange writes nothing).
  if (kind != kStore) spin.note_read(addr, size, true);
  if (kind != kLoad && rt.rc11_access().address != addr) spin.note_atomic_write(addr, size);
}

// With --points=sync: the access's data races with earlier accesses (and frees) of other
// threads. Checked before the heap, which stops the thread at a use after free: the access
// races with the free it comes after, and only that report makes the next round explore the
// access before the free (race-directed points), where the program may go on to other errors.
void note_races(NativeRuntime& rt, const void* addr, std::uint64_t size, bool write, bool atomic,
                std::uint64_t site) {
  auto& sched = rt.scheduler();
  auto reports = rt.races().access(
      RaceDetector::Access{sched.self(), reinterpret_cast<std::uintptr_t>(addr), size, write,
                           atomic, site, false, in_freed_block(addr, size)},
      rt.registry());
  if (!reports.empty() && rt.break_on_bug) asm volatile("int3");  // weft replay --gdb
  for (auto& report : reports) sched.note_failure(weft::Outcome::kDataRace, std::move(report));
}

void plain_access(void* addr, std::uint64_t size, bool write, std::uint64_t site) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || size == 0) return;
  // Inside an atomic section with every access visible, the access is part of the section.
  if (rt->options().every_access && rt->self().atomic_depth > 0)
    rt->self().section.add(reinterpret_cast<weft::ObjectKey>(addr), size, write);
  // While the main thread is the only thread there has been, no access can race or be
  // reordered with another thread's: everything it does happens before every later thread.
  if (rt->threads_created() == 1) {
    check_heap(*rt, addr, size, write, site);
    // No other thread can change what a busy-wait loop of main's reads: as good as visible.
    if (rt->self().spin.active()) {
      RuntimeScope scope(*rt);
      note_for_spin(*rt, addr, size, write, true);
    }
    return;
  }
  RuntimeScope scope(*rt);
  auto& sched = rt->scheduler();
  const bool in_section = rt->self().atomic_depth > 0;
  const bool all = rt->options().every_access;
  // With --points=sync, the instructions of races found earlier are scheduling points too
  // (race-directed points), and still checked for races below.
  const bool promoted = !all && !in_section && rt->options().promoted(site);
  if ((all && !in_section) || promoted) {
    sched.perform(Operation{write ? OpKind::kWrite : OpKind::kRead, 0, clamp_size(size),
                            reinterpret_cast<weft::ObjectKey>(addr), 0},
                  site, true);
    if (promoted) note_races(*rt, addr, size, write, false, site);
    // Checked once it is its turn: a free may have run while it waited.
    check_heap(*rt, addr, size, write, site);
    if (rt->options().record_values && !write) rt->note_value_read(addr, size);
    // What the access right after this hook sees: no other thread runs in between.
    note_for_spin(*rt, addr, size, write, true);
    return;
  }
  // Accesses in atomic sections are atomic accesses for the race property (SV-COMP's
  // convention): they race only with plain accesses.
  if (!all) note_races(*rt, addr, size, write, in_section, site);
  check_heap(*rt, addr, size, write, site);
  // For weft's thread model: what the thread's code between its events reads and writes.
  // (An atomic section is a lock here: its accesses are as those of any critical section.)
  if (rt->options().segments) rt->note_segment_access(addr, size, write, site);
  // Inside an atomic section (with every access visible) no other thread runs: as good as
  // visible. With --points=sync a plain read is not an event the strategies could reorder,
  // unless it reads the thread's own stack (a loop's local that a function it calls updates
  // through a pointer, such as compare_exchange's expected value): another thread writes there
  // only through a pointer the thread gave it, racily (a race it reports) or ordered by the
  // events the strategies do reorder.
  note_for_spin(*rt, addr, size, write, all, /*own_stack_seen=*/true);
}

}  // namespace

extern "C" {

void __weft_read(void* addr, std::uint64_t size) {
  plain_access(addr, size, false, WEFT_CALLER_SITE());
}
void __weft_write(void* addr, std::uint64_t size) {
  plain_access(addr, size, true, WEFT_CALLER_SITE());
}
void __weft_read_range(void* addr, std::uint64_t size) {
  plain_access(addr, size, false, WEFT_CALLER_SITE());
}
void __weft_write_range(void* addr, std::uint64_t size) {
  plain_access(addr, size, true, WEFT_CALLER_SITE());
}

// Each atomic instruction is one visible operation, run right after this returns. Under
// sequential consistency that is all (weaker orderings are noted for the verdict). Under x86-TSO
// (docs/memory-models.md) a load or store of up to 8 bytes runs against memory set up for it
// (buffer_access) and __weft_atomic_after undoes that; read-modify-writes drain the buffer
// (perform does), and a seq_cst fence waits for it (mfence); other fences are no-ops on x86.
// Under RC11 one of up to 8 bytes acts on the store the RC11 machine lets it read (rc11_access);
// a fence goes into the graph.
void __weft_atomic(void* addr, std::uint64_t size, std::uint32_t kind, std::uint32_t ordering) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  const std::uint64_t site = WEFT_CALLER_SITE();
  RuntimeScope scope(*rt);
  const weft::MemoryModel model = rt->scheduler().memory_model();
  const bool in_library = (kind & WEFT_ATOMIC_IN_LIBRARY) != 0 || rt->self().library_atomics > 0;
  kind &= ~std::uint32_t{WEFT_ATOMIC_IN_LIBRARY};
  // Under RC11 only the accesses it does not model (over 8 bytes, of mixed sizes: below, or a
  // library's internals: atomic_access_instrumenter.cpp) are taken as seq_cst.
  if (weaker_than_sequential_consistency(kind, ordering) &&
      (model != weft::MemoryModel::kRc11 || size > 8 || in_library))
    rt->note_weak_atomic(site, in_library);
  if (in_library && model == weft::MemoryModel::kRc11) {
    ordering = kSequentiallyConsistent;
    rt->expected().failure_ordering = kSequentiallyConsistent;
  }
  const bool tso = model == weft::MemoryModel::kTso;
  const NativeRuntime::Expected expected = rt->expected();
  if (kind == kFence) {
    if (tso && ordering == kSequentiallyConsistent) rt->scheduler().fence(site);
    // Under RC11 a fence is no step of its own: it joins the graph right after its thread's
    // last event, and every consistent graph is reached so (docs/memory-models.md, "Fences").
    if (model == weft::MemoryModel::kRc11 && ordering > 2) {
      rt->scheduler().rc11_fence(order_of(ordering));
      rt->log_choice();
    }
    return;
  }
  static constexpr OpKind kOps[] = {OpKind::kAtomicLoad, OpKind::kAtomicStore, OpKind::kAtomicRmw,
                                    OpKind::kAtomicCas};
  auto& sched = rt->scheduler();
  // Inside an atomic section with every access visible, the section is the visible operation.
  if (rt->options().every_access && rt->self().atomic_depth > 0) {
    check_heap(*rt, addr, size, kind != kLoad, site);
    rt->self().section.add(reinterpret_cast<weft::ObjectKey>(addr), size, kind != kLoad);
    note_atomic_for_spin(*rt, addr, size, kind);
    return;
  }
  const bool buffered = tso && (kind == kLoad || kind == kStore) && size <= 8;
  if (buffered && kind == kStore) {
    // Into the buffer, with its bytes once the instruction has written them.
    sched.store(reinterpret_cast<weft::ObjectKey>(addr), addr, nullptr,
                static_cast<std::uint32_t>(size), site, true);
  } else {
    sched.perform(
        Operation{kOps[kind & 3], 0, clamp_size(size), reinterpret_cast<weft::ObjectKey>(addr), 0},
        site, true);
  }
  if (buffered) buffer_access(*rt, addr, size, kind == kStore, ordering, site);

  // Races first, as for plain accesses: an atomic access to a freed block races with the free.
  if (!rt->options().every_access) {
    auto reports = rt->races().access(
        RaceDetector::Access{sched.self(), reinterpret_cast<std::uintptr_t>(addr), size,
                             kind != kLoad, true, site, false, in_freed_block(addr, size)},
        rt->registry());
    for (auto& report : reports) sched.note_failure(weft::Outcome::kDataRace, std::move(report));
  }
  check_heap(*rt, addr, size, kind != kLoad, site);
  if (model == weft::MemoryModel::kRc11 && size <= 8) {
    if (!sched.rc11_mixed_size(reinterpret_cast<weft::ObjectKey>(addr),
                               static_cast<std::uint32_t>(size)))
      rc11_access(*rt, addr, static_cast<std::uint32_t>(size), kind, ordering, expected);
    else if (weaker_than_sequential_consistency(kind, ordering))
      rt->note_weak_atomic(site);
  }
  if ((kind & 3) != kStore && rt->options().record_values) rt->note_value_read(addr, size);
  note_atomic_for_spin(*rt, addr, size, kind);
}

// Around a call from a library's internals into <atomic>'s functions
// (atomic_access_instrumenter.cpp).
void __weft_library_atomics(std::uint32_t entering) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  int& depth = rt->self().library_atomics;
  depth = entering ? depth + 1 : (depth > 0 ? depth - 1 : 0);
}

// After an atomic instruction of up to 8 bytes: under x86-TSO, what buffer_access set up for a
// load or store is undone (a store's bytes go into the buffer, memory gets back what it held);
// under RC11, what rc11_access set up.
void __weft_atomic_after(void) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  if (rt->rc11_access().address) {
    RuntimeScope scope(*rt);
    rc11_access_done(*rt);
    return;
  }
  if (!rt->tso_access().address) return;
  RuntimeScope scope(*rt);
  NativeRuntime::TsoAccess& a = rt->tso_access();
  if (a.store) rt->scheduler().complete_store(a.address);
  std::memcpy(a.address, a.memory, a.size);
  a.address = nullptr;
  if (a.store && a.seq_cst) rt->scheduler().fence(a.site);  // mov + mfence
}

// A compare-exchange's expected value, for the __weft_atomic that follows (under RC11 it decides
// which stores the instruction may read).
void __weft_atomic_expect(std::uint64_t expected, std::uint32_t failure_ordering) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  rt->expected() = {expected, failure_ordering};
}

// An inline-assembly statement (inline_asm_instrumenter.cpp). A barrier (no operands) is a
// scheduling point that touches nothing; any other may do anything weft cannot see, so it is
// dependent with every operation (an atomic section with no footprint). While main is the only
// thread there is nothing to interleave.
void __weft_asm(std::uint32_t kind) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || rt->threads_created() == 1) return;
  RuntimeScope scope(*rt);
  const OpKind op = kind == kAsmBarrier ? OpKind::kYield : OpKind::kAtomicSection;
  rt->scheduler().perform(Operation{op, 0, 0, weft::kInlineAsmObject, 0}, WEFT_CALLER_SITE(), true);
}

// Instrumented code's request for the running thread's thread pointer before it reads its
// storage (thread_pointer_instrumenter.cpp): after an access hook above, the scheduler may have
// left another thread's there.
void __weft_sync_thread_pointer(void) {
  weft::runtime::Scheduler::sync_thread_pointer();
}

// Before a return: only to code outside the executable, which may read its storage once the
// callback it called returns (code weft compiled asks for itself; the runtime's, where it runs
// the program's code or the C library's on its behalf).
void __weft_sync_thread_pointer_on_return(void* return_address) {
  if (!weft::runtime::native::in_executable_code(return_address))
    weft::runtime::Scheduler::sync_thread_pointer();
}

}  // extern "C"
