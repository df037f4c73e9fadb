#include "weft/driver/code_symbols.hpp"

#include <llvm/DebugInfo/DIContext.h>
#include <llvm/DebugInfo/Symbolize/Symbolize.h>
#include <llvm/Object/ObjectFile.h>

namespace weft::driver {
namespace {

std::string known(const std::string& s) {
  return s == llvm::DILineInfo::BadString ? "" : s;
}

}  // namespace

struct CodeSymbols::Impl {
  // Demangled linkage names and absolute paths, as llvm-symbolizer prints them by default.
  llvm::symbolize::LLVMSymbolizer symbolizer{llvm::symbolize::LLVMSymbolizer::Options{}};
};

CodeSymbols::CodeSymbols() : impl_(std::make_unique<Impl>()) {}
CodeSymbols::~CodeSymbols() = default;

std::vector<SourceFrame> CodeSymbols::frames(const std::string& file, std::uint64_t address) {
  std::vector<SourceFrame> out;
  auto found = impl_->symbolizer.symbolizeInlinedCode(
      file, {address, llvm::object::SectionedAddress::UndefSection});
  if (!found) {
    llvm::consumeError(found.takeError());
    return out;
  }
  for (std::uint32_t i = 0; i < found->getNumberOfFrames(); ++i) {
    const llvm::DILineInfo& f = found->getFrame(i);
    out.push_back({known(f.FunctionName), known(f.FileName), f.Line});
  }
  return out;
}

std::optional<DataSymbol> CodeSymbols::data(const std::string& file, std::uint64_t address) {
  auto found = impl_->symbolizer.symbolizeData(
      file, {address, llvm::object::SectionedAddress::UndefSection});
  if (!found) {
    llvm::consumeError(found.takeError());
    return std::nullopt;
  }
  if (known(found->Name).empty()) return std::nullopt;
  return DataSymbol{found->Name, found->Start, found->Size};
}

}  // namespace weft::driver
