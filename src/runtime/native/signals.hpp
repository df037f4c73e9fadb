// Signals between the program's threads (signals.cpp).
#pragma once

#include <signal.h>

#include <cstdint>

#include "weft/trace/thread_id.hpp"

namespace weft {
struct Trace;
}

namespace weft::runtime::native {

class NativeRuntime;

/// What an execution keeps of signals besides each thread's mask and pending set (NativeThread).
struct SignalState {
  /// Signals sent to the process and not yet taken by a thread.
  sigset_t process_pending{};
  /// The OS thread's signal mask now: while a program thread runs, its own.
  sigset_t os_mask{};
  /// Some thread's mask may differ from another's: each step gives the OS thread the mask of
  /// the thread that runs.
  bool masks_vary = false;
  /// Some living thread does not block a signal pending for it or for the process: each step
  /// looks whether its thread takes one.
  bool deliverable = false;
  /// Who sent the signal pending last, and where: it runs its handler where it sent it; another
  /// thread that takes it runs it at the end of its next step (the verdict says so).
  ThreadId sender = kNoThread;
  std::uint64_t send_site = 0;
};

/// The OS thread's signal mask when the process started. Read once: a worker does so before its
/// snapshot, and restores the mask after each execution that changed it (process_state.cpp).
const sigset_t& process_signal_mask();

/// At the start of an execution: the first thread has the mask the process started with.
void start_signals(NativeRuntime& rt);

/// Wakes every thread waiting for a signal (a visible operation): the caller then makes the
/// signal pending, in the same step, for a thread or for the process.
void wake_signal_waiters(NativeRuntime& rt, std::uint64_t site);

/// After the calling thread changed its signal mask (the OS thread's, its own while it runs):
/// signals pending for it or for the process that it no longer blocks are delivered to it now,
/// as the kernel would.
void note_signal_mask_changed(NativeRuntime& rt, std::uint64_t site);

/// pthread_kill or pthread_sigqueue of `sig` to thread `target`, another living thread.
void send_to_thread(NativeRuntime& rt, ThreadId target, int sig, std::uint64_t site);

/// The program installed a signal handler (sigaction, signal): from then on a sleep is a step
/// that a signal may interrupt, dependent with the sends (one that cannot be is a plain yield).
void note_signal_handler_installed();

/// sleep, nanosleep, poll, select with nothing ready: one scheduling point at which a signal may
/// interrupt the calling thread. True if a signal's handler ran in it there (the call then fails
/// with EINTR, as the kernel's does).
bool interruptible_sleep(NativeRuntime& rt, std::uint64_t site);

/// At the end of an execution that ended in a deadlock: if a blocked thread could have taken a
/// pending signal, which would have interrupted or run a handler during a wait weft does not
/// interrupt, the execution stops as not modelled instead of blaming the program.
void explain_blocked_signals(NativeRuntime& rt, Trace& trace);

}  // namespace weft::runtime::native
