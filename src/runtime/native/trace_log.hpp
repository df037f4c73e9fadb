// The writer side of the shared-memory trace log (format in weft/runtime/native_protocol.hpp).
#pragma once

#include <cstddef>
#include <string_view>

#include "weft/runtime/native_protocol.hpp"

namespace weft::runtime::native {

/// Appends text records to a log in memory shared with weft. Records are whole lines; a record
/// that does not fit is dropped and the header says so.
class TraceLog {
 public:
  /// `memory` of `bytes` bytes, mapped shared; the header is initialised.
  TraceLog(void* memory, std::size_t bytes);
  /// Starts a fresh log (one per execution).
  void reset();
  /// Appends "<tag> <text>\n".
  void append(char tag, std::string_view text);
  /// Notes the signal a child dies of (called from the signal handler).
  void note_fault(int signal, std::uint64_t pc, std::uint64_t address);

 private:
  weft::native::LogHeader* header_;
  char* records_;
};

}  // namespace weft::runtime::native
