#include "hook_calls.hpp"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/ErrorHandling.h>

namespace weft::instrument {
namespace {

// A line-only location at the function's declaration, for code that has no location of its own.
llvm::DebugLoc declaration_location(const llvm::Function& function) {
  llvm::DISubprogram* subprogram = function.getSubprogram();
  if (subprogram == nullptr) return {};
  return llvm::DILocation::get(function.getContext(), subprogram->getLine(), 0, subprogram);
}

struct HookSpelling {
  std::string_view name;
  std::string_view signature;
};

#define WEFT_HOOK_SPELLING(result, name, parameters, signature) {#name, signature},
constexpr HookSpelling kHooks[] = {WEFT_HOOKS(WEFT_HOOK_SPELLING)};
#undef WEFT_HOOK_SPELLING

llvm::Type* type_of(char letter, llvm::LLVMContext& context) {
  switch (letter) {
    case 'v':
      return llvm::Type::getVoidTy(context);
    case 'p':
      return hook_pointer_type(context);
    case 'i':
      return llvm::Type::getInt32Ty(context);
    case 'w':
      return llvm::Type::getInt64Ty(context);
  }
  llvm::report_fatal_error("weft: a hook signature in hooks.h uses an unknown type letter");
}

}  // namespace

llvm::StringRef hook_name(Hook hook) {
  const std::string_view name = kHooks[static_cast<std::size_t>(hook)].name;
  return llvm::StringRef(name.data(), name.size());
}

llvm::PointerType* hook_pointer_type(llvm::LLVMContext& context) {
  return llvm::PointerType::getUnqual(llvm::Type::getInt8Ty(context));
}

llvm::FunctionCallee declare_hook(llvm::Module& module, Hook which) {
  llvm::LLVMContext& context = module.getContext();
  const HookSpelling& spelling = kHooks[static_cast<std::size_t>(which)];
  llvm::SmallVector<llvm::Type*, 4> params;
  for (char letter : spelling.signature.substr(1)) params.push_back(type_of(letter, context));
  auto* type = llvm::FunctionType::get(type_of(spelling.signature[0], context), params, false);
  llvm::FunctionCallee hook = module.getOrInsertFunction(hook_name(which), type);
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
