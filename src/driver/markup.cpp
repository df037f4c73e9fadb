#include "weft/driver/markup.hpp"

namespace weft::driver {

std::string markup_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
          out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER in UTF-8
        else
          out += ch;
    }
  }
  return out;
}

}  // namespace weft::driver
