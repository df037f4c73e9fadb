// malloc and friends: inside an execution, a program thread's allocations come from its own
// ThreadHeap; the runtime's own allocations, and everything outside an execution, go to the C
// library's malloc.
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "memory_errors.hpp"
#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "thread_heap.hpp"
#include "weft/runtime/hooks.h"

extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
}

using weft::runtime::native::AllocKind;
using weft::runtime::native::FreeCall;
using weft::runtime::native::FreeDetails;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RaceDetector;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::ThreadHeap;

namespace {

// The heap of the program thread that is running, or nullptr when the allocation is not the
// program's (no execution, the scheduler itself, or runtime code on a program thread).
ThreadHeap* program_heap(std::uint32_t& slot) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return nullptr;
  return rt->program_heap(slot);
}

std::uint32_t running_thread() {
  NativeRuntime* rt = NativeRuntime::active();
  return rt ? rt->scheduler().self() : 0;
}

// `site`: the return address into the program (reports say where a block was allocated).
void* allocate(size_t bytes, size_t alignment, std::uint64_t site,
               AllocKind kind = AllocKind::kMalloc) {
  std::uint32_t slot = 0;
  if (ThreadHeap* heap = program_heap(slot)) {
    if (void* p = heap->allocate(bytes, alignment, slot, site, running_thread(), kind)) return p;
  }
  return alignment <= 16 ? __libc_malloc(bytes) : __libc_memalign(alignment, bytes);
}

// The bytes a free or realloc of `p`, a block of the threads' heaps, changes: all of its usable
// bytes, not only those it asked for (the heap shadow marks them all freed; a realloc in place
// gives the program some of them or takes them back).
std::size_t freed_bytes(void* p) {
  const auto block = ThreadHeap::inspect(p);
  return block && !block->freed ? std::max<std::size_t>(ThreadHeap::usable_size(p), 1) : 1;
}

// The visible operation of a free or a realloc of `p` (a block of the threads' heaps), once there
// is another thread to interleave with: a write of all the block's bytes, so that it conflicts
// with every access to the block. Performed before the block is looked at: another thread may
// free it while this one waits. Returns whether it was performed.
bool perform_free(NativeRuntime& rt, void* p, std::uint64_t site) {
  auto& sched = rt.scheduler();
  if (rt.threads_created() <= 1 || sched.aborting()) return false;
  const std::size_t size = freed_bytes(p);
  RuntimeScope scope(rt);
  sched.perform(weft::Operation{weft::OpKind::kFree, 0, static_cast<std::uint32_t>(size),
                                reinterpret_cast<weft::ObjectKey>(p), 0},
                site);
  return true;
}

// With --points=sync, after the operation: the races of a free (`free`) or of an in-place
// realloc (a write of the whole block) of the live block `p` with earlier accesses.
void note_free_races(NativeRuntime& rt, void* p, std::uint64_t site, bool free) {
  if (rt.options().every_access) return;
  auto& sched = rt.scheduler();
  RuntimeScope scope(rt);
  auto reports =
      rt.races().access(RaceDetector::Access{sched.self(), reinterpret_cast<std::uintptr_t>(p),
                                             freed_bytes(p), true, false, site, free},
                        rt.registry());
  for (auto& report : reports) sched.note_failure(weft::Outcome::kDataRace, std::move(report));
}

// A block of the threads' heaps goes, and with it any expressions of inputs its bytes held (a
// block handed out there later would show them).
void forget_expressions(void* p) {
  if (WEFT_SYM_MEMORY && ThreadHeap::owns(p)) __weft_sym_store(p, freed_bytes(p), 0);
}

// A deallocation by the program: a visible operation that conflicts with every access to the
// block (once there is another thread to interleave with; `performed`: realloc performed it
// already), checked before the block goes.
void release_checked(NativeRuntime& rt, ThreadHeap& heap, void* p, std::uint64_t site,
                     const FreeDetails& how, bool performed = false) {
  if (!ThreadHeap::owns(p)) {
    // A block of the C library's (from before the execution, or weft's own code freeing on a
    // program thread): no operation of the program's heap, but never a stack or global address.
    (void)check_free(rt, p, how, site);
    return __libc_free(p);
  }
  const bool shared = performed || perform_free(rt, p, site);
  // After the operation: another thread may have freed the block while this one waited.
  (void)check_free(rt, p, how, site);
  if (shared) note_free_races(rt, p, site, true);
  // After the operation: until then another thread may still read the block's bytes.
  forget_expressions(p);
  heap.release(p, site, rt.scheduler().self());
}

void release(void* p, std::uint64_t site, const FreeDetails& how = {}) {
  if (!p) return;
  std::uint32_t slot = 0;
  ThreadHeap* heap = program_heap(slot);
  NativeRuntime* rt = NativeRuntime::active();
  // The thread model does not follow a free outside the events (without memory checks): what
  // the heap hands out next depends on it.
  if (heap && rt->options().segments && rt->threads_created() > 1) rt->self().segment.make_opaque();
  // While an execution is cut short, destructors that free run unchecked: a bug found there
  // could not stop their thread (they may not throw).
  if (heap && rt->options().memory_checks && !rt->scheduler().aborting())
    return release_checked(*rt, *heap, p, site, how);
  if (!ThreadHeap::owns(p)) return __libc_free(p);
  forget_expressions(p);
  if (heap) heap->release(p, site, running_thread());
  // Freed by the runtime or after the execution: the block is simply not reused.
}

std::uint64_t caller(void* return_address) {
  return reinterpret_cast<std::uint64_t>(return_address);
}

// A copy of the `length` bytes at `s` with a terminating zero.
char* duplicate(const char* s, size_t length, std::uint64_t site) {
  auto* p = static_cast<char*>(allocate(length + 1, 16, site));
  if (!p) return nullptr;
  std::memcpy(p, s, length);
  if (WEFT_SYM_MEMORY) __weft_sym_copy(p, s, length);
  p[length] = '\0';
  return p;
}

}  // namespace

extern "C" {

void* malloc(size_t bytes) {
  return allocate(bytes, 16, caller(__builtin_return_address(0)));
}

void free(void* p) {
  release(p, caller(__builtin_return_address(0)));
}

void* calloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  std::uint32_t slot = 0;
  if (!program_heap(slot)) return __libc_calloc(count, size);
  void* p = allocate(bytes, 16, caller(__builtin_return_address(0)));
  if (p) std::memset(p, 0, bytes);  // recycled blocks are not zero
  return p;
}

void* realloc(void* p, size_t bytes) {
  const std::uint64_t site = caller(__builtin_return_address(0));
  if (!p) return allocate(bytes, 16, site);
  const FreeDetails how{FreeCall::kRealloc, {}, {}};
  if (bytes == 0) {
    release(p, site, how);
    return nullptr;
  }
  std::uint32_t slot = 0;
  ThreadHeap* heap = program_heap(slot);
  NativeRuntime* rt = NativeRuntime::active();
  const bool checked = heap && rt->options().memory_checks && !rt->scheduler().aborting();
  // One visible operation for the whole realloc, as for a free: whether it moves the block or
  // resizes it in place, it conflicts with every access to the block (reads of what it copies,
  // accesses to the bytes it adds or removes).
  const bool performed = checked && ThreadHeap::owns(p) && perform_free(*rt, p, site);
  // A freed block, or something that is no block, stops the thread, as free would.
  if (checked) (void)weft::runtime::native::check_free(*rt, p, how, site);
  if (!ThreadHeap::owns(p)) {
    if (!heap) return __libc_realloc(p, bytes);
    void* q = allocate(bytes, 16, site);
    if (q) {
      std::memcpy(q, p, std::min(bytes, malloc_usable_size(p)));
      if (WEFT_SYM_MEMORY) __weft_sym_copy(q, p, std::min(bytes, malloc_usable_size(p)));
      __libc_free(p);
    }
    return q;
  }
  const size_t have = ThreadHeap::usable_size(p);
  if (bytes <= have) {
    if (performed) note_free_races(*rt, p, site, false);
    ThreadHeap::set_requested(p, bytes);
    return p;
  }
  void* q = allocate(bytes, 16, site);
  if (q) {
    std::memcpy(q, p, have);
    if (WEFT_SYM_MEMORY) __weft_sym_copy(q, p, have);
    if (checked)
      release_checked(*rt, *heap, p, site, how, performed);
    else
      release(p, site, how);
  }
  return q;
}

int posix_memalign(void** out, size_t alignment, size_t bytes) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = allocate(bytes, alignment, caller(__builtin_return_address(0)));
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void* aligned_alloc(size_t alignment, size_t bytes) {
  return allocate(bytes, alignment, caller(__builtin_return_address(0)));
}
void* memalign(size_t alignment, size_t bytes) {
  return allocate(bytes, alignment, caller(__builtin_return_address(0)));
}
void* valloc(size_t bytes) {
  return allocate(bytes, 4096, caller(__builtin_return_address(0)));
}
void* pvalloc(size_t bytes) {
  return allocate((bytes + 4095) & ~size_t{4095}, 4096, caller(__builtin_return_address(0)));
}

// The C library's strdup family allocates with malloc, which is weft's. They are defined here
// nevertheless for programs built with -fsanitize=address: ASan's versions of these take the
// memory from ASan's own heap, and the program's free (weft's) cannot give it back.
char* strdup(const char* s) {
  return duplicate(s, std::strlen(s), caller(__builtin_return_address(0)));
}
char* __strdup(const char* s) {
  return duplicate(s, std::strlen(s), caller(__builtin_return_address(0)));
}
char* strndup(const char* s, size_t limit) {
  return duplicate(s, strnlen(s, limit), caller(__builtin_return_address(0)));
}
char* __strndup(const char* s, size_t limit) {
  return duplicate(s, strnlen(s, limit), caller(__builtin_return_address(0)));
}
// ASan's realpath allocates the result of realpath(path, NULL) from its heap; the C library's,
// with malloc.
char* realpath(const char* path, char* resolved) {
  return WEFT_REAL(realpath, path, resolved);
}

size_t malloc_usable_size(void* p) {
  if (!p) return 0;
  // What the program asked for: the slack after it is not the program's (heap_shadow.hpp).
  if (ThreadHeap::owns(p)) {
    if (auto block = ThreadHeap::inspect(p)) return block->requested;
    return ThreadHeap::usable_size(p);
  }
  static auto real = reinterpret_cast<size_t (*)(void*)>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  return real ? real(p) : 0;
}

}  // extern "C"

// operator new and delete, so that a block's allocation site is the program's line rather than
// the inside of libstdc++'s operator new (which calls malloc).
namespace {

void* allocate_or_throw(std::size_t bytes, std::size_t alignment, std::uint64_t site,
                        AllocKind kind) {
  while (true) {
    if (void* p = allocate(bytes ? bytes : 1, alignment, site, kind)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* allocate_or_null(std::size_t bytes, std::size_t alignment, std::uint64_t site,
                       AllocKind kind) noexcept {
  try {
    return allocate_or_throw(bytes, alignment, site, kind);
  } catch (...) {
    return nullptr;
  }
}

std::size_t alignment_of(std::align_val_t a) {
  return static_cast<std::size_t>(a);
}

}  // namespace

void* operator new(std::size_t n) {
  return allocate_or_throw(n, 16, caller(__builtin_return_address(0)), AllocKind::kNew);
}
void* operator new[](std::size_t n) {
  return allocate_or_throw(n, 16, caller(__builtin_return_address(0)), AllocKind::kNewArray);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, 16, caller(__builtin_return_address(0)), AllocKind::kNew);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, 16, caller(__builtin_return_address(0)), AllocKind::kNewArray);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return allocate_or_throw(n, alignment_of(a), caller(__builtin_return_address(0)),
                           AllocKind::kNew);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return allocate_or_throw(n, alignment_of(a), caller(__builtin_return_address(0)),
                           AllocKind::kNewArray);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, alignment_of(a), caller(__builtin_return_address(0)), AllocKind::kNew);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate_or_null(n, alignment_of(a), caller(__builtin_return_address(0)),
                          AllocKind::kNewArray);
}

// Each form says how the block must have been allocated and, if sized or aligned, its size
// and alignment: a mismatch is a bug (memory_errors.hpp).
#define WEFT_DELETE(signature, call, size, alignment)                                              \
  void signature noexcept {                                                                        \
    release(p, caller(__builtin_return_address(0)), FreeDetails{FreeCall::call, size, alignment}); \
  }
WEFT_DELETE(operator delete(void* p), kDelete, {}, {})
WEFT_DELETE(operator delete[](void* p), kDeleteArray, {}, {})
WEFT_DELETE(operator delete(void* p, std::size_t n), kDelete, n, {})
WEFT_DELETE(operator delete[](void* p, std::size_t n), kDeleteArray, n, {})
WEFT_DELETE(operator delete(void* p, std::align_val_t a), kDelete, {}, alignment_of(a))
WEFT_DELETE(operator delete[](void* p, std::align_val_t a), kDeleteArray, {}, alignment_of(a))
WEFT_DELETE(operator delete(void* p, std::size_t n, std::align_val_t a), kDelete, n,
            alignment_of(a))
WEFT_DELETE(operator delete[](void* p, std::size_t n, std::align_val_t a), kDeleteArray, n,
            alignment_of(a))
WEFT_DELETE(operator delete(void* p, const std::nothrow_t&), kDelete, {}, {})
WEFT_DELETE(operator delete[](void* p, const std::nothrow_t&), kDeleteArray, {}, {})
WEFT_DELETE(operator delete(void* p, std::align_val_t a, const std::nothrow_t&), kDelete, {},
            alignment_of(a))
WEFT_DELETE(operator delete[](void* p, std::align_val_t a, const std::nothrow_t&), kDeleteArray, {},
            alignment_of(a))
#undef WEFT_DELETE
