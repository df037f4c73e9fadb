#include "glibc_thread_state.hpp"

#include <dlfcn.h>
#include <sys/single_threaded.h>

namespace weft::runtime::native {

char* libc_single_threaded_flag() {
  // Looked up after this executable (whose copy `__libc_single_threaded` names): the C library's.
  static char* const flag = static_cast<char*>(dlsym(RTLD_NEXT, "__libc_single_threaded"));
  return flag;
}

void mark_process_multithreaded() {
  if (__libc_single_threaded == 0) return;  // already (glibc never sets it back)
  __libc_single_threaded = 0;
  if (char* own = libc_single_threaded_flag()) *own = 0;
  asm volatile("movl $1, %%fs:%c0" : : "i"(kTcbMultipleThreads) : "memory");
}

}  // namespace weft::runtime::native
