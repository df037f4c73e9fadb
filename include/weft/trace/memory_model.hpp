// The memory models an exploration follows (docs/memory-models.md).
#pragma once

#include <optional>
#include <string_view>

namespace weft {

enum class MemoryModel : unsigned char {
  /// Sequential consistency: every access reaches memory at once, in the order the threads
  /// run. Weaker atomics are explored as if sequentially consistent (the verdict says so).
  kSequentialConsistency,
  /// x86-TSO (Owens, Sarkar and Sewell, "A better x86 memory model: x86-TSO", 2009): each
  /// thread's stores wait in a FIFO store buffer, which the thread's own loads read first;
  /// fences, locked instructions and synchronisation operations wait until it is empty.
  kTso,
  /// The C/C++ model, RC11 (Lahav et al., PLDI 2017): a load may read any store coherence and
  /// the accesses' orders allow (weft/trace/rc11_machine.hpp). In process only, so far.
  kRc11,
};

/// "sc", "tso", "rc11": the name --memory-model takes and verdicts show.
std::string_view memory_model_name(MemoryModel model);
/// What a verdict says the behaviours are of: "sequential consistency", "x86-TSO".
std::string_view memory_model_title(MemoryModel model);
/// The model a name stands for, or nullopt.
std::optional<MemoryModel> parse_memory_model(std::string_view name);

}  // namespace weft
