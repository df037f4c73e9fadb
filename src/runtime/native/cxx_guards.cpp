// The C++ ABI's guards of function-local statics, which the pass sends the program's calls to
// (src/instrument/cxx_guard_redirector.cpp). As the ABI describes them: the first thread to
// acquire a guard holds it (a modelled mutex on the guard) while it constructs the object;
// release publishes the guard's first byte with an atomic store, which the inline test's acquire
// load of that byte is ordered after, and lets the waiters in, who then find the object built.
// libstdc++'s own implementation works with atomics and a futex inside its shared library,
// which weft would not see.
#include <cxxabi.h>

#include <cstdint>

#include "native_runtime.hpp"
#include "weft/runtime/hooks.h"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

using Guard = __cxxabiv1::__guard;

bool constructed(const void* guard) {
  return *static_cast<const volatile unsigned char*>(guard) != 0;
}

void unlock(NativeRuntime& rt, void* guard, std::uint64_t site) {
  weft::runtime::native::perform_sync(rt, OpKind::kMutexUnlock, guard, site);
}

}  // namespace

extern "C" {

std::uint32_t __weft_guard_acquire(void* guard) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return __cxxabiv1::__cxa_guard_acquire(static_cast<Guard*>(guard));
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  weft::runtime::native::perform_sync(*rt, OpKind::kMutexLock, guard, site);
  rt->note_runtime_state();           // the guard's byte is read here, not by an event
  if (!constructed(guard)) return 1;  // this thread constructs, holding the guard
  unlock(*rt, guard, site);
  return 0;
}

void __weft_guard_release(void* guard) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return __cxxabiv1::__cxa_guard_release(static_cast<Guard*>(guard));
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  rt->scheduler().perform(Operation{OpKind::kAtomicStore, 0, 1, key_of(guard), 0}, site);
  const unsigned char before = *static_cast<volatile unsigned char*>(guard), done = 1;
  rt->scheduler().rc11_outside_access(key_of(guard), 1, &before, &done, false);
  *static_cast<volatile unsigned char*>(guard) = done;
  unlock(*rt, guard, site);
}

void __weft_guard_abort(void* guard) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return __cxxabiv1::__cxa_guard_abort(static_cast<Guard*>(guard));
  RuntimeScope scope(*rt);
  unlock(*rt, guard, WEFT_CALLER_SITE());
}

}  // extern "C"
