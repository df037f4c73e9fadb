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

SourceLocation location_of(const SourceFrame& frame) {
  SourceLocation loc;
  loc.function = program_function_name(frame.function);
  loc.file = frame.file;
  loc.line = frame.line;
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

CodeSymbols& Symbolizer::symbols() {
  if (!symbols_) symbols_ = std::make_unique<CodeSymbols>();
  return *symbols_;
}

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
  for (auto a : code) {
    if (!a || code_.count(a)) continue;
    // Library code: by library, with its own symbols (the function; lines if it has them).
    if (const MappedCode* library = library_of(a - 1)) {
      // Shared libraries map their code at file offsets equal to its addresses in the file.
      const auto frames = symbols().frames(library->path, a - 1 - library->start + library->offset);
      SourceLocation loc;
      if (!frames.empty()) loc = location_of(frames.front());
      // "std::thread::_M_start_thread(std::unique_ptr<...>, void (*)())": the name says enough.
      if (const auto paren = loc.function.find('('); paren != std::string::npos && paren > 0)
        loc.function.resize(paren);
      const auto slash = library->path.rfind('/');
      loc.library = slash == std::string::npos ? library->path : library->path.substr(slash + 1);
      code_[a] = loc;
      continue;
    }
    // Frames come innermost first: prefer the first outside system headers.
    SourceLocation best;
    const auto frames = symbols().frames(program_, offset(a - 1));
    for (std::size_t k = 0; k < frames.size(); ++k) {
      SourceLocation loc = location_of(frames[k]);
      if (k == 0) best = loc;
      if (!is_system_file(loc.file)) {
        best = loc;
        break;
      }
    }
    code_[a] = best;
  }
  for (auto a : data) {
    if (data_.count(a)) continue;
    // The debug information names elements and fields; the symbol table only variables.
    if (auto name = debug_info().global(offset(a))) {
      data_[a] = *name;
      continue;
    }
    std::string name;
    // Only an address inside a variable names it (not the nearest symbol before a stack or
    // heap address).
    const std::uint64_t at = offset(a);
    if (auto symbol = symbols().data(program_, at);
        symbol && symbol->size > 0 && at >= symbol->start && at < symbol->start + symbol->size) {
      name = symbol->name;
      if (at > symbol->start) name += "+" + std::to_string(at - symbol->start);
    }
    data_[a] = name;
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
