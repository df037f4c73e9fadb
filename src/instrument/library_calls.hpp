// What the symbolic instrumentation does with a call to a function weft did not compile (the C
// library, mostly): send it to a model that keeps input bytes symbolic, let it be (weft's own
// runtime, allocation, output), or check what it reads through its pointers.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <optional>

#include "hook_calls.hpp"

namespace weft::instrument {

// The model of the C library function `name` (libc_models.cpp), if weft has one.
std::optional<Hook> library_model(llvm::StringRef name);

// Whether what `name` reads through its pointer arguments cannot reach the program's values:
// functions the runtime provides (threads, synchronisation, allocation: they only keep or
// hand back the pointer) and output (what it prints goes out of the program).
bool reads_nothing_back(llvm::StringRef name);

}  // namespace weft::instrument
