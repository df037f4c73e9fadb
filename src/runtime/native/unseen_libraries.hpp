// Shared libraries the program loaded that weft did not compile and whose code can synchronise
// threads on its own (lock-prefixed compare-and-swap or exchange-and-add instructions), such as
// Abseil's, GLib's or oneTBB's: their synchronisation is invisible to weft, so the verdict says
// that races and the coverage of interleavings depend on them (CaveatKind::kUnseenLibrary).
#pragma once

#include <string>
#include <vector>

namespace weft::runtime::native {

/// The file names of those libraries, found once per process.
const std::vector<std::string>& libraries_with_unseen_synchronisation();

/// Whether every shared library weft-cc built asks for its thread pointer where it needs it
/// (the pass's __weft_sync_thread_pointer), so that threads may resume without it being set
/// (RunLimits::lazy_thread_pointer). Found once per process.
bool libraries_ask_for_thread_pointer();

}  // namespace weft::runtime::native
