// The pass builds each hook's LLVM type from its signature letters in hooks.h; the runtime
// defines it against the C prototype beside them. This file makes the two agree at compile
// time: a letter that does not spell its prototype's type stops the build here, rather than a
// call that passes a 32-bit value where the runtime reads 64 bits.
#include <cstdint>
#include <type_traits>

#include "weft/runtime/hooks.h"

namespace {

template <class T>
constexpr char letter() {
  if constexpr (std::is_void_v<T>) return 'v';
  if constexpr (std::is_pointer_v<T>) return 'p';
  if constexpr (std::is_same_v<T, std::uint32_t>) return 'i';
  if constexpr (std::is_same_v<T, std::uint64_t>) return 'w';
  return '?';  // a type the pass has no letter for
}

template <class F>
struct Spelling;
template <class R, class... A>
struct Spelling<R(A...)> {
  static constexpr char value[] = {letter<R>(), letter<A>()..., '\0'};
};

constexpr bool same_text(const char* a, const char* b) {
  for (; *a && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

#define WEFT_CHECK_HOOK(result, name, parameters, signature)           \
  static_assert(same_text(Spelling<decltype(name)>::value, signature), \
                "hooks.h: the signature letters of " #name " do not spell its prototype");
WEFT_HOOKS(WEFT_CHECK_HOOK)
#undef WEFT_CHECK_HOOK

}  // namespace
