// The module passes that weft's pass plugin adds to clang's pipeline.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

namespace weft::instrument {

// When a group of instrumenters runs relative to the optimisation pipeline.
enum class Stage {
  // Before optimisation, for hooks that mark points in the source (a function's entry, its
  // returns): as opaque calls they survive inlining and dead-code elimination, and move with the
  // code they mark when it is inlined.
  kBeforeOptimization,
  // After optimisation, as in ThreadSanitizer, for hooks on memory accesses: locals promoted to
  // registers by then are no longer accesses.
  kAfterOptimization,
};

// Runs the instrumenters (instrumenter.hpp) of one stage over a module.
class InstrumentationPass : public llvm::PassInfoMixin<InstrumentationPass> {
 public:
  explicit InstrumentationPass(Stage stage) : stage_(stage) {}

  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager& analyses);

  // Run even on optnone functions (clang marks every function optnone at -O0).
  static bool isRequired() { return true; }

 private:
  Stage stage_;
};

}  // namespace weft::instrument
