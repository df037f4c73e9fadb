// SV-COMP's convention: calling reach_error() is the bug. Its entry gets __weft_reach_error(), so
// the runtime reports the bug even when reach_error's own body does nothing visible.
#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

class ReachErrorInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    llvm::Function* function = module.getFunction("reach_error");
    if (function == nullptr || !is_instrumentable(*function)) return false;
    llvm::IRBuilder<> builder(module.getContext());
    position_at_entry(builder, *function);
    builder.CreateCall(declare_hook(module, Hook::__weft_reach_error));
    return true;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_reach_error_instrumenter() {
  return std::make_unique<ReachErrorInstrumenter>();
}

}  // namespace weft::instrument
