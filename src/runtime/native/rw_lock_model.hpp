// Reader-writer locks as weft models them, for pthread_rwlock_t, GLib's GRWLock (through the
// pthread functions) and absl::Mutex (abseil_sync.cpp). A lock's readers and writer are weft's
// state (RwLockState, by the lock's address), changed only while a guard is held: the
// scheduler's mutex on the lock's address. A thread that cannot take the lock waits on the
// scheduler's condition variable on the same address, which every release broadcasts; so the
// lock's semantics come out of the modelled mutexes and condition variables.
#pragma once

#include <cstdint>

#include "native_runtime.hpp"

namespace weft::runtime::native {

/// Takes and releases the guard of `lock`.
void rw_enter(NativeRuntime& rt, const volatile void* lock, std::uint64_t site);
void rw_leave(NativeRuntime& rt, const volatile void* lock, std::uint64_t site);

/// The guard held: takes `lock` for writing or reading, waiting (the guard released meanwhile)
/// while another thread holds it in a conflicting mode.
void rw_take(NativeRuntime& rt, const volatile void* lock, RwLockState& state, bool write,
             std::uint64_t site);

/// The guard held: releases the caller's hold on `lock` and wakes the threads waiting to take
/// it. False when nobody held it.
bool rw_release(NativeRuntime& rt, const volatile void* lock, RwLockState& state,
                std::uint64_t site);

/// The whole of a lock and an unlock: 0, or EBUSY when `try_only` and it is held; an unlock of
/// a lock nobody holds is the program's misuse.
int rw_lock(NativeRuntime& rt, const volatile void* lock, bool write, bool try_only,
            std::uint64_t site);
int rw_unlock(NativeRuntime& rt, const volatile void* lock, std::uint64_t site);

/// The state of `lock` (weft's, not an event: the caller notes it as runtime state).
inline RwLockState& rw_state(NativeRuntime& rt, const volatile void* lock) {
  rt.note_runtime_state();
  return rt.rwlocks()[key_of(lock)];
}

}  // namespace weft::runtime::native
