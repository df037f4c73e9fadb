// Inline assembly is code weft cannot see into, but its operands say much. A statement with
// memory operands ("m", "=m", "+m", as Concurrency Kit writes every load, store and atomic)
// acts on them: each becomes an atomic access (__weft_atomic: a load, or a read-modify-write if
// the statement may write it), so its dependences and busy-wait loops around it are seen. A
// statement that names no memory (`pause`, `mfence`, `rdtsc`) is a barrier: __weft_asm(barrier),
// a scheduling point that touches nothing, and a loop around it may be a busy-wait loop. One
// that may act on memory it does not name (an address passed in a register) is opaque:
// __weft_asm(opaque), dependent with every operation. Only statements that are volatile, clobber
// memory or have memory operands are hooked (others compute from their inputs alone).
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>

#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "inline_asm.hpp"
#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

bool is_visible_asm(const llvm::CallBase& call) {
  const auto* assembly = llvm::dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  if (!assembly) return false;
  if (assembly->hasSideEffects() ||
      assembly->getConstraintString().find("~{memory}") != std::string::npos)
    return true;
  for (const llvm::InlineAsm::ConstraintInfo& constraint : assembly->ParseConstraints())
    if (constraint.isIndirect) return true;
  return false;
}

class InlineAsmInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    llvm::LLVMContext& context = module.getContext();
    llvm::FunctionCallee asm_hook = declare_hook(module, Hook::__weft_asm);
    llvm::FunctionCallee atomic_hook = declare_hook(module, Hook::__weft_atomic);
    llvm::FunctionCallee after_hook = declare_hook(module, Hook::__weft_atomic_after);
    bool changed = false;
    for (llvm::Function& function : module) {
      if (!is_instrumentable(function)) continue;
      std::vector<llvm::CallBase*> statements;
      for (llvm::BasicBlock& block : function)
        for (llvm::Instruction& inst : block)
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
              call && call->isInlineAsm() && is_visible_asm(*call))
            statements.push_back(call);
      llvm::IRBuilder<> builder(context);
      for (llvm::CallBase* call : statements) {
        position_before(builder, *call);
        const auto operands = asm_memory_operands(*call);
        if (!operands || operands->empty()) {
          const weft_asm_kind kind = operands ? WEFT_ASM_BARRIER : WEFT_ASM_OPAQUE;
          builder.CreateCall(asm_hook, {builder.getInt32(static_cast<std::uint32_t>(kind))});
          continue;
        }
        bool loads = false;
        for (const AsmMemoryOperand& operand : *operands) {
          const weft_atomic_kind kind = operand.writes ? WEFT_ATOMIC_RMW : WEFT_ATOMIC_LOAD;
          loads |= kind == WEFT_ATOMIC_LOAD && operand.size <= 8;
          builder.CreateCall(
              atomic_hook,
              {builder.CreatePointerCast(operand.pointer, hook_pointer_type(context)),
               builder.getInt64(operand.size), builder.getInt32(static_cast<std::uint32_t>(kind)),
               builder.getInt32(
                   static_cast<std::uint32_t>(llvm::AtomicOrdering::SequentiallyConsistent))});
        }
        // As after an atomic load (atomic_access_instrumenter.cpp).
        if (loads && !call->isTerminator()) {
          builder.SetInsertPoint(call->getNextNode());
          builder.CreateCall(after_hook);
        }
      }
      changed |= !statements.empty();
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_inline_asm_instrumenter() {
  return std::make_unique<InlineAsmInstrumenter>();
}

}  // namespace weft::instrument
