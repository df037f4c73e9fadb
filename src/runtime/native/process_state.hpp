// Process state outside the memory a worker's snapshot restores: the program's arguments and
// environment (strings and pointer arrays on the OS stack, which the snapshot leaves alone) and
// the kernel's per-process settings a program may change (working directory, umask, signal
// dispositions and mask, resource limits, interval timers). A worker runs execution after
// execution in one process, so each must start as a fresh process would (docs/process-state.md).
#pragma once

#include <signal.h>

#include <bitset>

namespace weft::runtime::native {

/// The program's argv and environment as the process received them. Captured once before the
/// first execution; `restore()` writes every pointer and every byte back, so that a program
/// that edits `argv[1]` in place or calls `setenv` sees the original in the next execution.
class ProgramArguments {
 public:
  ProgramArguments(int argc, char** argv, char** envp);
  ~ProgramArguments();
  ProgramArguments(const ProgramArguments&) = delete;
  ProgramArguments& operator=(const ProgramArguments&) = delete;

  void restore() const;

 private:
  struct Saved;
  Saved* saved_;
};

/// The handler weft installs for fatal signals (to log where a program crashed). The program
/// asking for a signal's disposition is told SIG_DFL where this handler is installed, as a
/// fresh process would be; the handler itself stays until the program installs its own.
void hide_signal_handler(void (*handler)(int, siginfo_t*, void*));

/// How many descriptors, from 0, weft follows: those above are neither restored nor closed.
inline constexpr int kDescriptorsFollowed = 4096;
using OpenDescriptorSet = std::bitset<kDescriptorsFollowed>;

/// The descriptors open now, below kDescriptorsFollowed, in one system call (poll marks a
/// closed one POLLNVAL) rather than one fcntl each: the worker's start is on every weft run.
OpenDescriptorSet open_descriptors();

/// The descriptors open when the worker starts: those the program's executions may close, which
/// are then put back after each (note_close). Called once, before any execution.
void note_descriptors_open_at_start(const OpenDescriptorSet& open);
/// The program is about to close `fd` (close, fclose, mq_close): if it was open when the worker
/// started, a copy is kept, and restore_process_settings puts it back at its number.
void note_close(int fd);

/// Undoes what the execution that just ended changed of the kernel's per-process settings
/// (recorded by the interposed functions in process_state.cpp as the program calls them). The
/// record lives in memory the snapshot restores right after, so this must run before it.
void restore_process_settings();

}  // namespace weft::runtime::native
