// Busy-wait loops: loops an iteration of which may leave memory exactly as it found it, such as
// `while (flag == 0) {}`, `while (y != 0 && turn == 1);`, `while (test_and_set(&lock)) {}` or
// `for (;;) { elem = pop(); if (elem >= 0) break; }` where pop() finds the stack empty. An
// iteration that does not leave the loop and changes nothing (its writes store what was there,
// its locals end as they began) starts the next one in the same state, so the loop can only be
// left once another thread has written something it read. The runtime therefore stops a thread
// after such an iteration (spin-assume, as in GenMC, widened to iterations with no net effect;
// see Scheduler::stop_spinning and src/runtime/native/spin_loops.cpp) instead of letting it spin
// up to the step bound.
//
// The pass only marks loops where the runtime can check this. A loop qualifies if it is innermost
// (it is given a preheader if it has none), carries from one iteration to the next in registers
// only scalars (the phis of its header: at -O1 and above, a CAS loop's expected value; each back
// edge compares them with what they were, and an iteration that changed one starts the loop's
// tracking afresh instead of counting as one with no effect; a phi stepped by a constant on every
// iteration, a loop counter, makes the loop a computation), may read memory another thread writes
// (or writes nothing), and if nothing it runs has an effect the runtime cannot see: it may load,
// store (except to thread-local variables, whose stores are not hooked) and use atomics, and call
// only functions defined in the module that qualify in the same way, SV-COMP's atomic-section and
// assume functions, yields (sched_yield), x86 pause, and functions that do not return; an exception
// leaving a call (a landing pad, resume) ends the iteration. Each loop gets three hooks, with its
// number within its function: __weft_spin_enter(n) on entry (its preheader),
// __weft_spin_back_edge(n) on each back edge and __weft_spin_exit(n) on each exit edge; its stores
// to the function's own locals, which the access instrumenters leave alone, get
// __weft_spin_local_write(p, size). A callee's locals die when it returns, so a callee's stores to
// them need no hook. Runs before the access instrumenters, which then hook the loop's other loads
// and stores.
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <unordered_map>
#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "inline_asm.hpp"
#include "instrumenter.hpp"
#include "shared_memory.hpp"

namespace weft::instrument {
namespace {

bool stores_thread_local(const llvm::Value* pointer) {
  const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(llvm::getUnderlyingObject(pointer));
  return global != nullptr && global->isThreadLocal();
}

// Declared functions a busy-wait iteration may call: what they do, the runtime sees. A yield
// (sched_yield, which std::this_thread::yield and libstdc++'s own spins call) changes nothing.
bool is_known_declaration(llvm::StringRef name) {
  return name == "sched_yield" || name == "pthread_yield" || name == "thrd_yield" ||
         name == hook_name(Hook::__weft_atomic_begin) ||
         name == hook_name(Hook::__weft_atomic_end) ||
         name == hook_name(Hook::__weft_reach_error) || name == "__VERIFIER_atomic_begin" ||
         name == "__VERIFIER_atomic_end" || name == "__VERIFIER_assume";
}

// Which instructions a busy-wait iteration may run, and which functions it may call (memoised).
class IterationEffects {
 public:
  explicit IterationEffects(SharedMemoryFilter& filter) : filter_(filter) {}

  bool allowed(const llvm::Instruction& inst, bool in_loop) {
    if (llvm::isa<llvm::DbgInfoIntrinsic>(inst)) return true;
    if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
      return !stores_thread_local(store->getPointerOperand());
    // An atomic on the loop's own local would not be hooked as a local write: rare enough.
    if (const auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst))
      return !stores_thread_local(rmw->getPointerOperand()) &&
             (!in_loop || filter_.may_be_shared(rmw->getPointerOperand()));
    if (const auto* cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst))
      return !stores_thread_local(cas->getPointerOperand()) &&
             (!in_loop || filter_.may_be_shared(cas->getPointerOperand()));
    // A local allocated in each iteration is new memory each time; a callee's die with it.
    if (llvm::isa<llvm::AllocaInst>(inst)) return !in_loop;
    if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
      return allowed_call(*call, in_loop);
    if (llvm::isa<llvm::LoadInst>(inst) || llvm::isa<llvm::FenceInst>(inst) ||
        llvm::isa<llvm::PHINode>(inst))
      return true;
    // An exception leaving a call ends the iteration, as a call that does not return does: the
    // landing pads of a noexcept function's calls (which lead to std::terminate) and resuming
    // the unwinding change nothing the runtime would not see.
    if (llvm::isa<llvm::LandingPadInst>(inst) || llvm::isa<llvm::ResumeInst>(inst)) return true;
    return !inst.mayWriteToMemory() && !inst.isEHPad();
  }

 private:
  bool allowed_call(const llvm::CallBase& call, bool in_loop) {
    // Assembly whose memory operands are all it touches (its accesses are hooked as atomics),
    // or that names no memory (a barrier); not assembly that may act on memory unseen.
    if (call.isInlineAsm()) {
      const auto operands = asm_memory_operands(call);
      if (!operands) return false;
      for (const AsmMemoryOperand& operand : *operands)
        if (operand.writes && in_loop && !filter_.may_be_shared(operand.pointer)) return false;
      return true;
    }
    if (const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&call)) {
      switch (intrinsic->getIntrinsicID()) {
        case llvm::Intrinsic::lifetime_start:
        case llvm::Intrinsic::lifetime_end:
        case llvm::Intrinsic::assume:
        case llvm::Intrinsic::expect:
        case llvm::Intrinsic::memcpy:  // hooked as ranges, or a callee's dying locals
        case llvm::Intrinsic::memmove:
        case llvm::Intrinsic::memset:
          return !in_loop || writes_shared_memory(*llvm::cast<llvm::MemIntrinsic>(intrinsic));
        // `pause` (_mm_pause, __builtin_ia32_pause, libstdc++'s spins) touches no memory; it is
        // declared without readnone only so that it is not removed.
        case llvm::Intrinsic::x86_sse2_pause:
          return true;
        default:
          // One that does not return (llvm.trap: __builtin_trap) ends the iteration, as a call.
          return intrinsic->doesNotReturn() || !intrinsic->mayWriteToMemory();
      }
    }
    const llvm::Function* callee = call.getCalledFunction();
    if (callee == nullptr) return false;  // an indirect call could go anywhere
    // It never comes back to the back edge: whatever it does ends the iteration.
    if (callee->doesNotReturn()) return true;
    if (callee->isDeclaration()) return is_known_declaration(callee->getName());
    if (!is_instrumentable(*callee)) return false;
    // A function being decided counts as not allowed: recursion is rejected (it is rare in
    // busy-waits), and nothing decided meanwhile rests on a guess.
    auto [it, inserted] = functions_.try_emplace(callee, false);
    if (!inserted) return it->second;
    bool ok = true;
    for (const llvm::BasicBlock& block : *callee)
      for (const llvm::Instruction& inst : block) ok = ok && allowed(inst, false);
    functions_[callee] = ok;  // `it` may have moved
    return ok;
  }

  bool writes_shared_memory(const llvm::MemIntrinsic& intrinsic) {
    return filter_.may_be_shared(intrinsic.getRawDest());
  }

  SharedMemoryFilter& filter_;
  std::unordered_map<const llvm::Function*, bool> functions_;
};

// Whether the loop is worth the hooks: if it may read what another thread writes (calls are
// assumed to), or if it writes nothing at all (such as `for (;;) {}`: stopped, it is reported as
// the livelock it is). A loop that only works on locals is a computation that hooks would slow.
bool worth_tracking(const llvm::Loop& loop, SharedMemoryFilter& filter) {
  bool writes = false;
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block) {
      writes = writes || llvm::isa<llvm::StoreInst>(inst);
      if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst))
        if (filter.may_be_shared(load->getPointerOperand())) return true;
      if (llvm::isa<llvm::AtomicRMWInst>(inst) || llvm::isa<llvm::AtomicCmpXchgInst>(inst))
        return true;
      if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
        const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(call);
        if (intrinsic == nullptr || intrinsic->mayReadFromMemory()) return true;
      }
    }
  return !writes;
}

// Whether `store` adds a nonzero constant to what its own local held: `x = x + c`, `x = x - c`
// or `p = p + c` on a pointer, loaded from the same address earlier in the same block with
// nothing in between that could write it.
bool steps_a_local(const llvm::StoreInst& store, const llvm::DataLayout& layout,
                   SharedMemoryFilter& filter) {
  const llvm::Value* pointer = store.getPointerOperand();
  if (store.isVolatile() || !llvm::isa<llvm::AllocaInst>(pointer->stripPointerCasts()) ||
      filter.may_be_shared(pointer))
    return false;
  const llvm::Value* base = nullptr;
  const llvm::Value* value = store.getValueOperand();
  if (const auto* op = llvm::dyn_cast<llvm::BinaryOperator>(value)) {
    const auto* step = llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1));
    if ((op->getOpcode() == llvm::Instruction::Add || op->getOpcode() == llvm::Instruction::Sub) &&
        step != nullptr && !step->isZero())
      base = op->getOperand(0);
  } else if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(value)) {
    llvm::APInt offset(layout.getIndexTypeSizeInBits(gep->getType()), 0);
    if (gep->accumulateConstantOffset(layout, offset) && !offset.isZero())
      base = gep->getPointerOperand();
  }
  const auto* load = llvm::dyn_cast_or_null<llvm::LoadInst>(base);
  if (load == nullptr || load->isVolatile() || load->getPointerOperand() != pointer ||
      load->getParent() != store.getParent())
    return false;
  for (const llvm::Instruction* inst = load->getNextNode(); inst != &store;
       inst = inst->getNextNode())
    if (inst == nullptr || inst->mayWriteToMemory()) return false;
  return true;
}

// A loop that steps a local of its function on every iteration (`i++` at -O0, where locals live
// in memory) changes that local in every iteration, so none can leave memory as it found it: it
// is a computation, never a busy-wait, and its hooks would only slow it down.
bool steps_a_local_every_iteration(const llvm::Loop& loop, const llvm::DominatorTree& dominators,
                                   const llvm::DataLayout& layout, SharedMemoryFilter& filter) {
  llvm::SmallVector<llvm::BasicBlock*, 4> latches;
  loop.getLoopLatches(latches);
  for (const llvm::BasicBlock* block : loop.blocks()) {
    bool every_iteration = true;
    for (const llvm::BasicBlock* latch : latches)
      every_iteration = every_iteration && dominators.dominates(block, latch);
    if (!every_iteration) continue;
    for (const llvm::Instruction& inst : *block)
      if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        if (steps_a_local(*store, layout, filter)) return true;
  }
  return false;
}

// Whether `value` is `phi` stepped by a nonzero constant: `phi + c`, `phi - c`, or a pointer
// moved by a constant offset.
bool steps(const llvm::Value* value, const llvm::PHINode& phi, const llvm::DataLayout& layout) {
  if (const auto* op = llvm::dyn_cast<llvm::BinaryOperator>(value)) {
    const auto* step = llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1));
    return (op->getOpcode() == llvm::Instruction::Add ||
            op->getOpcode() == llvm::Instruction::Sub) &&
           op->getOperand(0) == &phi && step != nullptr && !step->isZero();
  }
  if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(value)) {
    llvm::APInt offset(layout.getIndexTypeSizeInBits(gep->getType()), 0);
    return gep->getPointerOperand() == &phi && gep->accumulateConstantOffset(layout, offset) &&
           !offset.isZero();
  }
  return false;
}

// Whether the values the loop's header carries between iterations can be compared at its back
// edges (scalars), and none is a counter stepped on every back edge.
bool carries_comparable_values(const llvm::Loop& loop, const llvm::DataLayout& layout) {
  llvm::SmallVector<llvm::BasicBlock*, 4> latches;
  loop.getLoopLatches(latches);
  for (const llvm::PHINode& phi : loop.getHeader()->phis()) {
    const llvm::Type* type = phi.getType();
    if (!type->isIntegerTy() && !type->isPointerTy() && !type->isFloatingPointTy()) return false;
    bool stepped = !latches.empty();
    for (const llvm::BasicBlock* latch : latches)
      stepped = stepped && steps(phi.getIncomingValueForBlock(latch), phi, layout);
    if (stepped) return false;
  }
  return true;
}

bool is_busy_wait(const llvm::Loop& loop, IterationEffects& effects, SharedMemoryFilter& filter,
                  const llvm::DominatorTree& dominators, const llvm::DataLayout& layout) {
  if (!loop.getSubLoops().empty()) return false;
  if (!carries_comparable_values(loop, layout)) return false;
  llvm::SmallVector<llvm::BasicBlock*, 4> exiting;
  loop.getExitingBlocks(exiting);
  for (const llvm::BasicBlock* block : exiting)  // exit edges are split for their hook
    if (llvm::isa<llvm::IndirectBrInst>(block->getTerminator()) ||
        llvm::isa<llvm::CallBrInst>(block->getTerminator()))
      return false;
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block)
      if (!effects.allowed(inst, true)) return false;
  return worth_tracking(loop, filter) &&
         !steps_a_local_every_iteration(loop, dominators, layout, filter);
}

class SpinLoopInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    SharedMemoryFilter filter;
    IterationEffects effects(filter);
    bool changed = false;
    for (llvm::Function& function : module) {
      if (function.isDeclaration() || !is_instrumentable(function)) continue;
      changed |= instrument(module, function, effects, filter);
    }
    return changed;
  }

 private:
  struct Edge {
    llvm::BasicBlock* from;
    llvm::BasicBlock* to;
  };

  // On the back edge `block` (which calls the back-edge hook): if a value the header carries
  // into the next iteration differs from the one this iteration began with, the iteration
  // changed something the runtime does not see in memory, so instead of the back-edge hook the
  // loop's tracking restarts (exit, enter) and the next iteration is judged on its own.
  static void restart_if_carried_values_changed(llvm::IRBuilder<>& builder,
                                                llvm::BasicBlock& header, llvm::BasicBlock& block,
                                                const llvm::FunctionCallee& enter,
                                                const llvm::FunctionCallee& exit, llvm::Value* id) {
    if (header.phis().empty()) return;
    llvm::CallInst* hook = llvm::cast<llvm::CallInst>(block.getTerminator()->getPrevNode());
    builder.SetInsertPoint(hook);
    llvm::Value* changed = builder.getFalse();
    const llvm::DataLayout& layout = header.getModule()->getDataLayout();
    for (llvm::PHINode& phi : header.phis()) {
      llvm::Value* before = &phi;
      llvm::Value* after = phi.getIncomingValueForBlock(&block);
      if (phi.getType()->isFloatingPointTy()) {  // bit for bit: NaN equals itself
        llvm::Type* bits = builder.getIntNTy(layout.getTypeSizeInBits(phi.getType()));
        before = builder.CreateBitCast(before, bits);
        after = builder.CreateBitCast(after, bits);
      }
      changed = builder.CreateOr(changed, builder.CreateICmpNE(before, after));
    }
    llvm::Instruction* then_term = nullptr;
    llvm::Instruction* else_term = nullptr;
    llvm::SplitBlockAndInsertIfThenElse(changed, hook, &then_term, &else_term);
    builder.SetInsertPoint(then_term);
    builder.SetCurrentDebugLocation(hook->getDebugLoc());
    builder.CreateCall(exit, {id});
    builder.CreateCall(enter, {id});
    hook->moveBefore(else_term);
  }

  static bool instrument(llvm::Module& module, llvm::Function& function, IterationEffects& effects,
                         SharedMemoryFilter& filter) {
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    std::vector<llvm::Loop*> found;
    for (llvm::Loop* loop : loops.getLoopsInPreorder())
      if (is_busy_wait(*loop, effects, filter, dominators, module.getDataLayout()))
        found.push_back(loop);
    // The entry hook goes in the loop's preheader; at -O2 the CFG simplification at the end of
    // the pipeline often folds it into the block before (a branch that also skips the loop).
    std::erase_if(found, [&](llvm::Loop* loop) {
      return loop->getLoopPreheader() == nullptr &&
             llvm::InsertPreheaderForLoop(loop, &dominators, &loops, nullptr, false) == nullptr;
    });
    if (found.empty()) return false;
    const llvm::FunctionCallee enter = declare_hook(module, Hook::__weft_spin_enter);
    const llvm::FunctionCallee back_edge = declare_hook(module, Hook::__weft_spin_back_edge);
    const llvm::FunctionCallee exit = declare_hook(module, Hook::__weft_spin_exit);
    const llvm::FunctionCallee local_write = declare_hook(module, Hook::__weft_spin_local_write);
    const llvm::DataLayout& layout = module.getDataLayout();
    llvm::IRBuilder<> builder(module.getContext());
    std::uint32_t number = 0;
    for (llvm::Loop* loop : found) {
      llvm::Value* id = builder.getInt32(number++);
      llvm::BasicBlock* header = loop->getHeader();
      const llvm::DebugLoc where = location_of(*header->getFirstNonPHI());
      // Every edge is found before any is split: splitting changes the loop's blocks.
      std::vector<Edge> back_edges;
      std::vector<Edge> exits;
      llvm::SmallVector<llvm::BasicBlock*, 4> latches;
      loop->getLoopLatches(latches);
      for (llvm::BasicBlock* latch : latches) back_edges.push_back({latch, header});
      llvm::SmallVector<std::pair<llvm::BasicBlock*, llvm::BasicBlock*>, 4> exit_edges;
      loop->getExitEdges(exit_edges);
      for (auto [from, to] : exit_edges)
        exits.push_back({const_cast<llvm::BasicBlock*>(from), const_cast<llvm::BasicBlock*>(to)});
      std::vector<llvm::StoreInst*> local_stores;
      for (llvm::BasicBlock* block : loop->blocks())
        for (llvm::Instruction& inst : *block)
          if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
            if (!filter.may_be_shared(store->getPointerOperand())) local_stores.push_back(store);

      position_before(builder, *loop->getLoopPreheader()->getTerminator());
      builder.SetCurrentDebugLocation(where);
      builder.CreateCall(enter, {id});
      // A block of its own on each edge: the latch may also be where the loop is left.
      const auto on_edge = [&](const Edge& edge, const llvm::FunctionCallee& hook) {
        llvm::BasicBlock* block = llvm::SplitEdge(edge.from, edge.to);
        position_before(builder, *block->getTerminator());
        builder.SetCurrentDebugLocation(where);
        builder.CreateCall(hook, {id});
        return block;
      };
      for (const Edge& edge : back_edges) {
        llvm::BasicBlock* block = on_edge(edge, back_edge);
        restart_if_carried_values_changed(builder, *header, *block, enter, exit, id);
      }
      for (const Edge& edge : exits) on_edge(edge, exit);
      for (llvm::StoreInst* store : local_stores) {
        position_before(builder, *store);
        const llvm::TypeSize size = layout.getTypeStoreSize(store->getValueOperand()->getType());
        builder.CreateCall(local_write,
                           {builder.CreatePointerCast(store->getPointerOperand(),
                                                      hook_pointer_type(module.getContext())),
                            builder.getInt64(size.isScalable() ? ~0ULL : size.getFixedValue())});
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
