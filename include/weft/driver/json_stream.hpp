// A result document written with one large array made item by item (json_stream.cpp).
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace weft::driver {

/// Writes to `out` exactly what `document.dump(2)` and a newline would be, with `document[key]` set
/// to the array of `count` items that `item(i)` makes, each made, written and freed in turn. With
/// --all-bugs the bugs' steps are most of the result, and the whole document built at once
/// takes several times their size. `document` is an object without `key`.
void write_json_streaming(std::FILE* out, const nlohmann::json& document, const std::string& key,
                          std::size_t count,
                          const std::function<nlohmann::json(std::size_t)>& item);

}  // namespace weft::driver
