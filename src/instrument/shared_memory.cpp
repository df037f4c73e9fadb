#include "shared_memory.hpp"

#include <llvm/Analysis/CaptureTracking.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>

namespace weft::instrument {

bool may_be_shared(const llvm::Value* pointer) {
  const llvm::Value* object = llvm::getUnderlyingObject(pointer);
  if (llvm::isa<llvm::AllocaInst>(object)) {
    // Storing or returning the address may hand it to another thread, so both count as escapes.
    return llvm::PointerMayBeCaptured(object, /*ReturnCaptures=*/true, /*StoreCaptures=*/true);
  }
  if (const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(object)) {
    return !global->isConstant() && !global->isThreadLocal();
  }
  return true;
}

}  // namespace weft::instrument
