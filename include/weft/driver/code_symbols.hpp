// Source lines of code addresses and the symbols of data addresses in an object file (the program
// or a shared library), through LLVM's symbolizer inside weft's own process: a report used to
// start llvm-symbolizer, whose start-up (loading libLLVM) cost a tenth of a second per run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weft::driver {

/// One source frame of a code address. Empty strings and line 0 where the information does not
/// say.
struct SourceFrame {
  std::string function;  ///< demangled ("ns::f(int)")
  std::string file;      ///< absolute, as the debug information records it
  std::uint32_t line = 0;
};

/// The symbol a data address falls in or after (the caller checks that it is inside).
struct DataSymbol {
  std::string name;
  std::uint64_t start = 0, size = 0;
};

/// Each object file is read once, on its first lookup. Addresses are as in the file.
class CodeSymbols {
 public:
  CodeSymbols();
  ~CodeSymbols();
  CodeSymbols(const CodeSymbols&) = delete;
  CodeSymbols& operator=(const CodeSymbols&) = delete;

  /// The frames at `address` in `file`, innermost (inlined) first; empty if nothing is known.
  std::vector<SourceFrame> frames(const std::string& file, std::uint64_t address);
  /// The data symbol at or before `address` in `file`, if the symbol table has one.
  std::optional<DataSymbol> data(const std::string& file, std::uint64_t address);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft::driver
