// Debian's LLVM lists Polly among the extensions linked into its tools
// (llvm/Support/Extension.def), so clang's code generation registers it with every pass builder;
// Polly's library is a package apart and weft-build does not link it. Polly does nothing unless
// asked (-mllvm -polly), which weft's builds never do: its registration here adds no pass.
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo();

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not linked into weft-build)", "0",
          [](llvm::PassBuilder&) {}};
}
