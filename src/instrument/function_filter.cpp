#include "function_filter.hpp"

#include "hook_calls.hpp"

namespace weft::instrument {

bool has_prefix(llvm::StringRef name, std::string_view prefix) {
  return std::string_view(name.data(), name.size()).starts_with(prefix);
}

bool is_instrumentable(const llvm::Function& function) {
  return !function.isDeclaration() && !has_prefix(function.getName(), kRuntimePrefix) &&
         !function.hasFnAttribute(llvm::Attribute::Naked);
}

}  // namespace weft::instrument
