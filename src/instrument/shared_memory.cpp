#include "shared_memory.hpp"

#include <llvm/Analysis/CaptureTracking.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/GlobalVariable.h>

#include <limits>

#include "function_filter.hpp"
#include "hook_calls.hpp"

namespace weft::instrument {

bool SharedMemoryFilter::may_be_shared(const llvm::Value* pointer) {
  const llvm::Value* object = llvm::getUnderlyingObject(pointer);
  if (const auto* local = llvm::dyn_cast<llvm::AllocaInst>(object)) {
    auto [it, inserted] = escapes_.try_emplace(local, false);
    if (inserted) {
      // Storing or returning the address may hand it to another thread, so both count as escapes.
      // All uses are explored: LLVM's default gives up after 20, and at -O0 a local has a use for
      // every time it is read or written.
      it->second =
          llvm::PointerMayBeCaptured(local, /*ReturnCaptures=*/true,
                                     /*StoreCaptures=*/true, std::numeric_limits<unsigned>::max());
    }
    return it->second;
  }
  if (const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(object)) {
    // The runtime's own globals (the shadow-expression slots, hooks.h) are not the program's.
    return !global->isConstant() && !global->isThreadLocal() &&
           !has_prefix(global->getName(), kRuntimePrefix);
  }
  return true;
}

}  // namespace weft::instrument
