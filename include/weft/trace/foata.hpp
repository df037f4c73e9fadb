// A canonical fingerprint of a Mazurkiewicz trace.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/trace/dependence.hpp"
#include "weft/trace/operation.hpp"

namespace weft {

/// Hash of the Foata normal form (thesis Def. 29) of the trace of `events`: each event is placed
/// at its Foata level and the events are hashed sorted by (level, thread). Two executions have the
/// same fingerprint exactly when they are linearizations of the same partial order (up to 64-bit
/// hash collisions), so distinct traces can be counted.
std::uint64_t foata_fingerprint(const std::vector<Event>& events, ReadPolicy policy);

}  // namespace weft
