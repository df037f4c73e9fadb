// Atomic instructions become __weft_atomic(addr, size, kind, ordering) calls immediately before
// them. They are visible operations whether or not the memory looks shared, so nothing is filtered.
// Every one of up to 8 bytes but a fence is also followed by __weft_atomic_after(), where the
// runtime undoes what it set up for the instruction (x86-TSO's store buffers, the store an RC11
// load reads: memory_hooks.cpp); a compare-exchange's expected value goes first, through
// __weft_atomic_expect, since under RC11 it decides which stores the instruction may read.
//
// An atomic of a library's internals (code from a system header other than the atomics' own:
// libstdc++'s waits, latches, semaphores, shared_ptr's counts) is marked WEFT_ATOMIC_IN_LIBRARY,
// whether its instruction comes from such a header or was inlined from one (libstdc++ inlines
// most of <atomic>'s functions always, at -O0 too, so that the instruction's inlining chain names
// the library's function that used them); a call from such code into <atomic>'s functions that
// is not inlined (std::barrier's into __atomic_ref's) is bracketed by __weft_library_atomics.
// Their orders are the library's contract with the processor, not the program's: libstdc++'s notify
// reads the waiter count with a seq_cst load after a release read-modify-write of the value,
// which every processor orders and RC11 does not, so that RC11 loses the wake-up of a correct
// std::latch.
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/Path.h>

#include <optional>
#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"

namespace weft::instrument {
namespace {

struct AtomicAccess {
  llvm::Instruction* inst;
  llvm::Value* pointer;  // null for a fence
  llvm::Type* type;      // the accessed type; null for a fence
  weft_atomic_kind kind;
  llvm::AtomicOrdering ordering;  // for cmpxchg, the success ordering
};

// A compare-exchange's expected value as the 64-bit integer __weft_atomic_expect takes (null if
// it is wider).
llvm::Value* expected_as_integer(llvm::IRBuilder<>& builder, llvm::AtomicCmpXchgInst& cmpxchg,
                                 const llvm::DataLayout& layout) {
  llvm::Value* expected = cmpxchg.getCompareOperand();
  llvm::Type* type = expected->getType();
  if (layout.getTypeStoreSize(type).getFixedValue() > 8) return nullptr;
  if (type->isPointerTy()) return builder.CreatePtrToInt(expected, builder.getInt64Ty());
  if (!type->isIntegerTy()) return nullptr;
  return builder.CreateZExtOrTrunc(expected, builder.getInt64Ty());
}

// The compiler's test of a function-local static's guard (a global named _ZGV...): its acquire
// pairs with the release the runtime models (cxx_guards.cpp), which is right under any memory
// model, so the runtime is told it is sequentially consistent and the verdict does not name it
// among the program's weak atomics.
bool is_static_guard(const llvm::Value* pointer) {
  const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(pointer->stripPointerCasts());
  return global != nullptr && global->getName().startswith("_ZGV");
}

// A header of the system's (the C library's, libstdc++'s, the compiler's) by its path.
bool is_system_header(llvm::StringRef path) {
  return path.startswith("/usr/include/") || path.startswith("/usr/lib/");
}
// The headers that declare the atomics a program uses with orders of its own.
bool is_atomics_interface(llvm::StringRef path) {
  return path.endswith("/atomic") || path.endswith("/bits/atomic_base.h") ||
         path.endswith("/stdatomic.h");
}
// The file's path with its `..` taken out (clang names libstdc++'s headers
// /usr/bin/../lib/gcc/.../include/c++/12/latch).
std::string path_of(const llvm::DIFile* file) {
  if (!file) return "";
  llvm::SmallString<256> path(file->getFilename());
  if (!llvm::sys::path::is_absolute(path) && !file->getDirectory().empty()) {
    path = file->getDirectory();
    llvm::sys::path::append(path, file->getFilename());
  }
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  return std::string(path.str());
}
bool is_library_internals(const llvm::DIFile* file) {
  const std::string path = path_of(file);
  return is_system_header(path) && !is_atomics_interface(path);
}
// Whether `inst` is, or was inlined from, a library's internals.
bool in_library_internals(const llvm::Instruction& inst) {
  for (const llvm::DILocation* at = inst.getDebugLoc().get(); at; at = at->getInlinedAt())
    if (is_library_internals(at->getFile())) return true;
  return false;
}

std::optional<AtomicAccess> as_atomic_access(llvm::Instruction& inst) {
  if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
    if (!load->isAtomic()) return std::nullopt;
    return AtomicAccess{load, load->getPointerOperand(), load->getType(), WEFT_ATOMIC_LOAD,
                        is_static_guard(load->getPointerOperand())
                            ? llvm::AtomicOrdering::SequentiallyConsistent
                            : load->getOrdering()};
  }
  if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
    if (!store->isAtomic()) return std::nullopt;
    return AtomicAccess{store, store->getPointerOperand(), store->getValueOperand()->getType(),
                        WEFT_ATOMIC_STORE, store->getOrdering()};
  }
  if (auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) {
    return AtomicAccess{rmw, rmw->getPointerOperand(), rmw->getValOperand()->getType(),
                        WEFT_ATOMIC_RMW, rmw->getOrdering()};
  }
  if (auto* cmpxchg = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) {
    return AtomicAccess{cmpxchg, cmpxchg->getPointerOperand(),
                        cmpxchg->getCompareOperand()->getType(), WEFT_ATOMIC_CMPXCHG,
                        cmpxchg->getSuccessOrdering()};
  }
  if (auto* fence = llvm::dyn_cast<llvm::FenceInst>(&inst)) {
    return AtomicAccess{fence, nullptr, nullptr, WEFT_ATOMIC_FENCE, fence->getOrdering()};
  }
  return std::nullopt;
}

class AtomicAccessInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    hook_ = declare_hook(module, Hook::__weft_atomic);
    after_ = declare_hook(module, Hook::__weft_atomic_after);
    expect_ = declare_hook(module, Hook::__weft_atomic_expect);
    library_ = declare_hook(module, Hook::__weft_library_atomics);
    bool changed = false;
    for (llvm::Function& function : module) {
      if (!is_instrumentable(function)) continue;
      changed |= bracket_library_calls(function);
      changed |= instrument(function);
    }
    return changed;
  }

 private:
  // A library's function calling <atomic>'s that are not inlined: the calls bracketed by
  // __weft_library_atomics (see the file comment).
  bool bracket_library_calls(llvm::Function& function) {
    const llvm::DISubprogram* sub = function.getSubprogram();
    if (!sub || !is_library_internals(sub->getFile())) return false;
    std::vector<llvm::CallInst*> calls;
    for (llvm::BasicBlock& block : function)
      for (llvm::Instruction& inst : block)
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (const llvm::Function* callee = call->getCalledFunction())
            if (const llvm::DISubprogram* called = callee->getSubprogram())
              if (is_atomics_interface(path_of(called->getFile()))) calls.push_back(call);
    llvm::IRBuilder<> builder(function.getContext());
    for (llvm::CallInst* call : calls) {
      position_before(builder, *call);
      builder.CreateCall(library_, {builder.getInt32(1)});
      builder.SetInsertPoint(call->getNextNode());
      builder.CreateCall(library_, {builder.getInt32(0)});
    }
    return !calls.empty();
  }

  bool instrument(llvm::Function& function) {
    std::vector<AtomicAccess> accesses;
    for (llvm::BasicBlock& block : function) {
      for (llvm::Instruction& inst : block) {
        std::optional<AtomicAccess> access = as_atomic_access(inst);
        // Hooks take pointers in the default address space only.
        if (access &&
            (!access->pointer || access->pointer->getType()->getPointerAddressSpace() == 0)) {
          accesses.push_back(*access);
        }
      }
    }
    const llvm::DataLayout& layout = function.getParent()->getDataLayout();
    llvm::PointerType* pointer_type = hook_pointer_type(function.getContext());
    llvm::IRBuilder<> builder(function.getContext());
    for (const AtomicAccess& access : accesses) {
      position_before(builder, *access.inst);
      llvm::Value* pointer = access.pointer
                                 ? builder.CreatePointerCast(access.pointer, pointer_type)
                                 : llvm::ConstantPointerNull::get(pointer_type);
      std::uint64_t size = access.type ? layout.getTypeStoreSize(access.type).getFixedValue() : 0;
      if (auto* cmpxchg = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(access.inst)) {
        if (llvm::Value* expected = expected_as_integer(builder, *cmpxchg, layout))
          builder.CreateCall(expect_, {expected, builder.getInt32(static_cast<std::uint32_t>(
                                                     cmpxchg->getFailureOrdering()))});
      }
      const std::uint32_t kind = static_cast<std::uint32_t>(access.kind) |
                                 (in_library_internals(*access.inst) ? WEFT_ATOMIC_IN_LIBRARY : 0);
      builder.CreateCall(hook_, {pointer, builder.getInt64(size), builder.getInt32(kind),
                                 builder.getInt32(static_cast<std::uint32_t>(access.ordering))});
      if (access.kind != WEFT_ATOMIC_FENCE && size <= 8) {
        builder.SetInsertPoint(access.inst->getNextNode());
        builder.CreateCall(after_);
      }
    }
    return !accesses.empty();
  }

  llvm::FunctionCallee hook_;
  llvm::FunctionCallee after_;
  llvm::FunctionCallee expect_;
  llvm::FunctionCallee library_;
};

}  // namespace

std::unique_ptr<Instrumenter> make_atomic_access_instrumenter() {
  return std::make_unique<AtomicAccessInstrumenter>();
}

}  // namespace weft::instrument
