// Busy-wait loops, such as `while (flag == 0) {}` or `while (y != 0 && turn == 1);`: loops whose
// only effect is to read memory. An iteration that does not leave such a loop starts the next
// one in exactly the same state, so it can only leave once another thread has written something
// it read. The runtime therefore stops a thread that goes around once (spin-assume, as in GenMC;
// see Scheduler::stop_spinning) instead of letting it spin up to the step bound.
//
// The loop is marked by two hooks: __weft_spin_enter() on entry (its preheader) and
// __weft_spin_back_edge() on each back edge. A loop qualifies if it is innermost, has a preheader,
// carries no value from one iteration to the next (no phi in its header), and its instructions
// read but never write: no stores, atomic read-modify-writes, calls (other than debug
// intrinsics) or anything else with side effects. Runs before the access instrumenters, which
// then hook the loop's loads.
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"
#include "runtime_abi.hpp"

namespace weft::instrument {
namespace {

bool only_reads(const llvm::Instruction& inst) {
  if (llvm::isa<llvm::DbgInfoIntrinsic>(inst)) return true;
  if (llvm::isa<llvm::PHINode>(inst)) return true;  // within an iteration (header ones excluded)
  if (llvm::isa<llvm::LoadInst>(inst)) return true;
  if (llvm::isa<llvm::CallBase>(inst) || llvm::isa<llvm::AllocaInst>(inst)) return false;
  return !inst.mayWriteToMemory() && !inst.mayThrow() && !inst.isEHPad();
}

bool is_busy_wait(const llvm::Loop& loop) {
  if (!loop.getSubLoops().empty() || loop.getLoopPreheader() == nullptr) return false;
  if (llvm::isa<llvm::PHINode>(loop.getHeader()->front())) return false;
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block)
      if (!only_reads(inst)) return false;
  return true;
}

class SpinLoopInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    bool changed = false;
    for (llvm::Function& function : module) {
      if (function.isDeclaration() || !is_instrumentable(function)) continue;
      changed |= instrument(module, function);
    }
    return changed;
  }

 private:
  static bool instrument(llvm::Module& module, llvm::Function& function) {
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    std::vector<llvm::Loop*> found;
    for (llvm::Loop* loop : loops.getLoopsInPreorder())
      if (is_busy_wait(*loop)) found.push_back(loop);
    if (found.empty()) return false;
    const llvm::FunctionCallee enter = declare_hook(module, kSpinEnterHook);
    const llvm::FunctionCallee back_edge = declare_hook(module, kSpinBackEdgeHook);
    llvm::IRBuilder<> builder(module.getContext());
    for (llvm::Loop* loop : found) {
      llvm::BasicBlock* header = loop->getHeader();
      position_before(builder, *loop->getLoopPreheader()->getTerminator());
      builder.SetCurrentDebugLocation(location_of(*header->getFirstNonPHI()));
      builder.CreateCall(enter);
      llvm::SmallVector<llvm::BasicBlock*, 4> latches;
      loop->getLoopLatches(latches);
      for (llvm::BasicBlock* latch : latches) {
        // A block of its own on the back edge: the latch may also be where the loop is left.
        llvm::BasicBlock* edge = llvm::SplitEdge(latch, header);
        position_before(builder, *edge->getTerminator());
        builder.SetCurrentDebugLocation(location_of(*header->getFirstNonPHI()));
        builder.CreateCall(back_edge);
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_spin_loop_instrumenter() {
  return std::make_unique<SpinLoopInstrumenter>();
}

}  // namespace weft::instrument
