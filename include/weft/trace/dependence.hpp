// The dependence relation between visible operations (docs/dependence.md has it as a table).
#pragma once

#include "weft/trace/operation.hpp"

namespace weft {

/// Whether two reads of the same location commute. Flanagan–Godefroid's DPOR treats every pair of
/// accesses to one object as dependent (kReadsConflict); Saarikivi et al. §II-D let reads commute.
enum class ReadPolicy : std::uint8_t { kReadsCommute, kReadsConflict };

/// Two events are dependent when executing them in the other order could lead to a different
/// Mazurkiewicz trace (thesis §2.4, Def. 3), or when one causally enables the other (thread
/// creation before the child's events, the child's events before a join of it). Events of the same
/// thread are always dependent (program order).
bool dependent(const Event& a, const Event& b, ReadPolicy policy);

/// False when `earlier` and `later` (of different threads) can never be enabled in the same state,
/// so that reordering them is pointless: an unlock and a lock of one mutex, a thread's creation and
/// its events, a thread's events and a join of it, an exit and anything but another exit (the
/// scheduler runs an exit only when no other thread can run) (Flanagan–Godefroid's "may be
/// co-enabled").
bool may_be_coenabled(const Event& earlier, const Event& later);

}  // namespace weft
