// Code and data addresses of an instrumented program as source locations and names, through
// LLVM's symbolizer and the program's debug information (weft-cc always adds -g).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weft/driver/code_symbols.hpp"
#include "weft/driver/debug_info.hpp"

namespace weft::driver {

struct SourceLocation {
  std::string file;  ///< as recorded in the debug info; empty if unknown
  std::uint32_t line = 0;
  std::string function;
  /// Code in a shared library: its file name ("libstdc++.so.6"); empty for the program's code.
  std::string library;
  /// "file.c:12", the library's name for its code without line information, or "?".
  std::string short_text() const;
};

/// Whether source `file` is a system header or library's (the inlined body of std::mutex::lock,
/// say): less useful in a report than the program's line that called it. An unknown file is.
bool is_system_file(const std::string& file);

/// A file the program's process maps executable: code addresses in [start, end) are at file
/// offset `offset` + (address - start) of `path`.
struct MappedCode {
  std::uint64_t start = 0, end = 0, offset = 0;
  std::string path;
};

class Symbolizer {
 public:
  /// `load_base`: where the executable was loaded (subtracted for position-independent ones).
  /// `libraries`: the shared libraries' code, whose addresses are named by library and function.
  Symbolizer(std::string program, std::uint64_t load_base, std::vector<MappedCode> libraries = {});
  ~Symbolizer();
  Symbolizer(Symbolizer&&) noexcept;

  /// Looks up every code address (return addresses: the call before them is reported) and data
  /// address at once; later lookups of the same addresses are free.
  void prepare(const std::vector<std::uint64_t>& code, const std::vector<std::uint64_t>& data);
  SourceLocation code(std::uint64_t return_address);
  /// The global variable at `address`, down to the element or field ("counter", "counts[3]",
  /// "q.head"), or "" if it is not one.
  std::string data(std::uint64_t address);
  /// The global scalar variable of that name, at its run-time address (DebugInfo::scalar).
  std::optional<DebugInfo::Scalar> scalar(const std::string& name, std::string* why = nullptr);
  /// Replaces {pc:HEX} by "file:line", {data:HEX} by "name (0xHEX)" or "0xHEX", and
  /// {stack:ADDRESS:THREAD:PC@FP;...} by the local variable one of those frames holds there.
  std::string render(const std::string& message);

 private:
  DebugInfo& debug_info();
  CodeSymbols& symbols();
  std::string stack_text(const std::string& token);
  std::uint64_t offset(std::uint64_t address) const;
  const MappedCode* library_of(std::uint64_t address) const;
  std::string program_;
  std::vector<MappedCode> libraries_;
  std::uint64_t base_ = 0;
  std::map<std::uint64_t, SourceLocation> code_;
  std::map<std::uint64_t, std::string> data_;
  std::unique_ptr<DebugInfo> debug_info_;  // read on first use
  std::unique_ptr<CodeSymbols> symbols_;   // made on first use
};

/// The addresses in {pc:HEX}, {in:HEX} and {data:HEX} tokens of a message.
void collect_addresses(const std::string& message, std::vector<std::uint64_t>& code,
                       std::vector<std::uint64_t>& data);

}  // namespace weft::driver
