// The unfolding a strategy built, drawn in Graphviz's dot language (--dump-unfolding): events as
// boxes labelled with their thread, operation and source line; conditions as circles (threads'
// local states, and the objects' values or states); arcs from the conditions an event consumes
// to it and from it to the ones it produces; read arcs (the context, thesis §5.2) dashed, without
// a head.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "weft/explore/unfolding.hpp"

namespace weft::explorer {

/// What a drawing names things by: a thread (its creation path, "0.1"), the source line of an
/// event's code address (`site`, 0 if unknown: ""), an object (a global's name, or "").
struct UnfoldingNames {
  std::function<std::string(ThreadId)> thread;
  std::function<std::string(std::uint64_t site)> site;
  std::function<std::string(ObjectKey)> object;
};

/// `sites[e]`: the code address of event e (0 or missing: unknown).
std::string unfolding_dot(const Unfolding& unfolding, const std::vector<std::uint64_t>& sites,
                          const UnfoldingNames& names);

}  // namespace weft::explorer
