// The runtime defines the process's main; it sets itself up and then calls the program's main,
// renamed to __weft_main, as __weft_main(argc, argv, envp). In the C calling convention extra
// arguments are harmless, so mains with 0, 2 or 3 parameters all work.
#include "hook_calls.hpp"
#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

class MainRenamer final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    llvm::Function* main = module.getFunction("main");
    if (main == nullptr || main->isDeclaration()) return false;
    if (module.getNamedValue(kProgramMainName) != nullptr) {
      module.getContext().emitError(llvm::Twine("weft: the program defines both main and ") +
                                    kProgramMainName);
      return false;
    }
    // Its debug info still names it main (llvm-symbolizer --functions=short shows that name).
    main->setName(kProgramMainName);
    return true;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_main_renamer() {
  return std::make_unique<MainRenamer>();
}

}  // namespace weft::instrument
