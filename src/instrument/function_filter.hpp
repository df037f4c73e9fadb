// Which functions the instrumenters touch.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/Function.h>

#include <string_view>

namespace weft::instrument {

bool has_prefix(llvm::StringRef name, std::string_view prefix);

// Whether `function` has a body that may be instrumented: not a declaration, not the runtime's own
// code (names starting with __weft_), and not naked (its body is inline assembly only).
bool is_instrumentable(const llvm::Function& function);

}  // namespace weft::instrument
