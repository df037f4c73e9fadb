#include "inline_asm.hpp"

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Module.h>

namespace weft::instrument {

std::optional<std::vector<AsmMemoryOperand>> asm_memory_operands(const llvm::CallBase& call) {
  const auto* assembly = llvm::dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  if (!assembly) return std::nullopt;
  const llvm::DataLayout& layout = call.getModule()->getDataLayout();
  std::vector<AsmMemoryOperand> operands;
  unsigned arg = 0;
  for (const llvm::InlineAsm::ConstraintInfo& constraint : assembly->ParseConstraints()) {
    if (!constraint.hasArg()) continue;
    if (arg >= call.arg_size()) return std::nullopt;
    llvm::Value* value = call.getArgOperand(arg);
    const unsigned index = arg++;
    if (!constraint.isIndirect) {
      // A value in a register: an address there may be written through, unseen.
      if (value->getType()->isPointerTy()) return std::nullopt;
      continue;
    }
    llvm::Type* element = call.getAttributes().getParamElementType(index);
    if (!element || !element->isSized()) return std::nullopt;
    const std::uint64_t size = layout.getTypeStoreSize(element).getFixedSize();
    const bool writes = constraint.Type == llvm::InlineAsm::isOutput;
    // "+m" is an output and an input of one address: one access that reads and writes.
    bool merged = false;
    for (AsmMemoryOperand& known : operands)
      if (known.pointer == value) {
        known.writes = known.writes || writes;
        known.size = std::max(known.size, size);
        merged = true;
      }
    if (!merged) operands.push_back({value, size, writes});
  }
  return operands;
}

}  // namespace weft::instrument
