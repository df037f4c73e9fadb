// Untrusted text (file names, input fields, exception texts, schedules) inside an error
// message, which must stay one line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace weft {

/// `text` with control characters escaped (\\xNN), cut after `max` bytes ("..." then).
std::string one_line(std::string_view text, std::size_t max = 200);

}  // namespace weft
