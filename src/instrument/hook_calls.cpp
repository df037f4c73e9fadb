#include "hook_calls.hpp"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>

namespace weft::instrument {
namespace {

// A line-only location at the function's declaration, for code that has no location of its own.
llvm::DebugLoc declaration_location(const llvm::Function& function) {
  llvm::DISubprogram* subprogram = function.getSubprogram();
  if (subprogram == nullptr) return {};
  return llvm::DILocation::get(function.getContext(), subprogram->getLine(), 0, subprogram);
}

}  // namespace

llvm::PointerType* hook_pointer_type(llvm::LLVMContext& context) {
  return llvm::PointerType::getUnqual(llvm::Type::getInt8Ty(context));
}

llvm::FunctionCallee declare_hook(llvm::Module& module, llvm::StringRef name,
                                  llvm::ArrayRef<llvm::Type*> params) {
  llvm::LLVMContext& context = module.getContext();
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
  llvm::FunctionCallee hook = module.getOrInsertFunction(name, type);
  if (auto* function = llvm::dyn_cast<llvm::Function>(hook.getCallee())) {
    for (llvm::Argument& arg : function->args()) {
      if (arg.getType()->isPointerTy()) arg.addAttr(llvm::Attribute::NoCapture);
    }
  }
  return hook;
}

llvm::DebugLoc location_of(const llvm::Instruction& inst) {
  if (const llvm::DebugLoc& own = inst.getDebugLoc()) return own;
  return declaration_location(*inst.getFunction());
}

llvm::DebugLoc entry_location(const llvm::Function& function) {
  for (const llvm::Instruction& inst : function.getEntryBlock()) {
    if (!inst.isDebugOrPseudoInst() && inst.getDebugLoc()) return inst.getDebugLoc();
  }
  return declaration_location(function);
}

void position_before(llvm::IRBuilder<>& builder, llvm::Instruction& inst) {
  builder.SetInsertPoint(&inst);
  builder.SetCurrentDebugLocation(location_of(inst));
}

void position_at_entry(llvm::IRBuilder<>& builder, llvm::Function& function) {
  llvm::BasicBlock& entry = function.getEntryBlock();
  auto it = entry.getFirstInsertionPt();
  while (it != entry.end() && llvm::isa<llvm::AllocaInst>(*it)) ++it;
  builder.SetInsertPoint(&entry, it);
  builder.SetCurrentDebugLocation(entry_location(function));
}

}  // namespace weft::instrument
