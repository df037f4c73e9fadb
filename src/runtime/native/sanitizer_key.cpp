#include "sanitizer_key.hpp"

// Weak: defined only when a program is built by weft-cc -fsanitize=address.
extern "C" __attribute__((weak)) void __asan_init();

namespace weft::runtime::native {
namespace {

bool g_any_key_created = false;
bool g_has_sanitizer_key = false;
pthread_key_t g_sanitizer_key;

}  // namespace

void note_key_created(pthread_key_t key) {
  // ASan's initialisation runs from the program's preinit array, before any constructor, and
  // creates its key there: no other code has created one yet.
  if (!g_any_key_created && &__asan_init) {
    g_sanitizer_key = key;
    g_has_sanitizer_key = true;
  }
  g_any_key_created = true;
}

bool is_sanitizer_key(pthread_key_t key) {
  return g_has_sanitizer_key && key == g_sanitizer_key;
}

void*& sanitizer_key_value() {
  static void* value = nullptr;
  return value;
}

}  // namespace weft::runtime::native
