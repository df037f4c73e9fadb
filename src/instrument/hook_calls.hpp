// Declaring runtime hooks and inserting calls to them with the right debug location.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/DebugLoc.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace weft::instrument {

// The pointer type hooks take: i8* with typed pointers (LLVM 14's default), ptr with opaque ones.
llvm::PointerType* hook_pointer_type(llvm::LLVMContext& context);

// Declares (or finds) the void runtime hook `name` with the given parameter types. Its pointer
// parameters are marked nocapture, so hook calls never make a local look escaped to a later
// capture query, whichever instrumenter inserted them.
llvm::FunctionCallee declare_hook(llvm::Module& module, llvm::StringRef name,
                                  llvm::ArrayRef<llvm::Type*> params = {});

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
