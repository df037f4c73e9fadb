// Where an address of code or constant data lies among the program's modules, as a value that is
// the same in every execution (thread symmetry names a thread's start function by it).
#pragma once

#include <cstdint>

namespace weft::runtime::native {

struct ModuleOffset {
  std::uint64_t offset = 0;  ///< the address's offset in its module, plus one; 0: in none
  bool libstdcxx = false;    ///< the module is libstdc++
};

/// The modules loaded when the worker starts, read once before its first execution (the
/// snapshot then keeps the table: an execution that filled it would lose it at the restore).
void read_loaded_modules();
/// Where `address` lies: from the table, or for a module loaded since, from dladdr (which
/// scans symbol tables: too slow for every thread creation).
ModuleOffset module_offset(const void* address);
/// Whether `address` lies in the executable's code (the program weft-cc built, with the
/// runtime). Found once: a worker does so before its snapshot.
bool in_executable_code(const void* address);

}  // namespace weft::runtime::native
