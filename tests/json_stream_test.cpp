// The --json result written with its bugs streamed one by one reads exactly as the whole
// document dumped at once.
#include "weft/driver/json_stream.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using nlohmann::json;

std::string streamed(const json& document, const std::string& key, const json& items) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  weft::driver::write_json_streaming(out, document, key, items.size(),
                                     [&](std::size_t i) { return items[i]; });
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

std::string whole(json document, const std::string& key, const json& items) {
  document[key] = items;
  return document.dump(2) + "\n";
}

json some_bugs() {
  return json::array({{{"kind", "data race"},
                       {"steps", json::array({{{"thread", "0.1"}, {"line", 3}}, json::object()})},
                       {"message", "two\nlines \"quoted\""}},
                      {{"kind", "deadlock"}, {"steps", json::array()}}});
}

TEST(JsonStream, ReadsAsTheWholeDocumentWhereverTheKeySorts) {
  const json document = {{"verdict", "bug"},
                         {"exit_code", 1},
                         {"statistics", {{"executions", 12}, {"nested", {{"a", json::array()}}}}},
                         {"bugs_not_kept", 7},
                         {"complete", false}};
  for (const char* key : {"bugs", "a_first", "zz_last", "complete_x"})
    EXPECT_EQ(streamed(document, key, some_bugs()), whole(document, key, some_bugs())) << key;
}

TEST(JsonStream, AnEmptyArrayAndAnOtherwiseEmptyDocument) {
  const json document = {{"verdict", "no bug"}};
  EXPECT_EQ(streamed(document, "bugs", json::array()), whole(document, "bugs", json::array()));
  EXPECT_EQ(streamed(json::object(), "bugs", some_bugs()),
            whole(json::object(), "bugs", some_bugs()));
  EXPECT_EQ(json::parse(streamed(json::object(), "bugs", some_bugs()))["bugs"], some_bugs());
}

}  // namespace
