// Names of memory from a program's DWARF debug information (weft-cc always adds -g): a global's
// element or field ("counts[3]", "queue.head", "pool[2].next") and a local variable of a frame.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace weft::driver {

/// The program's debug information, read once (LLVM's DWARF reader). Addresses are as in the
/// file (a position-independent program's load base already subtracted). Every lookup returns
/// nullopt when the information does not say.
class DebugInfo {
 public:
  explicit DebugInfo(const std::string& program);
  ~DebugInfo();
  DebugInfo(const DebugInfo&) = delete;
  DebugInfo& operator=(const DebugInfo&) = delete;

  /// The global (or function-level static) variable containing `address`, with the path to
  /// the element or field the address is in: "counts[3]", "q.head", "grid[1][2]".
  std::optional<std::string> global(std::uint64_t address);

  /// A global scalar variable (an integer, a character, a bool, an enumeration or a pointer),
  /// by its name as global() gives it: where it is, its size and signedness, and its value
  /// when the program starts (the file's initialised data; zero for the rest).
  struct Scalar {
    std::uint64_t address = 0;
    std::uint32_t bytes = 0;
    bool is_signed = false;
    std::uint64_t initial = 0;
  };
  /// nullopt if there is no global of that name; `why` says why a global is not a scalar.
  std::optional<Scalar> scalar(const std::string& name, std::string* why = nullptr);

  /// A local variable or parameter of the function containing `pc`, whose frame pointer (the
  /// frame base, %rbp) is `frame`, that contains the run-time `address`; with its path, as for
  /// globals. `function` receives the function's name.
  std::optional<std::string> local(std::uint64_t pc, std::uint64_t frame, std::uint64_t address,
                                   std::string* function = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft::driver
