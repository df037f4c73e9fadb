// Signals between the program's threads (signals.cpp).
#pragma once

#include <cstdint>

namespace weft::runtime::native {

class NativeRuntime;

/// Wakes every thread waiting for a signal (a visible operation): the caller then makes the
/// signal pending, in the same step, for a thread or for the process.
void wake_signal_waiters(NativeRuntime& rt, std::uint64_t site);

/// After the calling thread changed its signal mask: the signals pending for the process that it
/// no longer blocks are delivered to it now, as the kernel would.
void deliver_unblocked_process_signals(NativeRuntime& rt);

}  // namespace weft::runtime::native
