// How reports name memory and code the driver cannot see after an execution: heap blocks (their
// headers are gone with the worker's memory), the frames that own a stack address, and a crash
// inside a library. The text carries {pc:}/{data:}/{stack:} marks that the driver symbolizes
// (wire.hpp; docs/reports.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "thread_heap.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::runtime::native {

class NativeRuntime;

/// `address` in or near heap block `b`: "byte 4 of the 16-byte block allocated at {pc:..} by
/// thread 0.1, freed at {pc:..} by thread 0 (0x...)", "3 bytes after the end of the ...",
/// "16 bytes before the ...".
std::string describe_block(const HeapBlock& b, std::uintptr_t address);

/// The memory at `address`, for a report: "byte 4 of the 16-byte block allocated at {pc:..} by
/// thread 0.1" (and where it was freed, if it was); a stack address as a {stack:} mark with the
/// owning thread's frames, from which the driver names the local; anything else as {data:}.
std::string describe_memory(std::uintptr_t address);

/// How many return addresses into the program program_callers finds at most.
inline constexpr std::size_t kProgramCallers = 4;

/// The return addresses into the program, innermost first, through which thread `thread`,
/// stopped in an operation whose site `library_site` lies in a library (the return address of
/// the library's call into the runtime), reached that library: found by scanning its stack
/// above the site's word (library code need not keep frame pointers). More than one, so that a
/// report can pass over the program's copies of header code (std::thread's constructor) to the
/// program's own line. 0 when the site is in the program, or none is found (a thread the
/// library started). For an event observer (Scheduler::stopped_frame_pointer).
std::size_t program_callers(NativeRuntime& rt, ThreadId thread, std::uint64_t library_site,
                            std::uint64_t (&callers)[kProgramCallers]);

/// What a crash handler adds to "crashed: SIGSEGV at {pc:}": for a fault outside the program,
/// the library and symbol and the nearest frame in the program; then what the faulting address
/// is, when it is in a heap block or on a stack. `frame_pointer`, `stack_pointer`: the
/// registers at the fault. Empty if there is nothing to add.
std::string describe_crash(int signal, std::uint64_t pc, std::uint64_t address,
                           std::uint64_t frame_pointer, std::uint64_t stack_pointer);

}  // namespace weft::runtime::native
