#include "instrumentation_pass.hpp"

#include <llvm/ADT/STLExtras.h>

#include <memory>
#include <vector>

#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

// Named metadata that marks a module as instrumented, so that compiling weft-cc's own bitcode
// output again (e.g. `weft-cc -c -emit-llvm` and then `weft-cc x.bc`) does not hook everything
// twice. It is added at the end of the last stage.
constexpr const char* kInstrumentedMarker = "weft.instrumented";

// The instrumenters of a stage, in the order they run.
std::vector<std::unique_ptr<Instrumenter>> make_instrumenters(Stage stage) {
  std::vector<std::unique_ptr<Instrumenter>> instrumenters;
  switch (stage) {
    case Stage::kBeforeOptimization:
      instrumenters.push_back(make_atomic_region_instrumenter());
      instrumenters.push_back(make_reach_error_instrumenter());
      // Before optimisation: inlined copies of the spin must be the short one.
      instrumenters.push_back(make_library_spin_remover());
      break;
    case Stage::kAfterOptimization:
      // First: it recognises busy-wait loops by their lack of calls, hooks included.
      instrumenters.push_back(make_spin_loop_instrumenter());
      instrumenters.push_back(make_shared_access_instrumenter());
      instrumenters.push_back(make_atomic_access_instrumenter());
      instrumenters.push_back(make_inline_asm_instrumenter());
      // After the access hooks, which may hand the baton to another thread: a store's
      // expression must reach shadow memory after its hook, right before the store itself.
      instrumenters.push_back(make_symbolic_instrumenter());
      instrumenters.push_back(make_cxx_guard_redirector());
      // After every instrumenter that adds calls: it places the thread-pointer requests.
      instrumenters.push_back(make_thread_pointer_instrumenter());
      // Last: it gives main a runtime name (__weft_*), and instrumenters skip such functions.
      instrumenters.push_back(make_main_renamer());
      break;
  }
  return instrumenters;
}

}  // namespace

llvm::PreservedAnalyses InstrumentationPass::run(llvm::Module& module,
                                                 llvm::ModuleAnalysisManager& /*analyses*/) {
  // A module without code (only declarations and data) has nothing to hook; leave it untouched.
  bool has_code = llvm::any_of(module, [](const llvm::Function& f) { return !f.isDeclaration(); });
  if (!has_code || module.getNamedMetadata(kInstrumentedMarker) != nullptr) {
    return llvm::PreservedAnalyses::all();
  }
  bool changed = false;
  for (const std::unique_ptr<Instrumenter>& instrumenter : make_instrumenters(stage_)) {
    changed |= instrumenter->run(module);
  }
  if (stage_ == Stage::kAfterOptimization) {
    module.getOrInsertNamedMetadata(kInstrumentedMarker);
    changed = true;
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

}  // namespace weft::instrument
