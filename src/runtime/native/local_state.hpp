// A thread's local state as a hash, for the strategies that match states (thesis ch. 7; POET §4
// fingerprints a thread's state the same way): what the thread holds when it waits at a visible
// operation, so that a thread that loops back to where it was is seen to be where it was.
#pragma once

#include <cstdint>

#include "weft/trace/operation.hpp"

namespace weft::runtime::native {

/// Call a thread's start routine, or main, with the registers a callee keeps cleared, noting in
/// *base where the program's frames begin while they run (0 before and after): the stack hashed
/// is what lies below that point (program_entry_x86_64.S).
void* call_start_routine(void* (*start)(void*), void* arg, std::uintptr_t* base);
int call_program_main(int (*main)(int, char**, char**), int argc, char** argv, char** envp,
                      std::uintptr_t* base);

/// RunLimits::local_state for native programs: a hash of the running thread's state as it waits
/// for `op`, called from `site` in the program:
/// - the site, where it goes on (its program counter);
/// - the registers a call preserves (rbx, rbp, r12-r15) as the program's frame at `site` holds
///   them, read by unwinding weft's own frames (the others are dead across a call, but for the
///   call's arguments, which the operation holds);
/// - its stack from that frame up to where its start routine began;
/// - the program's thread-local storage (the executable's TLS block: weft does not see accesses
///   to it as events);
/// - for a thread creation, the start routine's argument (passed in a register).
/// 0 when the program's frame is not found (the operation was reached through code without
/// unwind tables): the state is then unknown, and the strategy says so.
std::uint64_t local_state_hash(const Operation& op, std::uint64_t site);

}  // namespace weft::runtime::native
