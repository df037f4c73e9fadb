// Eraser's lockset check (Savage, Burrows, Nelson, Sobalvarro and Anderson, "Eraser: a dynamic
// data race detector for multithreaded programs", 1997; Bruening and Chapin §4.1 run it beside
// ExitBlock): whether every shared location is accessed with one lock that guards it held.
#pragma once

#include <cstddef>

#include "weft/trace/thread_id.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

/// Checks one execution. For each byte of shared memory it keeps the locks held at every access
/// since the byte was last owned by one thread (Eraser's candidate set, refined at each access),
/// and whether it was written meanwhile. Ownership passes on, as Eraser's initialisation state
/// allows, when every earlier access happens before the new one through thread creation and
/// joins alone (a thread that initialises data before it starts others, or reads their results
/// after joining them); locks order nothing here, which is what makes the check predict: two
/// accesses under different locks break the discipline in whatever order this execution ran
/// them. A location whose set becomes empty while it is shared and written is a violation:
/// appended to `trace.failures` (kLockDiscipline, the two accesses with the locks each held),
/// and the trace's outcome if it had no bug before. Accesses are the memory events and, with
/// synchronisation points only, the segments' reads and writes (Trace::segments); an opaque
/// segment's are not seen. Returns how many it appended.
/// `threads` names the threads; `in_process`: memory is named by the in-process API's object
/// keys (object_name), otherwise by address, marked for the driver to name ({data:...}).
std::size_t check_locking_discipline(Trace& trace, const ThreadRegistry& threads, bool in_process);

}  // namespace weft::explorer
