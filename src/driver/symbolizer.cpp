#include "weft/driver/symbolizer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>

#include "weft/driver/debug_info.hpp"
#include "weft/driver/native_runner.hpp"
#include "weft/runtime/hooks.h"

namespace weft::driver {
namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs llvm-symbolizer over `queries` and returns its output blocks, one per query (they end
// with an empty line). The queries go on the command line, which the shell takes as one word of at
// most 128 KiB: a long list is split over several runs.
std::vector<std::vector<std::string>> symbolize(const std::string& program,
                                                const std::vector<std::string>& queries) {
  constexpr std::size_t kMaxCommand = 64 * 1024;
  std::vector<std::vector<std::string>> blocks;
  std::size_t next = 0;
  while (next < queries.size()) {
    std::string command = "llvm-symbolizer-14 --obj=" + shell_quote(program) + " --inlining";
    const std::size_t first = next;
    while (next < queries.size() &&
           (next == first || command.size() + queries[next].size() + 3 < kMaxCommand))
      command.append(" ").append(shell_quote(queries[next++]));
    command += " 2>/dev/null";
    const std::size_t expected = blocks.size() + (next - first);
    std::unique_ptr<FILE, int (*)(FILE*)> out(popen(command.c_str(), "r"), pclose);
    std::vector<std::string> block;
    char line[4096];
    while (out && std::fgets(line, sizeof line, out.get())) {
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      if (s.empty()) {
        blocks.push_back(std::move(block));
        block.clear();
      } else {
        block.push_back(std::move(s));
      }
    }
    if (!block.empty()) blocks.push_back(std::move(block));
    // One block per query, whatever the run printed, so that the next run's blocks line up.
    blocks.resize(expected);
  }
  return blocks;
}

// The name the program gave a function that the pass renamed (main) or copied (the copy without
// symbolic tracking).
std::string program_function_name(std::string function) {
  constexpr std::string_view plain_copy = WEFT_PLAIN_COPY_SUFFIX;
  // "f.weft_plain", or demangled "ns::f(int) (.weft_plain)".
  const std::string demangled_copy = " (" + std::string(plain_copy) + ")";
  if (function.ends_with(demangled_copy))
    function.resize(function.size() - demangled_copy.size());
  else if (function.size() > plain_copy.size() && function.ends_with(plain_copy))
    function.resize(function.size() - plain_copy.size());
  if (function == "__weft_main") return "main";
  return function;
}

SourceLocation parse_frame(const std::string& function, const std::string& where) {
  SourceLocation loc;
  loc.function = function == "??" ? "" : program_function_name(function);
  // "file:line:column"
  const auto last = where.rfind(':');
  const auto mid = last == std::string::npos ? std::string::npos : where.rfind(':', last - 1);
  if (mid != std::string::npos && where.substr(0, mid) != "??") {
    loc.file = where.substr(0, mid);
    loc.line = static_cast<std::uint32_t>(std::strtoul(where.c_str() + mid + 1, nullptr, 10));
  }
  return loc;
}

}  // namespace

bool is_system_file(const std::string& file) {
  return file.empty() || file.starts_with("/usr/include") || file.starts_with("/usr/lib");
}

std::string SourceLocation::short_text() const {
  if (file.empty()) return library.empty() ? "?" : library;
  const auto slash = file.rfind('/');
  return (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(line);
}

Symbolizer::Symbolizer(std::string program, std::uint64_t load_base,
                       std::vector<MappedCode> libraries)
    : program_(std::move(program)),
      libraries_(std::move(libraries)),
      base_(is_position_independent(program_) ? load_base : 0) {}

const MappedCode* Symbolizer::library_of(std::uint64_t address) const {
  for (const MappedCode& m : libraries_)
    if (address >= m.start && address < m.end) return &m;
  return nullptr;
}
Symbolizer::~Symbolizer() = default;
Symbolizer::Symbolizer(Symbolizer&&) noexcept = default;

DebugInfo& Symbolizer::debug_info() {
  if (!debug_info_) debug_info_ = std::make_unique<DebugInfo>(program_);
  return *debug_info_;
}

std::uint64_t Symbolizer::offset(std::uint64_t address) const {
  return address >= base_ ? address - base_ : address;
}

void Symbolizer::prepare(const std::vector<std::uint64_t>& code,
                         const std::vector<std::uint64_t>& data) {
  // Small numbers are not addresses of variables (reserved keys, null).
  for (auto a : data)
    if (a < 4096) data_[a] = "";
  std::vector<std::string> queries;
  std::vector<std::uint64_t> code_todo, data_todo;
  std::set<std::uint64_t> code_asked, data_asked;
  // Library code: by library, with its own symbols (the function; lines if it has them).
  std::map<const MappedCode*, std::vector<std::uint64_t>> in_library;
  for (auto a : code)
    if (a && !code_.count(a) && code_asked.insert(a).second) {
      if (const MappedCode* m = library_of(a - 1)) {
        in_library[m].push_back(a);
        continue;
      }
      code_todo.push_back(a);
      queries.push_back("CODE " + hex(offset(a - 1)));
    }
  for (const auto& [library, addresses] : in_library) {
    std::vector<std::string> library_queries;
    // Shared libraries map their code at file offsets equal to its addresses in the file.
    for (auto a : addresses)
      library_queries.push_back(hex(a - 1 - library->start + library->offset));
    const auto blocks = symbolize(library->path, library_queries);
    const auto slash = library->path.rfind('/');
    for (std::size_t i = 0; i < addresses.size(); ++i) {
      SourceLocation loc;
      if (i < blocks.size() && blocks[i].size() >= 2) loc = parse_frame(blocks[i][0], blocks[i][1]);
      // "std::thread::_M_start_thread(std::unique_ptr<...>, void (*)())": the name says enough.
      if (const auto paren = loc.function.find('('); paren != std::string::npos && paren > 0)
        loc.function.resize(paren);
      loc.library = slash == std::string::npos ? library->path : library->path.substr(slash + 1);
      code_[addresses[i]] = loc;
    }
  }
  for (auto a : data) {
    if (data_.count(a)) continue;
    // The debug information names elements and fields; the symbol table only variables.
    if (auto name = debug_info().global(offset(a))) {
      data_[a] = *name;
      continue;
    }
    if (data_asked.insert(a).second) {
      data_todo.push_back(a);
      queries.push_back("DATA " + hex(offset(a)));
    }
  }
  const auto blocks = symbolize(program_, queries);
  for (std::size_t i = 0; i < code_todo.size(); ++i) {
    SourceLocation best;
    if (i < blocks.size()) {
      // Frames come innermost first, two lines each: prefer the first outside system headers.
      const auto& b = blocks[i];
      for (std::size_t k = 0; k + 1 < b.size(); k += 2) {
        SourceLocation loc = parse_frame(b[k], b[k + 1]);
        if (best.file.empty() && k == 0) best = loc;
        if (!is_system_file(loc.file)) {
          best = loc;
          break;
        }
      }
    }
    code_[code_todo[i]] = best;
  }
  for (std::size_t i = 0; i < data_todo.size(); ++i) {
    std::string name;
    const std::size_t k = code_todo.size() + i;
    if (k < blocks.size() && blocks[k].size() >= 2 && blocks[k][0] != "??") {
      std::istringstream range(blocks[k][1]);
      std::uint64_t start = 0, size = 0;
      range >> start >> size;
      // Only an address inside a variable names it (not the nearest symbol before a stack or
      // heap address).
      const std::uint64_t at = offset(data_todo[i]);
      if (size > 0 && at >= start && at < start + size) {
        name = blocks[k][0];
        if (at > start) name += "+" + std::to_string(at - start);
      }
    }
    data_[data_todo[i]] = name;
  }
}

SourceLocation Symbolizer::code(std::uint64_t return_address) {
  if (!return_address) return {};
  if (!code_.count(return_address)) prepare({return_address}, {});
  return code_[return_address];
}

std::string Symbolizer::data(std::uint64_t address) {
  if (!data_.count(address)) prepare({}, {address});
  return data_[address];
}

std::optional<DebugInfo::Scalar> Symbolizer::scalar(const std::string& name, std::string* why) {
  auto found = debug_info().scalar(name, why);
  if (found) found->address += base_;
  return found;
}

std::string Symbolizer::render(const std::string& message) {
  std::vector<std::uint64_t> code_addresses, data_addresses;
  collect_addresses(message, code_addresses, data_addresses);
  prepare(code_addresses, data_addresses);
  std::string out;
  std::size_t at = 0;
  while (true) {
    const auto open = message.find('{', at);
    if (open == std::string::npos) break;
    const auto close = message.find('}', open);
    if (close == std::string::npos) break;
    const std::string token = message.substr(open + 1, close - open - 1);
    out += message.substr(at, open - at);
    if (token.starts_with("pc:")) {
      const SourceLocation loc = code(std::strtoull(token.c_str() + 3, nullptr, 16));
      // "waits to join thread 0.1 at ?" says nothing: drop the " at " of an unknown place.
      if (loc.file.empty() && out.ends_with(" at "))
        out.resize(out.size() - 4);
      else
        out += loc.short_text();
    } else if (token.starts_with("in:")) {
      // " in FUNCTION" of a code address (as a {pc:}), or nothing when it is unknown.
      const SourceLocation loc = code(std::strtoull(token.c_str() + 3, nullptr, 16));
      if (!loc.function.empty()) out += " in " + loc.function;
    } else if (token.starts_with("data:")) {
      const std::uint64_t a = std::strtoull(token.c_str() + 5, nullptr, 16);
      const std::string name = data(a);
      out += name.empty() ? hex(a) : name + " (" + hex(a) + ")";
    } else if (token.starts_with("stack:")) {
      out += stack_text(token);
    } else {
      out += "{" + token + "}";
    }
    at = close + 1;
  }
  return out + message.substr(at);
}

// "stack:ADDRESS:THREAD:PC@FP;PC@FP" (memory_description.cpp): the frames above the address on
// the owning thread's stack, innermost first; the first whose function has a local there names
// it.
std::string Symbolizer::stack_text(const std::string& token) {
  std::istringstream in(token.substr(6));
  std::string address_text, thread, frames;
  std::getline(in, address_text, ':');
  std::getline(in, thread, ':');
  std::getline(in, frames);
  const std::uint64_t address = std::strtoull(address_text.c_str(), nullptr, 16);
  std::istringstream frame_list(frames);
  for (std::string frame; std::getline(frame_list, frame, ';');) {
    const auto at = frame.find('@');
    if (at == std::string::npos) continue;
    const std::uint64_t pc = std::strtoull(frame.c_str(), nullptr, 16);
    const std::uint64_t fp = std::strtoull(frame.c_str() + at + 1, nullptr, 16);
    std::string function;
    if (auto name = debug_info().local(offset(pc - 1), fp, address, &function))
      return *name + " (a local of " + program_function_name(function) + " in thread " + thread +
             ", " + hex(address) + ")";
  }
  return "an address on the stack of thread " + thread + " (" + hex(address) + ")";
}

void collect_addresses(const std::string& message, std::vector<std::uint64_t>& code,
                       std::vector<std::uint64_t>& data) {
  for (std::size_t at = message.find('{'); at != std::string::npos;
       at = message.find('{', at + 1)) {
    if (message.compare(at, 4, "{pc:") == 0)
      code.push_back(std::strtoull(message.c_str() + at + 4, nullptr, 16));
    else if (message.compare(at, 4, "{in:") == 0)
      code.push_back(std::strtoull(message.c_str() + at + 4, nullptr, 16));
    else if (message.compare(at, 6, "{data:") == 0)
      data.push_back(std::strtoull(message.c_str() + at + 6, nullptr, 16));
  }
}

}  // namespace weft::driver
