// A program built by weft-cc -fsanitize=address or -fsanitize=undefined has the sanitizer's
// runtime linked in beside weft's. Its reports become weft bugs: the hooks below, which the
// sanitizer runtimes call and a program may define, add the report to the trace log as one line
// in weft's terms ("S"), and the sanitizer then ends the process, which the driver turns into a
// bug with the interleaving that led there (native_runner.cpp). Nothing here switches fibers or
// calls the scheduler: the sanitizer holds its own locks while it reports. docs/sanitizers.md.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "native_runtime.hpp"
#include "weft/trace/wire.hpp"

// The sanitizers' query functions, weak: only the runtime the program was built with is there.
extern "C" {
__attribute__((weak)) void* __asan_get_report_pc();
__attribute__((weak)) void* __asan_get_report_address();
__attribute__((weak)) int __asan_get_report_access_type();
__attribute__((weak)) std::size_t __asan_get_report_access_size();
__attribute__((weak)) const char* __asan_get_report_description();
__attribute__((weak)) void __ubsan_get_current_report_data(const char** kind, const char** message,
                                                           const char** file, unsigned* line,
                                                           unsigned* column, char** address);
}

namespace weft::runtime::native {
namespace {

// UBSan's report as __ubsan_on_report saw it (its data is gone by the time the summary comes).
// Static storage: the report path must not depend on the program's heap.
char g_undefined_behaviour[512];

const char* file_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// The summary line without its "SUMMARY: " and with paths cut to their file names, for a report
// the sanitizer's query functions do not describe.
std::string plain_summary(const char* summary) {
  std::string s = std::strncmp(summary, "SUMMARY: ", 9) == 0 ? summary + 9 : summary;
  for (std::size_t slash; (slash = s.rfind('/')) != std::string::npos;) {
    const std::size_t start = s.rfind(' ', slash);
    const std::size_t from = start == std::string::npos ? 0 : start + 1;
    s.erase(from, slash + 1 - from);
  }
  return s;
}

// " in FUNCTION" of the code address, for the driver to fill in (symbolizer.cpp).
std::string function_mark(std::uint64_t pc) {
  char text[32];
  std::snprintf(text, sizeof text, "{in:%llx}", static_cast<unsigned long long>(pc));
  return text;
}

// The report in weft's terms, with a {pc:} mark for the driver to turn into file:line.
std::string describe_report(const char* summary) {
  if (std::strstr(summary, "AddressSanitizer") && &__asan_get_report_pc &&
      &__asan_get_report_address && __asan_get_report_address()) {
    // The return address of the call to ASan's check, as the driver expects of a {pc:}.
    const auto pc = reinterpret_cast<std::uint64_t>(__asan_get_report_pc());
    return std::string("AddressSanitizer: ") + __asan_get_report_description() + ": " +
           std::to_string(__asan_get_report_access_size()) + "-byte " +
           (__asan_get_report_access_type() ? "write" : "read") + " at " + code_mark(pc) +
           function_mark(pc);
  }
  if (std::strstr(summary, "UndefinedBehaviorSanitizer") && g_undefined_behaviour[0])
    return std::string("UndefinedBehaviorSanitizer: ") + g_undefined_behaviour;
  return plain_summary(summary);
}

}  // namespace

void NativeRuntime::note_sanitizer_report(const std::string& report) {
  if (!log_) return;
  flush_log();
  if (scheduler_.self() != kNoThread) log_->crashed(scheduler_.self(), registry_);
  log_->text(weft::native::Record::kSanitizer, report);
}

}  // namespace weft::runtime::native

using weft::runtime::native::describe_report;
using weft::runtime::native::file_name;
using weft::runtime::native::g_undefined_behaviour;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

extern "C" {

// Options weft needs the sanitizers to run with; ASAN_OPTIONS and UBSAN_OPTIONS are read after
// these and override them. ASan: no leak check at exit (the program's heap is weft's, which
// ASan does not see, and a worker process ends many executions before it exits); weft's own
// crash handlers for faults, so that a crash reads the same with and without ASan; and the
// report's stack walked by frame pointers (weft-cc keeps them), not by libgcc's unwinder, which
// takes a pthread mutex that weft would schedule in the middle of the report. UBSan: a
// report ends the execution, as a failed assertion does, instead of scrolling by unseen; and
// its summary names the error's kind.
const char* __asan_default_options() {
  return "detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:"
         "fast_unwind_on_fatal=1";
}
const char* __ubsan_default_options() {
  return "halt_on_error=1:report_error_type=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
         "handle_sigill=0";
}

// Called by UBSan for every report, before it prints it.
void __ubsan_on_report() {
  if (!&__ubsan_get_current_report_data) return;
  const char *kind = nullptr, *message = nullptr, *file = nullptr;
  unsigned line = 0, column = 0;
  char* address = nullptr;
  __ubsan_get_current_report_data(&kind, &message, &file, &line, &column, &address);
  if (!message || !*message) return;
  if (file && *file && line)
    std::snprintf(g_undefined_behaviour, sizeof g_undefined_behaviour, "%s at %s:%u", message,
                  file_name(file), line);
  else
    std::snprintf(g_undefined_behaviour, sizeof g_undefined_behaviour, "%s", message);
  // "Signed integer overflow: ...": as UBSan prints it after "runtime error: ".
  if (g_undefined_behaviour[0] >= 'A' && g_undefined_behaviour[0] <= 'Z' &&
      g_undefined_behaviour[1] >= 'a' && g_undefined_behaviour[1] <= 'z')
    g_undefined_behaviour[0] = static_cast<char>(g_undefined_behaviour[0] - 'A' + 'a');
}

// Called by every sanitizer with its one-line summary at the end of a report ("SUMMARY:
// AddressSanitizer: stack-buffer-overflow p.c:12:5 in worker"). The sanitizer's own version
// prints it; this one does too, and tells weft.
void __sanitizer_report_error_summary(const char* summary) {
  if (!summary) return;
  [[maybe_unused]] auto n = write(2, summary, std::strlen(summary));
  n = write(2, "\n", 1);
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return;
  // weft's allocations here are its own, not the program thread's.
  const bool on_thread = rt->scheduler().self() != weft::kNoThread;
  if (on_thread) {
    RuntimeScope scope(*rt);
    rt->note_sanitizer_report(describe_report(summary));
  } else {
    rt->note_sanitizer_report(describe_report(summary));
  }
  g_undefined_behaviour[0] = '\0';
}

}  // extern "C"
