// The filter that keeps thread-private memory out of the trace.
#pragma once

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Value.h>

namespace weft::instrument {

// Answers, for the accesses of one function, whether an access through a pointer may touch memory
// another thread can see. It cannot when the pointer is based on a local whose address never
// escapes, a constant global, or a thread_local global. Like ThreadSanitizer, this looks through a
// bounded number of GEPs and casts (llvm::getUnderlyingObject) and answers "may" when unsure.
class SharedMemoryFilter {
 public:
  bool may_be_shared(const llvm::Value* pointer);

 private:
  // Whether each local asked about so far escapes. Cached because at -O0 every use of a local is a
  // load or store that asks again.
  llvm::DenseMap<const llvm::AllocaInst*, bool> escapes_;
};

}  // namespace weft::instrument
