// What an inline-assembly statement does to memory, as far as its operands say.
#pragma once

#include <llvm/IR/InstrTypes.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace weft::instrument {

/// One memory operand of an asm statement ("m", "=m", "+m"): the address, the bytes, and
/// whether the statement may write them.
struct AsmMemoryOperand {
  llvm::Value* pointer;
  std::uint64_t size;
  bool writes;
};

/// The memory an `asm` statement acts on: its memory operands (empty for a statement that names
/// no memory, such as `pause` or `rdtsc`: a barrier), or nothing when it may act on memory its
/// operands do not name (an address passed in a register). A "memory" clobber is taken as the
/// compiler barrier it is written for, not as an access to all memory.
std::optional<std::vector<AsmMemoryOperand>> asm_memory_operands(const llvm::CallBase& call);

}  // namespace weft::instrument
