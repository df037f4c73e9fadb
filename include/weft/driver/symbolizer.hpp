// Code and data addresses of an instrumented program as source locations and names, through
// llvm-symbolizer and the program's debug information (weft-cc always adds -g).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace weft::driver {

struct SourceLocation {
  std::string file;  ///< as recorded in the debug info; empty if unknown
  std::uint32_t line = 0;
  std::string function;
  std::string short_text() const;  ///< "file.c:12", or "?" if unknown
};

class Symbolizer {
 public:
  /// `load_base`: where the executable was loaded (subtracted for position-independent ones).
  Symbolizer(std::string program, std::uint64_t load_base);

  /// Looks up every code address (return addresses: the call before them is reported) and data
  /// address at once; later lookups of the same addresses are free.
  void prepare(const std::vector<std::uint64_t>& code, const std::vector<std::uint64_t>& data);
  SourceLocation code(std::uint64_t return_address);
  /// The global variable at `address` ("counter", "array+8"), or "" if it is not one.
  std::string data(std::uint64_t address);
  /// Replaces {pc:HEX} by "file:line" and {data:HEX} by "name (0xHEX)" or "0xHEX".
  std::string render(const std::string& message);

 private:
  std::uint64_t offset(std::uint64_t address) const;
  std::string program_;
  std::uint64_t base_ = 0;
  std::map<std::uint64_t, SourceLocation> code_;
  std::map<std::uint64_t, std::string> data_;
};

/// The addresses in {pc:HEX} and {data:HEX} tokens of a message.
void collect_addresses(const std::string& message, std::vector<std::uint64_t>& code,
                       std::vector<std::uint64_t>& data);

}  // namespace weft::driver
