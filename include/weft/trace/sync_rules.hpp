// The rules of mutexes and joins, in one place for the two that apply them: the scheduler
// (runtime/scheduler.cpp), which runs executions, and the thread model (explore/thread_model.cpp),
// which computes the executions the scheduler would run and so must decide alike.
#pragma once

#include "weft/trace/operation.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::sync_rules {

/// Whether a lock or a join may run now: a lock while no thread holds its mutex
/// (`holder_of(mutex)` is kNoThread), a join once its thread has finished
/// (`finished(thread)`). True for the other kinds, which these rules do not decide.
template <class HolderOf, class Finished>
bool lock_or_join_may_run(const Operation& op, HolderOf&& holder_of, Finished&& finished) {
  if (op.kind == OpKind::kMutexLock) return holder_of(op.object) == kNoThread;
  if (op.kind == OpKind::kThreadJoin) return finished(static_cast<ThreadId>(op.object));
  return true;
}

/// Who holds the mutex of `op` (mutex_of) after `thread` ran it, when `holder` held it before:
/// the thread after a lock, a trylock that took it or a condition wait's wake-up; nobody after
/// an unlock or a condition wait's first half.
inline ThreadId holder_after(const Operation& op, ThreadId thread, ThreadId holder) {
  if (acquires_mutex(op)) return thread;
  if (releases_mutex(op)) return kNoThread;
  return holder;
}

/// An unlock or a condition wait by a thread that does not hold the mutex: a misuse (a bug).
inline bool gives_a_mutex_it_does_not_hold(const Operation& op, ThreadId thread, ThreadId holder) {
  return gives_mutex(op.kind) && holder != thread;
}

}  // namespace weft::sync_rules
