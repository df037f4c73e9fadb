// The C library functions whose models in weft's runtime neither read the calling thread's
// storage nor hand control to code weft did not compile, so that code weft compiled calls them
// without asking for its thread pointer first (RunLimits::lazy_thread_pointer). Shared by the
// pass (thread_pointer_instrumenter.cpp), which places no request before a call to one, and the
// runtime, whose models of them resume the thread lazily when they return to code weft compiled
// (pthread_sync.cpp, pthread_threads.cpp: perform_sync_and_return, create_thread's `lazily`).
// A function goes here only when every path of its model, outside an execution included (where
// the pointer is always the thread's own), keeps to that.
#pragma once

#include <array>
#include <string_view>

namespace weft::runtime {

inline constexpr std::array<std::string_view, 14> kLazyThreadPointerCalls = {
    "pthread_mutex_lock", "pthread_mutex_trylock", "pthread_mutex_unlock",
    "pthread_spin_lock",  "pthread_spin_trylock",  "pthread_spin_unlock",
    "pthread_cond_wait",  "pthread_cond_signal",   "pthread_cond_broadcast",
    "pthread_create",     "pthread_join",          "sem_wait",
    "sem_post",           "pthread_cond_timedwait"};

/// Whether a call to `name` needs no thread pointer request before it.
constexpr bool needs_no_thread_pointer(std::string_view name) {
  for (std::string_view lazy : kLazyThreadPointerCalls)
    if (name == lazy) return true;
  return false;
}

}  // namespace weft::runtime
