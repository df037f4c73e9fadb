// Where instrumented code needs the thread pointer (%fs) to name the running thread's storage.
//
// Writing %fs takes a system call where the CPU or the kernel does not let user space write it
// (3.4 µs each on the machine of docs/performance.md, half of an execution's time). So when a
// thread resumes inside one of the access hooks below, the runtime leaves %fs as it is, and the
// code the hook returns to asks for it (__weft_sync_thread_pointer, which writes %fs only if
// another thread's storage is set) where it matters:
// - before every call to a function that is neither the module's own nor the runtime's (which
//   ask for it themselves where they need it) nor one of the C library's whose model in the
//   runtime needs none (lazy_thread_pointer_calls.hpp): the callee may be code weft did not
//   compile, such as the C library, which keeps errno there;
// - before inline assembly, which may read %fs;
// - before returning from a function that made calls to code outside the executable that may
//   have called it (the C library's qsort, a library's callback), which goes on after it;
// - in a function that uses thread-local variables: at its entry and after every call, each
//   time ending the block, since the backend computes a thread-local address from %fs without
//   ordering it after calls within a block, and a call may have let another thread run.
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <array>
#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"
#include "weft/runtime/lazy_thread_pointer_calls.hpp"

namespace weft::instrument {
namespace {

// Hooks after which the runtime may leave %fs naming another thread's storage, and which need
// no particular storage themselves (memory_hooks.cpp, spin_loops.cpp).
bool is_access_hook(llvm::StringRef name) {
  static const std::array<Hook, 13> hooks = {Hook::__weft_read,
                                             Hook::__weft_write,
                                             Hook::__weft_read_range,
                                             Hook::__weft_write_range,
                                             Hook::__weft_atomic,
                                             Hook::__weft_atomic_after,
                                             Hook::__weft_atomic_begin,
                                             Hook::__weft_atomic_end,
                                             Hook::__weft_asm,
                                             Hook::__weft_spin_enter,
                                             Hook::__weft_spin_back_edge,
                                             Hook::__weft_spin_exit,
                                             Hook::__weft_spin_local_write};
  for (Hook hook : hooks)
    if (name == hook_name(hook)) return true;
  return false;
}

bool names_thread_local(const llvm::Value* value, llvm::SmallPtrSetImpl<const llvm::Value*>& seen) {
  if (const auto* global = llvm::dyn_cast<llvm::GlobalValue>(value)) return global->isThreadLocal();
  const auto* constant = llvm::dyn_cast<llvm::ConstantExpr>(value);
  if (!constant || !seen.insert(constant).second) return false;
  for (const llvm::Use& operand : constant->operands())
    if (names_thread_local(operand.get(), seen)) return true;
  return false;
}

bool uses_thread_local(const llvm::Function& function) {
  llvm::SmallPtrSet<const llvm::Value*, 16> seen;
  for (const llvm::BasicBlock& block : function)
    for (const llvm::Instruction& inst : block)
      for (const llvm::Use& operand : inst.operands())
        if (names_thread_local(operand.get(), seen)) return true;
  return false;
}

// Whether code outside the module may call `function`: it is visible outside, its address is
// taken, or such a function hands its call over to it (the symbolic instrumenter's entry, which
// goes on in the function's plain copy with a musttail call).
bool reachable_from_outside(const llvm::Function& function) {
  if (!function.hasLocalLinkage() || function.hasAddressTaken()) return true;
  for (const llvm::User* user : function.users()) {
    const auto* call = llvm::dyn_cast<llvm::CallInst>(user);
    if (call && call->isMustTailCall() && call->getFunction() != &function &&
        (!call->getFunction()->hasLocalLinkage() || call->getFunction()->hasAddressTaken()))
      return true;
  }
  return false;
}

class ThreadPointerInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    bool changed = false;
    for (llvm::Function& function : module) {
      if (!is_instrumentable(function)) continue;
      changed |= instrument(module, function);
    }
    return changed;
  }

 private:
  static bool instrument(llvm::Module& module, llvm::Function& function) {
    const bool local_storage = uses_thread_local(function);
    std::vector<llvm::CallBase*> before, after;
    std::vector<llvm::ReturnInst*> returns;
    bool calls = false;
    for (llvm::BasicBlock& block : function)
      for (llvm::Instruction& inst : block) {
        if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&inst)) {
          const auto* previous = llvm::dyn_cast_or_null<llvm::CallInst>(ret->getPrevNode());
          if (!(previous && previous->isMustTailCall())) returns.push_back(ret);
        }
        auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        if (!call || llvm::isa<llvm::IntrinsicInst>(call)) continue;
        const llvm::Function* callee =
            llvm::dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
        // A function of this module asks for itself where it needs to, and so do the runtime's
        // (hooks and models: a call before them would also move the program's spills around
        // the symbolic hooks, which the stateful strategies' local states then tell apart).
        const bool asks_itself =
            callee && (is_instrumentable(*callee) || has_prefix(callee->getName(), kRuntimePrefix));
        const bool hook = callee && (is_access_hook(callee->getName()) ||
                                     runtime::needs_no_thread_pointer(callee->getName().str()));
        if (!hook && !asks_itself) before.push_back(call);
        calls = true;
        // (A musttail call is followed by its return, which must come right after it.)
        const auto* plain = llvm::dyn_cast<llvm::CallInst>(call);
        if (local_storage && !call->isInlineAsm() && !(plain && plain->isMustTailCall()))
          after.push_back(call);
      }
    // Code weft did not compile may call it (it is visible outside the module, or its address
    // is taken) and read its own storage once it returns.
    const bool called_from_outside = reachable_from_outside(function);
    if (!calls || !called_from_outside) returns.clear();
    if (before.empty() && returns.empty() && !local_storage) return false;
    const llvm::FunctionCallee sync = declare_hook(module, Hook::__weft_sync_thread_pointer);
    llvm::IRBuilder<> builder(module.getContext());
    const auto sync_ending_block = [&](llvm::Instruction* at) {
      // Inserted before `at`, which then starts a block of its own.
      builder.SetInsertPoint(at);
      builder.SetCurrentDebugLocation(location_of(*at));
      builder.CreateCall(sync);
      llvm::SplitBlock(at->getParent(), at);
    };
    for (llvm::CallBase* call : before) {
      position_before(builder, *call);
      builder.CreateCall(sync);
    }
    if (!returns.empty()) {
      const llvm::FunctionCallee on_return =
          declare_hook(module, Hook::__weft_sync_thread_pointer_on_return);
      llvm::Function* return_address =
          llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::returnaddress);
      for (llvm::ReturnInst* ret : returns) {
        position_before(builder, *ret);
        builder.CreateCall(on_return, {builder.CreatePointerCast(
                                          builder.CreateCall(return_address, {builder.getInt32(0)}),
                                          hook_pointer_type(module.getContext()))});
      }
    }
    for (llvm::CallBase* call : after) {
      if (auto* invoke = llvm::dyn_cast<llvm::InvokeInst>(call)) {
        sync_ending_block(&*invoke->getNormalDest()->getFirstInsertionPt());
        sync_ending_block(&*invoke->getUnwindDest()->getFirstInsertionPt());
      } else if (!call->isTerminator() && call->getNextNode()) {
        sync_ending_block(call->getNextNode());
      }
    }
    if (local_storage) {
      llvm::BasicBlock& entry = function.getEntryBlock();
      llvm::Instruction* at = &*entry.getFirstInsertionPt();
      while (llvm::isa<llvm::AllocaInst>(at) && at->getNextNode()) at = at->getNextNode();
      sync_ending_block(at);
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_thread_pointer_instrumenter() {
  return std::make_unique<ThreadPointerInstrumenter>();
}

}  // namespace weft::instrument
