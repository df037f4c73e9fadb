#include "trace_log.hpp"

#include <cstring>

namespace weft::runtime::native {

using weft::native::LogHeader;

TraceLog::TraceLog(void* memory, std::size_t bytes)
    : header_(static_cast<LogHeader*>(memory)),
      records_(static_cast<char*>(memory) + sizeof(LogHeader)) {
  header_->magic = weft::native::kLogMagic;
  header_->version = weft::native::kProtocolVersion;
  header_->capacity = bytes - sizeof(LogHeader);
  reset();
}

void TraceLog::reset() {
  header_->used = 0;
  header_->fault_pc = 0;
  header_->fault_address = 0;
  header_->fault_signal = 0;
  header_->overflowed = 0;
}

void TraceLog::append(char tag, std::string_view text) {
  const std::size_t need = text.size() + 3;
  if (header_->used + need > header_->capacity) {
    header_->overflowed = 1;
    return;
  }
  char* at = records_ + header_->used;
  at[0] = tag;
  at[1] = ' ';
  std::memcpy(at + 2, text.data(), text.size());
  at[text.size() + 2] = '\n';
  // Publish the length last: a reader that sees it sees the whole record (same process order;
  // weft reads only after the child is gone).
  header_->used += need;
}

void TraceLog::note_fault(int signal, std::uint64_t pc, std::uint64_t address) {
  header_->fault_signal = signal;
  header_->fault_pc = pc;
  header_->fault_address = address;
}

}  // namespace weft::runtime::native
