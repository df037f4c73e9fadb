// Entry point of libweft_pass.so, loaded by clang with -fpass-plugin (weft-cc does this) or by opt
// with -load-pass-plugin (then -passes=weft-instrument runs both stages).
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>

#include "instrumentation_pass.hpp"

namespace {

using weft::instrument::InstrumentationPass;
using weft::instrument::Stage;

void register_passes(llvm::PassBuilder& builder) {
  // Both extension points are also invoked by LLVM 14's -O0 pipeline (tests/instrument checks
  // that the hooks are there at -O0).
  builder.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager& passes, llvm::OptimizationLevel /*level*/) {
        passes.addPass(InstrumentationPass(Stage::kBeforeOptimization));
      });
  builder.registerOptimizerLastEPCallback(
      [](llvm::ModulePassManager& passes, llvm::OptimizationLevel /*level*/) {
        passes.addPass(InstrumentationPass(Stage::kAfterOptimization));
      });
  builder.registerPipelineParsingCallback(
      [](llvm::StringRef name, llvm::ModulePassManager& passes,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement> /*inner*/) {
        if (name != "weft-instrument") return false;
        passes.addPass(InstrumentationPass(Stage::kBeforeOptimization));
        passes.addPass(InstrumentationPass(Stage::kAfterOptimization));
        return true;
      });
}

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "weft", "0.1.0", register_passes};
}
