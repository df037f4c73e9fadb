// SV-COMP's convention: the body of a function named __VERIFIER_atomic_* runs atomically. Its entry
// gets __weft_atomic_begin() and each of its returns __weft_atomic_end(); the accesses inside are
// still reported as usual.
#include <llvm/IR/Instructions.h>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

constexpr std::string_view kAtomicFunctionPrefix = "__VERIFIER_atomic_";

class AtomicRegionInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    llvm::FunctionCallee begin = declare_hook(module, Hook::__weft_atomic_begin);
    llvm::FunctionCallee end = declare_hook(module, Hook::__weft_atomic_end);
    llvm::IRBuilder<> builder(module.getContext());
    bool changed = false;
    for (llvm::Function& function : module) {
      if (!is_instrumentable(function) || !has_prefix(function.getName(), kAtomicFunctionPrefix)) {
        continue;
      }
      position_at_entry(builder, function);
      builder.CreateCall(begin);
      for (llvm::BasicBlock& block : function) {
        auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator());
        if (ret == nullptr) continue;
        // Nothing may come between a musttail call and its return, so end the region before it.
        llvm::Instruction* musttail = block.getTerminatingMustTailCall();
        position_before(builder, musttail ? *musttail : *ret);
        builder.CreateCall(end);
      }
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_atomic_region_instrumenter() {
  return std::make_unique<AtomicRegionInstrumenter>();
}

}  // namespace weft::instrument
