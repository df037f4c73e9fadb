// Strings joined by appending, for the tests' program generators: `"literal" + temporary`
// trips GCC 12's -Wrestrict at -O3 (GCC bug 105329), which the Release build would print.
#pragma once

#include <string>

namespace weft::testing {

/// The parts (strings, literals, characters) appended in order.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  ((out += parts), ...);
  return out;
}

}  // namespace weft::testing
