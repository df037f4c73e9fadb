// The C library's own versions of the functions weft interposes, for when no controlled
// execution is running (before main, in the fork server, or a plain run of the program).
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace weft::runtime::native {

/// The next definition of `name` after this executable's (the C library's), optionally of a
/// given symbol version. Aborts with a clear message if there is none.
inline void* real_symbol(const char* name, const char* version = nullptr) {
  void* p = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
  if (!p) p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "weft runtime: cannot find the C library's %s\n", name);
    std::_Exit(2);
  }
  return p;
}

}  // namespace weft::runtime::native

/// Calls the C library's `name` with `args` (looked up once).
#define WEFT_REAL(name, ...)                                                              \
  ([]() {                                                                                 \
    static auto fn =                                                                      \
        reinterpret_cast<decltype(&::name)>(::weft::runtime::native::real_symbol(#name)); \
    return fn;                                                                            \
  }())(__VA_ARGS__)
/// The same for a versioned symbol (glibc keeps old pthread_cond_* next to the current ones).
#define WEFT_REAL_V(name, version, ...)                                                            \
  ([]() {                                                                                          \
    static auto fn =                                                                               \
        reinterpret_cast<decltype(&::name)>(::weft::runtime::native::real_symbol(#name, version)); \
    return fn;                                                                                     \
  }())(__VA_ARGS__)
