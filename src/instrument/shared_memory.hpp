// The filter that keeps thread-private memory out of the trace.
#pragma once

#include <llvm/IR/Value.h>

namespace weft::instrument {

// Whether an access through `pointer` may touch memory that another thread can see. It cannot when
// the pointer is based on a local whose address never escapes, a constant global, or a
// thread_local global. Like ThreadSanitizer, this looks through a bounded number of GEPs and casts
// (llvm::getUnderlyingObject) and answers "may" whenever it is not sure.
bool may_be_shared(const llvm::Value* pointer);

}  // namespace weft::instrument
