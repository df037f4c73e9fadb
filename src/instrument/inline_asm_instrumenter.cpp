// Inline assembly is code weft cannot see into: an `asm volatile` with a memory clobber may
// touch any memory (a `lock`-prefixed instruction on a shared counter), or be only a barrier
// (`pause`, `mfence`). Either way it becomes a visible operation, __weft_asm(kind), before the
// statement: a scheduling point that touches nothing weft knows of, so that a thread spinning
// around it lets the others run, counts towards the step bound, and is named if it reaches it.
// A statement with no operands at all can name no memory of its own: it is a barrier, and a
// loop around it may be a busy-wait loop (spin_loop_instrumenter.cpp allows it).
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>

#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"
#include "runtime_abi.hpp"

namespace weft::instrument {

bool is_barrier_asm(const llvm::CallBase& call) {
  return call.isInlineAsm() && call.arg_size() == 0 && call.getType()->isVoidTy();
}

namespace {

// Whether the statement may act on memory or on other threads: volatile (side effects) or with
// a memory clobber.
bool is_visible_asm(const llvm::CallBase& call) {
  const auto* assembly = llvm::dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  if (!assembly) return false;
  return assembly->hasSideEffects() ||
         assembly->getConstraintString().find("~{memory}") != std::string::npos;
}

class InlineAsmInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    llvm::FunctionCallee hook =
        declare_hook(module, kAsmHook, {llvm::Type::getInt32Ty(module.getContext())});
    bool changed = false;
    for (llvm::Function& function : module) {
      if (!is_instrumentable(function)) continue;
      std::vector<llvm::CallBase*> statements;
      for (llvm::BasicBlock& block : function)
        for (llvm::Instruction& inst : block)
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
              call && call->isInlineAsm() && is_visible_asm(*call))
            statements.push_back(call);
      llvm::IRBuilder<> builder(module.getContext());
      for (llvm::CallBase* call : statements) {
        position_before(builder, *call);
        const AsmKind kind = is_barrier_asm(*call) ? AsmKind::kBarrier : AsmKind::kOpaque;
        builder.CreateCall(hook, {builder.getInt32(static_cast<std::uint32_t>(kind))});
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
