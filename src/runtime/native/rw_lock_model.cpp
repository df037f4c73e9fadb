// Reader-writer locks from the scheduler's mutexes and condition variables (rw_lock_model.hpp).
#include "rw_lock_model.hpp"

#include <errno.h>

namespace weft::runtime::native {

void rw_enter(NativeRuntime& rt, const volatile void* lock, std::uint64_t site) {
  perform_sync(rt, OpKind::kMutexLock, lock, site);
}

void rw_leave(NativeRuntime& rt, const volatile void* lock, std::uint64_t site) {
  perform_sync(rt, OpKind::kMutexUnlock, lock, site);
}

void rw_take(NativeRuntime& rt, const volatile void* lock, RwLockState& state, bool write,
             std::uint64_t site) {
  while (state.writer != kNoThread || (write && state.readers > 0))
    perform_sync(rt, OpKind::kCondWait, lock, site, lock);
  if (write)
    state.writer = rt.scheduler().self();
  else
    ++state.readers;
}

bool rw_release(NativeRuntime& rt, const volatile void* lock, RwLockState& state,
                std::uint64_t site) {
  if (state.writer != kNoThread)
    state.writer = kNoThread;
  else if (state.readers > 0)
    --state.readers;
  else
    return false;
  perform_sync(rt, OpKind::kCondBroadcast, lock, site);
  return true;
}

int rw_lock(NativeRuntime& rt, const volatile void* lock, bool write, bool try_only,
            std::uint64_t site) {
  auto& state = rw_state(rt, lock);
  rw_enter(rt, lock, site);
  if (try_only && (state.writer != kNoThread || (write && state.readers > 0))) {
    rw_leave(rt, lock, site);
    return EBUSY;
  }
  rw_take(rt, lock, state, write, site);
  rw_leave(rt, lock, site);
  return 0;
}

int rw_unlock(NativeRuntime& rt, const volatile void* lock, std::uint64_t site) {
  auto& state = rw_state(rt, lock);
  rw_enter(rt, lock, site);
  if (!rw_release(rt, lock, state, site)) {
    RuntimeScope scope(rt);  // the message is weft's, not the program's heap
    rt.fail(weft::Outcome::kMisuse, "thread " + rt.registry().name(rt.scheduler().self()) +
                                        " unlocks a reader-writer lock nobody holds");
  }
  rw_leave(rt, lock, site);
  return 0;
}

}  // namespace weft::runtime::native
