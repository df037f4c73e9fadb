// libstdc++'s C++20 waits (std::atomic<T>::wait, counting_semaphore, latch, barrier) spin before
// they block: the predicate is tested up to 16 times with a pause, then 12 with sched_yield,
// before the futex wait (std::__detail::__atomic_spin in <bits/atomic_wait.h>). Spinning is only
// a shortcut: the wait that follows checks the value again. Under weft every load of those tests
// is a visible event, and they multiply the interleavings of any program that waits (a
// three-primitive program ran beyond 30,000 executions unfinished). So the spin tests the
// predicate once: its body becomes `return pred();`, which is one of its real behaviours (the
// other threads did nothing while it spun). Done before optimisation, so that inlined copies are
// the short one too. If the predicate's call cannot be told (another libstdc++), the spin stays.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

// Itanium mangling of std::__detail::__atomic_spin<...>(...) (any template arguments).
constexpr llvm::StringLiteral kAtomicSpinPrefix = "_ZNSt8__detail13__atomic_spin";

// The predicate's call operator: the call in the spin of a function that takes one pointer of
// the predicate's type (the spin's first parameter) and returns bool. (The spin policy's call
// operator has the same shape on a pointer of another type.)
llvm::Function* predicate_of(llvm::Function& spin) {
  llvm::Type* predicate_type = spin.getArg(0)->getType();
  for (llvm::Instruction& instruction : llvm::instructions(spin)) {
    auto* call = llvm::dyn_cast<llvm::CallBase>(&instruction);  // a call or an invoke
    llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
    if (callee && !callee->isIntrinsic() && callee->getReturnType()->isIntegerTy(1) &&
        callee->arg_size() == 1 && callee->getArg(0)->getType() == predicate_type)
      return callee;
  }
  return nullptr;
}

class LibrarySpinRemover final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    bool changed = false;
    for (llvm::Function& function : module) {
      if (function.isDeclaration() || !function.getName().startswith(kAtomicSpinPrefix) ||
          !function.getReturnType()->isIntegerTy(1) || function.arg_size() < 1 ||
          !function.getArg(0)->getType()->isPointerTy())
        continue;
      llvm::Function* predicate = predicate_of(function);
      if (!predicate) continue;
      const llvm::GlobalValue::LinkageTypes linkage = function.getLinkage();
      function.deleteBody();  // also makes it external; the linkage is put back below
      function.setLinkage(linkage);
      auto* entry = llvm::BasicBlock::Create(module.getContext(), "entry", &function);
      llvm::IRBuilder<> builder(entry);
      llvm::Value* pointer =
          builder.CreatePointerCast(function.getArg(0), predicate->getArg(0)->getType());
      builder.CreateRet(builder.CreateCall(predicate, {pointer}));
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_library_spin_remover() {
  return std::make_unique<LibrarySpinRemover>();
}

}  // namespace weft::instrument
