// Declaring runtime hooks and inserting calls to them with the right debug location.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/DebugLoc.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <string_view>

#include "weft/runtime/hooks.h"

namespace weft::instrument {

// One value per hook of the ABI (weft/runtime/hooks.h), in its order.
enum class Hook {
#define WEFT_HOOK_ENUMERATOR(result, name, parameters, signature) name,
  WEFT_HOOKS(WEFT_HOOK_ENUMERATOR)
#undef WEFT_HOOK_ENUMERATOR
};

// The hook's symbol.
llvm::StringRef hook_name(Hook hook);

// Every runtime symbol carries this prefix (see hooks.h).
inline constexpr std::string_view kRuntimePrefix = WEFT_RUNTIME_PREFIX;

// The name the program's main is given (see hooks.h).
#define WEFT_SPELLING_OF(identifier) WEFT_SPELLING_OF_EXPANDED(identifier)
#define WEFT_SPELLING_OF_EXPANDED(identifier) #identifier
inline constexpr const char* kProgramMainName = WEFT_SPELLING_OF(WEFT_PROGRAM_MAIN);

// The pointer type hooks take: i8* with typed pointers (LLVM 14's default), ptr with opaque ones.
llvm::PointerType* hook_pointer_type(llvm::LLVMContext& context);

// Declares (or finds) the runtime hook with the types its signature in hooks.h gives. Its pointer
// parameters are marked nocapture, so hook calls never make a local look escaped to a later
// capture query, whichever instrumenter inserted them.
llvm::FunctionCallee declare_hook(llvm::Module& module, Hook hook);

// The runtime attributes each event to the source line of the hook's return address, so every hook
// call carries a location. These return the location to use: the instruction's own, or the
// function's first located instruction, falling back to the function's declaration line when there
// is none (e.g. for compiler-generated stores of parameters).
llvm::DebugLoc location_of(const llvm::Instruction& inst);
llvm::DebugLoc entry_location(const llvm::Function& function);

// Positions `builder` immediately before `inst`, with inst's location (see location_of).
void position_before(llvm::IRBuilder<>& builder, llvm::Instruction& inst);

// Positions `builder` at the start of `function` (after its leading allocas), with the location of
// the function's first instruction (see entry_location).
void position_at_entry(llvm::IRBuilder<>& builder, llvm::Function& function);

}  // namespace weft::instrument
