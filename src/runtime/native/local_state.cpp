#include "local_state.hpp"

#include <link.h>
#include <unwind.h>

#include <cstring>

#include "native_runtime.hpp"
#include "weft/trace/hash_mix.hpp"

namespace weft::runtime::native {

extern "C" std::uintptr_t weft_call_program(std::uintptr_t function, std::uintptr_t a,
                                            std::uintptr_t b, std::uintptr_t c,
                                            std::uintptr_t* base);

void* call_start_routine(void* (*start)(void*), void* arg, std::uintptr_t* base) {
  return reinterpret_cast<void*>(weft_call_program(
      reinterpret_cast<std::uintptr_t>(start), reinterpret_cast<std::uintptr_t>(arg), 0, 0, base));
}

int call_program_main(int (*main)(int, char**, char**), int argc, char** argv, char** envp,
                      std::uintptr_t* base) {
  return static_cast<int>(weft_call_program(
      reinterpret_cast<std::uintptr_t>(main), static_cast<std::uintptr_t>(argc),
      reinterpret_cast<std::uintptr_t>(argv), reinterpret_cast<std::uintptr_t>(envp), base));
}

namespace {

// The program's frame at a call into weft: found by unwinding weft's frames up to the one whose
// return address is the call's site.
struct FrameSearch {
  std::uint64_t site = 0;
  std::uintptr_t sp = 0;
  std::uint64_t preserved[6] = {};
  bool found = false;
  int frames = 0;
};

_Unwind_Reason_Code visit_frame(_Unwind_Context* context, void* search_pointer) {
  auto& search = *static_cast<FrameSearch*>(search_pointer);
  if (search.frames > 0 && _Unwind_GetIP(context) == search.site) {
    // DWARF's numbers of rbx, rbp and r12-r15, the registers the x86-64 ABI has a callee keep.
    static constexpr int kPreserved[] = {3, 6, 12, 13, 14, 15};
    for (int i = 0; i < 6; ++i) search.preserved[i] = _Unwind_GetGR(context, kPreserved[i]);
    // The unwinder's "CFA" of a frame being visited is the stack pointer it has at its call:
    // where the program's frame ends.
    search.sp = _Unwind_GetCFA(context);
    search.found = true;
    return _URC_END_OF_STACK;
  }
  // weft's frames between a hook and the scheduler are few; a walk this long went astray.
  return ++search.frames < 48 ? _URC_NO_REASON : _URC_END_OF_STACK;
}

std::uint64_t hash_bytes(std::uint64_t h, std::uintptr_t from, std::uintptr_t to) {
  for (; from + 8 <= to; from += 8) {
    std::uint64_t word;
    std::memcpy(&word, reinterpret_cast<const void*>(from), 8);
    h = hash_mix(h, word);
  }
  for (; from < to; ++from) h = hash_mix(h, *reinterpret_cast<const std::uint8_t*>(from));
  return h;
}

// The executable's thread-local storage block, as a distance below the thread pointer (the same
// for every thread: x86-64 puts static TLS there) and a size.
struct ProgramTls {
  std::uintptr_t below_thread_pointer = 0;
  std::size_t bytes = 0;
};

ProgramTls program_tls() {
  ProgramTls tls;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) -> int {
        auto& found = *static_cast<ProgramTls*>(out);
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_tls_data) {
            found.below_thread_pointer =
                reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer()) -
                reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
            found.bytes = info->dlpi_phdr[i].p_memsz;
          }
        return 1;  // the first object is the executable
      },
      &tls);
  return tls;
}

}  // namespace

std::uint64_t local_state_hash(const Operation& op, std::uint64_t site) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return 0;
  NativeThread& self = rt->self();
  std::uint64_t h = hash_mix(0x10ca1, site);  // where it goes on: its program counter
  if (!site && !self.stack_base) {
    // weft's own operation after the program's code returned (main's exit): no frame of the
    // program is left.
    h = hash_mix(h, 0xe1d);
  } else {
    FrameSearch search;
    search.site = site;
    {
      NativeRuntime::StepAside aside;
      _Unwind_Backtrace(visit_frame, &search);
    }
    constexpr std::uintptr_t kMostStack = std::uintptr_t{64} << 20;
    if (!search.found || self.stack_base <= search.sp || self.stack_base - search.sp > kMostStack)
      return 0;
    for (std::uint64_t r : search.preserved) h = hash_mix(h, r);
    h = hash_bytes(h, search.sp, self.stack_base);
  }
  // Looked up on every call: the answer is cheap next to the walk, and a static set during an
  // execution would be lost when a worker restores its memory.
  ProgramTls tls;
  {
    NativeRuntime::StepAside aside;
    tls = program_tls();
  }
  if (tls.bytes) {
    const auto block =
        reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer()) - tls.below_thread_pointer;
    h = hash_bytes(h, block, block + tls.bytes);
  }
  if (op.kind == OpKind::kThreadCreate) h = hash_mix(h, self.creating_argument);
  return h | 1;  // never 0, which means unknown
}

}  // namespace weft::runtime::native
