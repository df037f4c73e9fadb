// Plain (non-atomic) memory accesses become __weft_read/__weft_write calls, and memory intrinsics
// __weft_read_range/__weft_write_range calls, each immediately before the access.
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <array>
#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"
#include "shared_memory.hpp"

namespace weft::instrument {
namespace {

enum class AccessHook { kRead, kWrite, kReadRange, kWriteRange };

// An access to hook, found before any hook is inserted.
struct Access {
  llvm::Instruction* inst;
  llvm::Value* pointer;
  llvm::Value* size;  // bytes, of any integer type
  AccessHook hook;
};

class SharedAccessInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    hooks_ = {declare_hook(module, Hook::__weft_read), declare_hook(module, Hook::__weft_write),
              declare_hook(module, Hook::__weft_read_range),
              declare_hook(module, Hook::__weft_write_range)};
    bool changed = false;
    for (llvm::Function& function : module) {
      if (is_instrumentable(function)) changed |= instrument(function);
    }
    return changed;
  }

 private:
  bool instrument(llvm::Function& function) {
    const llvm::DataLayout& layout = function.getParent()->getDataLayout();
    SharedMemoryFilter filter;
    std::vector<Access> accesses;
    for (llvm::BasicBlock& block : function) {
      for (llvm::Instruction& inst : block) collect(inst, layout, filter, accesses);
    }
    llvm::IRBuilder<> builder(function.getContext());
    llvm::PointerType* pointer_type = hook_pointer_type(function.getContext());
    for (const Access& access : accesses) {
      position_before(builder, *access.inst);
      llvm::Value* pointer = builder.CreatePointerCast(access.pointer, pointer_type);
      llvm::Value* size = builder.CreateZExtOrTrunc(access.size, builder.getInt64Ty());
      builder.CreateCall(hooks_[static_cast<int>(access.hook)], {pointer, size});
    }
    return !accesses.empty();
  }

  static void collect(llvm::Instruction& inst, const llvm::DataLayout& layout,
                      SharedMemoryFilter& filter, std::vector<Access>& out) {
    auto add = [&](llvm::Value* pointer, llvm::Value* size, AccessHook hook) {
      // Hooks take pointers in the default address space, and only those can be shared memory of
      // a C/C++ program on the CPU.
      if (pointer->getType()->getPointerAddressSpace() != 0 || !filter.may_be_shared(pointer))
        return;
      out.push_back({&inst, pointer, size, hook});
    };
    auto add_plain = [&](llvm::Value* pointer, llvm::Type* type, AccessHook hook) {
      llvm::TypeSize size = layout.getTypeStoreSize(type);
      if (size.isScalable()) return;  // no fixed size to report
      add(pointer,
          llvm::ConstantInt::get(llvm::Type::getInt64Ty(inst.getContext()), size.getFixedValue()),
          hook);
    };
    // Atomic loads and stores are left to the atomic access instrumenter.
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
      if (!load->isAtomic())
        add_plain(load->getPointerOperand(), load->getType(), AccessHook::kRead);
    } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
      if (!store->isAtomic()) {
        add_plain(store->getPointerOperand(), store->getValueOperand()->getType(),
                  AccessHook::kWrite);
      }
    } else if (auto* transfer = llvm::dyn_cast<llvm::MemTransferInst>(&inst)) {
      add(transfer->getRawSource(), transfer->getLength(), AccessHook::kReadRange);
      add(transfer->getRawDest(), transfer->getLength(), AccessHook::kWriteRange);
    } else if (auto* set = llvm::dyn_cast<llvm::MemSetInst>(&inst)) {
      add(set->getRawDest(), set->getLength(), AccessHook::kWriteRange);
    }
  }

  std::array<llvm::FunctionCallee, 4> hooks_;  // indexed by Hook
};

}  // namespace

std::unique_ptr<Instrumenter> make_shared_access_instrumenter() {
  return std::make_unique<SharedAccessInstrumenter>();
}

}  // namespace weft::instrument
