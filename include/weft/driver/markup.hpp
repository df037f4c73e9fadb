// Escaping text for XML and HTML, shared by the JUnit and HTML reports.
#pragma once

#include <string>
#include <string_view>

namespace weft::driver {

/// `text` as XML or HTML character data or attribute value: &, <, >, " and ' as entities, and
/// the control characters XML 1.0 forbids (all below 0x20 but tab, newline and carriage return)
/// as U+FFFD, so that any program output or message keeps the document well-formed.
std::string markup_escape(std::string_view text);

}  // namespace weft::driver
