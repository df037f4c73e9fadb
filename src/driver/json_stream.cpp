#include "weft/driver/json_stream.hpp"

namespace weft::driver {
namespace {

// `value.dump(2)` as it appears nested `depth` levels deep: its later lines indented further.
// (A JSON text has no raw newline inside a string: each newline is between tokens.)
std::string nested_dump(const nlohmann::json& value, std::size_t depth) {
  std::string text = value.dump(2);
  const std::string indent = "\n" + std::string(2 * depth, ' ');
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n')
      out += indent;
    else
      out += c;
  }
  return out;
}

}  // namespace

void write_json_streaming(std::FILE* out, const nlohmann::json& document, const std::string& key,
                          std::size_t count,
                          const std::function<nlohmann::json(std::size_t)>& item) {
  const auto write_array = [&] {
    std::fprintf(out, "  %s: ", nlohmann::json(key).dump().c_str());
    if (count == 0) {
      std::fputs("[]", out);
      return;
    }
    std::fputs("[", out);
    for (std::size_t i = 0; i < count; ++i)
      std::fprintf(out, "%s\n    %s", i ? "," : "", nested_dump(item(i), 2).c_str());
    std::fputs("\n  ]", out);
  };
  // The object's keys in the order dump() writes them (nlohmann's objects are sorted maps).
  std::fputs("{\n", out);
  bool array_written = false, first = true;
  const auto separate = [&] {
    if (!first) std::fputs(",\n", out);
    first = false;
  };
  for (const auto& [name, value] : document.items()) {
    if (!array_written && key < name) {
      separate();
      write_array();
      array_written = true;
    }
    separate();
    std::fprintf(out, "  %s: %s", nlohmann::json(name).dump().c_str(),
                 nested_dump(value, 1).c_str());
  }
  if (!array_written) {
    separate();
    write_array();
  }
  std::fputs("\n}\n", out);
}

}  // namespace weft::driver
