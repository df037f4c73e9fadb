// Function-local statics: the program's calls to the C++ ABI's guard functions
// (__cxa_guard_acquire/release/abort, which clang emits around a static's first construction) go
// to the runtime's model of them instead (src/runtime/native/cxx_guards.cpp). libstdc++
// implements them with atomics and a futex inside its shared library, which weft does not see: the
// store that publishes a constructed static would be missing, and the other thread's reads of it
// would look like a data race. Only the program's calls are redirected: weft's own statics keep
// the library's guards.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <array>
#include <utility>
#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

class CxxGuardRedirector final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    static constexpr std::array<std::pair<llvm::StringLiteral, Hook>, 3> kGuards{{
        {"__cxa_guard_acquire", Hook::__weft_guard_acquire},
        {"__cxa_guard_release", Hook::__weft_guard_release},
        {"__cxa_guard_abort", Hook::__weft_guard_abort},
    }};
    bool changed = false;
    for (const auto& [name, hook] : kGuards) {
      llvm::Function* library = module.getFunction(name);
      if (library == nullptr) continue;
      std::vector<llvm::CallBase*> calls;
      for (llvm::User* user : library->users())
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(user);
            call != nullptr && call->getCalledOperand() == library &&
            is_instrumentable(*call->getFunction()) && call->arg_size() == 1)
          calls.push_back(call);
      for (llvm::CallBase* call : calls) {
        const llvm::FunctionCallee model = declare_hook(module, hook);
        llvm::IRBuilder<> builder(call);
        llvm::Value* guard = builder.CreatePointerCast(call->getArgOperand(0),
                                                       hook_pointer_type(module.getContext()));
        call->setCalledFunction(model);
        call->setArgOperand(0, guard);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_cxx_guard_redirector() {
  return std::make_unique<CxxGuardRedirector>();
}

}  // namespace weft::instrument
