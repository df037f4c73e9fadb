// Shadow expressions, compiled in (SymCC's approach, not an interpreter): beside every integer
// value of at most 64 bits the instrumented code keeps an i32, the id of its expression in terms
// of the program's inputs (0: concrete). Operations call the runtime to build expressions only
// when an operand has one; a branch, switch or select on a condition with one records a path
// constraint (thesis §2.2, §2.4). Memory keeps expressions per byte in the runtime: loads ask for
// them only once some byte is symbolic (a global flag). Calls pass argument and result
// expressions through globals (hooks.h). What cannot stay symbolic (a pointer, a float, a value
// handed to code weft did not compile) is made concrete with a recorded constraint.
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "function_filter.hpp"
#include "hook_calls.hpp"
#include "instrumenter.hpp"
#include "library_calls.hpp"
#include "weft/symbolic/expression.hpp"

namespace weft::instrument {
namespace {

using symbolic::ExprKind;

#define WEFT_GLOBAL_NAME(identifier) WEFT_SPELLING_OF(identifier)

bool has_shadow(const llvm::Type* type) {
  return type->isIntegerTy() && type->getIntegerBitWidth() <= 64;
}

std::optional<ExprKind> kind_of(unsigned opcode) {
  switch (opcode) {
    case llvm::Instruction::Add:
      return ExprKind::kAdd;
    case llvm::Instruction::Sub:
      return ExprKind::kSub;
    case llvm::Instruction::Mul:
      return ExprKind::kMul;
    case llvm::Instruction::UDiv:
      return ExprKind::kUDiv;
    case llvm::Instruction::SDiv:
      return ExprKind::kSDiv;
    case llvm::Instruction::URem:
      return ExprKind::kURem;
    case llvm::Instruction::SRem:
      return ExprKind::kSRem;
    case llvm::Instruction::And:
      return ExprKind::kAnd;
    case llvm::Instruction::Or:
      return ExprKind::kOr;
    case llvm::Instruction::Xor:
      return ExprKind::kXor;
    case llvm::Instruction::Shl:
      return ExprKind::kShl;
    case llvm::Instruction::LShr:
      return ExprKind::kLShr;
    case llvm::Instruction::AShr:
      return ExprKind::kAShr;
    default:
      return std::nullopt;
  }
}

class FunctionShadows {
 public:
  FunctionShadows(llvm::Function& function, llvm::Module& module)
      : function_(function),
        module_(module),
        context_(module.getContext()),
        i8_(llvm::Type::getInt8Ty(context_)),
        i32_(llvm::Type::getInt32Ty(context_)),
        i64_(llvm::Type::getInt64Ty(context_)),
        pointer_(hook_pointer_type(context_)),
        zero_(llvm::ConstantInt::get(i32_, 0)) {
    memory_flag_ = module.getOrInsertGlobal(WEFT_GLOBAL_NAME(WEFT_SYM_MEMORY), i8_);
    arguments_ = module.getOrInsertGlobal(WEFT_GLOBAL_NAME(WEFT_SYM_ARGUMENTS),
                                          llvm::ArrayType::get(i32_, WEFT_SYM_MAX_ARGUMENTS));
    arguments_for_ = module.getOrInsertGlobal(WEFT_GLOBAL_NAME(WEFT_SYM_ARGUMENTS_FOR), pointer_);
    return_ = module.getOrInsertGlobal(WEFT_GLOBAL_NAME(WEFT_SYM_RETURN), i32_);
    return_for_ = module.getOrInsertGlobal(WEFT_GLOBAL_NAME(WEFT_SYM_RETURN_FOR), pointer_);
  }

  bool run() {
    // Reverse post-order: every definition before its uses, but phis' back-edge operands; the
    // instructions are collected first, since guarding hook calls splits blocks.
    std::vector<llvm::Instruction*> order;
    llvm::ReversePostOrderTraversal<llvm::Function*> rpo(&function_);
    for (llvm::BasicBlock* block : rpo)
      for (llvm::Instruction& inst : *block) order.push_back(&inst);
    take_arguments();
    for (llvm::Instruction* inst : order) visit(*inst);
    for (auto& [phi, shadow] : phis_)
      for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i)
        shadow->addIncoming(shadow_of(phi->getIncomingValue(i)), shadow_block(phi, i));
    return changed_;
  }

 private:
  // The block a phi's shadow takes incoming value i from: the phi's own, which splitting a
  // predecessor for a guarded hook call kept up to date.
  static llvm::BasicBlock* shadow_block(llvm::PHINode* phi, unsigned i) {
    return phi->getIncomingBlock(i);
  }

  llvm::Value* shadow_of(llvm::Value* v) {
    if (!has_shadow(v->getType())) return zero_;
    auto it = shadows_.find(v);
    return it != shadows_.end() ? it->second : zero_;
  }
  static bool is_hook_call(llvm::Instruction* inst, Hook hook) {
    auto* call = llvm::dyn_cast_or_null<llvm::CallInst>(inst);
    return call && call->getCalledFunction() &&
           call->getCalledFunction()->getName() == hook_name(hook);
  }
  static bool is_concrete(llvm::Value* shadow) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(shadow);
    return c && c->isZero();
  }
  // Whether some byte of memory holds part of a symbolic value (a load of the runtime's flag).
  llvm::Value* symbolic_memory(llvm::IRBuilder<>& b) {
    return b.CreateICmpNE(b.CreateLoad(i8_, memory_flag_), b.getInt8(0));
  }
  llvm::Value* zext64(llvm::IRBuilder<>& b, llvm::Value* v) {
    return v->getType() == i64_ ? v : b.CreateZExt(v, i64_);
  }

  // Inserts, before `before`, `if (condition) { result = make(builder) }` and returns the phi of
  // the result (0 on the other path), or nullptr for a void call.
  llvm::Value* guarded(llvm::Instruction* before, llvm::Value* condition,
                       const std::function<llvm::Value*(llvm::IRBuilder<>&)>& make) {
    changed_ = true;
    llvm::BasicBlock* head = before->getParent();
    llvm::Instruction* then = llvm::SplitBlockAndInsertIfThen(condition, before, false);
    llvm::IRBuilder<> b(then);
    b.SetCurrentDebugLocation(location_of(*before));
    llvm::Value* result = make(b);
    if (!result || result->getType()->isVoidTy()) return nullptr;
    llvm::IRBuilder<> after(&*before->getParent()->begin());
    llvm::PHINode* phi = after.CreatePHI(result->getType(), 2);
    phi->addIncoming(result, then->getParent());
    phi->addIncoming(llvm::Constant::getNullValue(result->getType()), head);
    return phi;
  }

  llvm::Value* any_symbolic(llvm::IRBuilder<>& b, std::initializer_list<llvm::Value*> shadows) {
    llvm::Value* any = nullptr;
    for (llvm::Value* s : shadows) {
      if (is_concrete(s)) continue;
      llvm::Value* nonzero = b.CreateICmpNE(s, zero_);
      any = any ? b.CreateOr(any, nonzero) : nonzero;
    }
    return any;
  }

  // The instruction after `inst` where code about its result goes (after the phis of a phi).
  static llvm::Instruction* after(llvm::Instruction& inst) {
    if (llvm::isa<llvm::PHINode>(inst)) return inst.getParent()->getFirstNonPHI();
    return inst.getNextNode();
  }

  void concretize(llvm::Instruction& at, llvm::Value* value) {
    llvm::Value* shadow = shadow_of(value);
    if (is_concrete(shadow)) return;
    llvm::IRBuilder<> b(&at);
    llvm::Value* condition = b.CreateICmpNE(shadow, zero_);
    guarded(&at, condition, [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(declare_hook(module_, Hook::__weft_sym_concretize),
                          {shadow, zext64(g, value)});
    });
  }
  void concretize_operands(llvm::Instruction& inst) {
    for (llvm::Value* operand : inst.operand_values()) concretize(inst, operand);
  }

  void take_arguments() {
    if (function_.arg_empty()) return;
    bool any = false;
    for (llvm::Argument& a : function_.args()) any |= has_shadow(a.getType());
    if (!any) return;
    changed_ = true;
    // After an atomic section's begin, which must stay the body's first instruction.
    llvm::Instruction* first = &*function_.getEntryBlock().getFirstInsertionPt();
    if (is_hook_call(first, Hook::__weft_atomic_begin)) first = first->getNextNode();
    llvm::IRBuilder<> b(first);
    llvm::Value* mine = b.CreateICmpEQ(b.CreateLoad(pointer_, arguments_for_),
                                       b.CreatePointerCast(&function_, pointer_));
    for (llvm::Argument& a : function_.args()) {
      if (!has_shadow(a.getType()) || a.getArgNo() >= WEFT_SYM_MAX_ARGUMENTS) continue;
      llvm::Value* slot = b.CreateConstInBoundsGEP2_32(
          llvm::ArrayType::get(i32_, WEFT_SYM_MAX_ARGUMENTS), arguments_, 0, a.getArgNo());
      shadows_[&a] = b.CreateSelect(mine, b.CreateLoad(i32_, slot), zero_);
    }
    b.CreateStore(llvm::ConstantPointerNull::get(pointer_), arguments_for_);
  }

  void visit(llvm::Instruction& inst) {
    if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(&inst)) return binary(*op);
    if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&inst)) return compare(*cmp);
    if (auto* cast = llvm::dyn_cast<llvm::CastInst>(&inst)) return cast_of(*cast);
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(&inst)) {
      if (!has_shadow(phi->getType())) return;
      llvm::IRBuilder<> b(phi);
      llvm::PHINode* shadow = b.CreatePHI(i32_, phi->getNumIncomingValues());
      phis_.emplace_back(phi, shadow);
      shadows_[phi] = shadow;
      changed_ = true;
      return;
    }
    if (auto* select = llvm::dyn_cast<llvm::SelectInst>(&inst)) return select_of(*select);
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) return load_of(*load);
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) return store_of(*store);
    if (auto* br = llvm::dyn_cast<llvm::BranchInst>(&inst)) {
      if (br->isConditional()) branch(inst, br->getCondition());
      return;
    }
    if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(&inst)) return switch_of(*sw);
    if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&inst)) return return_of(*ret);
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) return call_of(*call);
    if (llvm::isa<llvm::AtomicRMWInst>(inst) || llvm::isa<llvm::AtomicCmpXchgInst>(inst)) {
      // The result is concrete; what it writes clears the bytes' expressions.
      concretize_operands(inst);
      llvm::Value* pointer = llvm::isa<llvm::AtomicRMWInst>(inst)
                                 ? llvm::cast<llvm::AtomicRMWInst>(inst).getPointerOperand()
                                 : llvm::cast<llvm::AtomicCmpXchgInst>(inst).getPointerOperand();
      clear_memory(inst, pointer,
                   llvm::isa<llvm::AtomicRMWInst>(inst)
                       ? inst.getType()
                       : llvm::cast<llvm::AtomicCmpXchgInst>(inst).getNewValOperand()->getType());
      return;
    }
    if (auto* freeze = llvm::dyn_cast<llvm::FreezeInst>(&inst)) {
      shadows_[freeze] = shadow_of(freeze->getOperand(0));
      return;
    }
    // Anything else (GEP indices, allocas, aggregates, invokes): its integer operands are used as
    // they are, with their constraint.
    concretize_operands(inst);
  }

  void binary(llvm::BinaryOperator& op) {
    const auto kind = kind_of(op.getOpcode());
    if (!kind || !has_shadow(op.getType())) return concretize_operands(op);
    llvm::Value* a = shadow_of(op.getOperand(0));
    llvm::Value* b = shadow_of(op.getOperand(1));
    if (is_concrete(a) && is_concrete(b)) return;
    llvm::Instruction* at = after(op);
    llvm::IRBuilder<> pre(at);
    llvm::Value* condition = any_symbolic(pre, {a, b});
    shadows_[&op] = guarded(at, condition, [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(
          declare_hook(module_, Hook::__weft_sym_binary),
          {g.getInt32(static_cast<std::uint32_t>(*kind)), a, b, zext64(g, op.getOperand(0)),
           zext64(g, op.getOperand(1)), g.getInt32(op.getType()->getIntegerBitWidth())});
    });
  }

  void compare(llvm::ICmpInst& cmp) {
    if (!has_shadow(cmp.getOperand(0)->getType())) return;
    llvm::Value* a = shadow_of(cmp.getOperand(0));
    llvm::Value* b = shadow_of(cmp.getOperand(1));
    if (is_concrete(a) && is_concrete(b)) return;
    llvm::Instruction* at = after(cmp);
    llvm::IRBuilder<> pre(at);
    llvm::Value* condition = any_symbolic(pre, {a, b});
    shadows_[&cmp] = guarded(at, condition, [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(declare_hook(module_, Hook::__weft_sym_compare),
                          {g.getInt32(static_cast<std::uint32_t>(cmp.getPredicate())), a, b,
                           zext64(g, cmp.getOperand(0)), zext64(g, cmp.getOperand(1)),
                           g.getInt32(cmp.getOperand(0)->getType()->getIntegerBitWidth())});
    });
  }

  void cast_of(llvm::CastInst& cast) {
    llvm::Value* a = shadow_of(cast.getOperand(0));
    if (is_concrete(a)) return;
    std::optional<std::uint32_t> kind;
    switch (cast.getOpcode()) {
      case llvm::Instruction::ZExt:
        kind = WEFT_CAST_ZEXT;
        break;
      case llvm::Instruction::SExt:
        kind = WEFT_CAST_SEXT;
        break;
      case llvm::Instruction::Trunc:
        kind = WEFT_CAST_TRUNC;
        break;
      default:
        break;
    }
    if (!kind || !has_shadow(cast.getType())) return concretize(cast, cast.getOperand(0));
    llvm::Instruction* at = after(cast);
    llvm::IRBuilder<> pre(at);
    llvm::Value* condition = pre.CreateICmpNE(a, zero_);
    shadows_[&cast] = guarded(at, condition, [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(declare_hook(module_, Hook::__weft_sym_cast),
                          {g.getInt32(*kind), a, g.getInt32(cast.getType()->getIntegerBitWidth())});
    });
  }

  void branch(llvm::Instruction& at, llvm::Value* condition) {
    llvm::Value* shadow = shadow_of(condition);
    if (is_concrete(shadow)) return;
    llvm::IRBuilder<> pre(&at);
    guarded(&at, pre.CreateICmpNE(shadow, zero_), [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(declare_hook(module_, Hook::__weft_sym_branch),
                          {shadow, g.CreateZExt(condition, i32_)});
    });
  }

  void select_of(llvm::SelectInst& select) {
    llvm::Value* condition = select.getCondition();
    if (!condition->getType()->isIntegerTy(1)) return concretize_operands(select);
    branch(select, condition);
    if (!has_shadow(select.getType())) return;
    llvm::Value* a = shadow_of(select.getTrueValue());
    llvm::Value* b = shadow_of(select.getFalseValue());
    if (is_concrete(a) && is_concrete(b)) return;
    llvm::IRBuilder<> g(after(select));
    shadows_[&select] = g.CreateSelect(condition, a, b);
    changed_ = true;
  }

  std::uint64_t store_size(llvm::Type* type) const {
    return module_.getDataLayout().getTypeStoreSize(type).getFixedSize();
  }

  void load_of(llvm::LoadInst& load) {
    // A volatile load follows its value like any other (SV-COMP's inputs are often volatile).
    if (!has_shadow(load.getType())) {
      // A value of a type without shadow (a pointer, a float, a vector, a wide integer) loaded
      // from bytes that hold part of a symbolic value loses it: counted, so the verdict says so.
      if (!load.getType()->isSized()) return;
      llvm::IRBuilder<> pre(&load);
      llvm::Value* flag = symbolic_memory(pre);
      llvm::Value* pointer = load.getPointerOperand();
      guarded(&load, flag, [&](llvm::IRBuilder<>& g) {
        return g.CreateCall(
            declare_hook(module_, Hook::__weft_sym_lost),
            {g.CreatePointerCast(pointer, pointer_), g.getInt64(store_size(load.getType()))});
      });
      return;
    }
    llvm::Instruction* at = after(load);
    llvm::IRBuilder<> pre(at);
    llvm::Value* flag = symbolic_memory(pre);
    llvm::Value* pointer = load.getPointerOperand();
    shadows_[&load] = guarded(at, flag, [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(
          declare_hook(module_, Hook::__weft_sym_load),
          {g.CreatePointerCast(pointer, pointer_), g.getInt64(store_size(load.getType()))});
    });
  }

  void store_of(llvm::StoreInst& store) {
    llvm::Value* value = store.getValueOperand();
    if (!has_shadow(value->getType()))
      return clear_memory(store, store.getPointerOperand(), value->getType());
    llvm::Value* shadow = shadow_of(value);
    llvm::IRBuilder<> pre(&store);
    llvm::Value* flag = symbolic_memory(pre);
    llvm::Value* condition =
        is_concrete(shadow) ? flag : pre.CreateOr(flag, pre.CreateICmpNE(shadow, zero_));
    llvm::Value* pointer = store.getPointerOperand();
    guarded(&store, condition, [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(declare_hook(module_, Hook::__weft_sym_store),
                          {g.CreatePointerCast(pointer, pointer_),
                           g.getInt64(store_size(value->getType())), shadow});
    });
  }

  // A write of a value without an expression: its bytes become concrete, if any were symbolic.
  void clear_memory(llvm::Instruction& at, llvm::Value* pointer, llvm::Type* type) {
    if (!type->isSized()) return;
    const std::uint64_t size = store_size(type);
    llvm::IRBuilder<> pre(&at);
    llvm::Value* flag = symbolic_memory(pre);
    guarded(&at, flag, [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(declare_hook(module_, Hook::__weft_sym_store),
                          {g.CreatePointerCast(pointer, pointer_), g.getInt64(size), zero_});
    });
  }

  void switch_of(llvm::SwitchInst& sw) {
    llvm::Value* condition = sw.getCondition();
    llvm::Value* shadow = shadow_of(condition);
    if (is_concrete(shadow) || sw.getNumCases() == 0) return;
    std::vector<std::uint64_t> values;
    for (auto& c : sw.cases()) values.push_back(c.getCaseValue()->getZExtValue());
    auto* array_type = llvm::ArrayType::get(i64_, values.size());
    auto* table = new llvm::GlobalVariable(
        module_, array_type, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantDataArray::get(context_, values), "weft.switch.cases");
    llvm::IRBuilder<> pre(&sw);
    guarded(&sw, pre.CreateICmpNE(shadow, zero_), [&](llvm::IRBuilder<>& g) {
      return g.CreateCall(declare_hook(module_, Hook::__weft_sym_switch),
                          {shadow, zext64(g, condition), g.CreatePointerCast(table, pointer_),
                           g.getInt32(static_cast<std::uint32_t>(values.size()))});
    });
  }

  void return_of(llvm::ReturnInst& ret) {
    llvm::Value* value = ret.getReturnValue();
    if (!value || !has_shadow(value->getType())) return;
    llvm::Value* shadow = shadow_of(value);
    if (is_concrete(shadow)) return;
    // Before a musttail call, which must stay right before its return (its callee sets the
    // result's expression itself), and before an atomic section's end, which must too.
    llvm::Instruction* at = &ret;
    if (auto* call = llvm::dyn_cast_or_null<llvm::CallInst>(ret.getPrevNode())) {
      if (call->isMustTailCall()) return;
      if (is_hook_call(call, Hook::__weft_atomic_end)) at = call;
    }
    llvm::IRBuilder<> b(at);
    b.CreateStore(shadow, return_);
    b.CreateStore(
        b.CreateSelect(b.CreateICmpNE(shadow, zero_), b.CreatePointerCast(&function_, pointer_),
                       llvm::ConstantPointerNull::get(pointer_)),
        return_for_);
    changed_ = true;
  }

  // Calls the model of the C library function `call` calls instead, if there is one of its type.
  bool redirect_to_model(llvm::CallInst& call) {
    const std::optional<Hook> model = library_model(call.getCalledFunction()->getName());
    if (!model) return false;
    llvm::FunctionCallee hook = declare_hook(module_, *model);
    llvm::FunctionType* theirs = call.getFunctionType();
    llvm::FunctionType* ours = hook.getFunctionType();
    // The same types, but for the pointee types of typed pointers (char** is i8* for a hook).
    auto same = [](llvm::Type* a, llvm::Type* b) {
      return a == b || (a->isPointerTy() && b->isPointerTy());
    };
    if (theirs->isVarArg() || theirs->getNumParams() != ours->getNumParams() ||
        !same(theirs->getReturnType(), ours->getReturnType()))
      return false;
    for (unsigned i = 0; i < ours->getNumParams(); ++i)
      if (!same(theirs->getParamType(i), ours->getParamType(i))) return false;
    call.setCalledOperand(llvm::ConstantExpr::getPointerBitCastOrAddrSpaceCast(
        llvm::cast<llvm::Constant>(hook.getCallee()), theirs->getPointerTo()));
    changed_ = true;
    return true;
  }

  // Before a call of a function with no model: what it reads through each pointer argument is
  // checked for symbolic bytes (once some byte is), with the call's largest integer argument as
  // a hint of how many bytes it reads.
  void check_unmodelled_pointers(llvm::CallInst& call) {
    std::vector<llvm::Value*> pointers;
    for (llvm::Value* arg : call.args()) {
      if (!arg->getType()->isPointerTy()) continue;
      // A constant (a string literal, a function) is never symbolic.
      if (auto* global = llvm::dyn_cast<llvm::GlobalVariable>(arg->stripPointerCasts());
          (global && global->isConstant()) || llvm::isa<llvm::Function>(arg->stripPointerCasts()) ||
          llvm::isa<llvm::ConstantPointerNull>(arg))
        continue;
      pointers.push_back(arg);
    }
    if (pointers.empty()) return;
    llvm::IRBuilder<> pre(&call);
    llvm::Value* flag = symbolic_memory(pre);
    guarded(&call, flag, [&](llvm::IRBuilder<>& g) {
      llvm::Value* hint = g.getInt64(0);
      for (llvm::Value* arg : call.args()) {
        if (!arg->getType()->isIntegerTy()) continue;
        llvm::Value* wide = g.CreateZExtOrTrunc(arg, i64_);
        hint = g.CreateSelect(g.CreateICmpUGT(wide, hint), wide, hint);
      }
      llvm::CallInst* last = nullptr;
      for (llvm::Value* pointer : pointers)
        last = g.CreateCall(declare_hook(module_, Hook::__weft_sym_unmodelled),
                            {g.CreatePointerCast(pointer, pointer_), hint});
      return last;
    });
  }

  void call_of(llvm::CallInst& call) {
    llvm::Function* callee = call.getCalledFunction();
    if (callee && has_prefix(callee->getName(), kRuntimePrefix)) return;
    if (auto* transfer = llvm::dyn_cast<llvm::MemTransferInst>(&call)) {
      llvm::IRBuilder<> pre(&call);
      llvm::Value* flag = symbolic_memory(pre);
      guarded(&call, flag, [&](llvm::IRBuilder<>& g) {
        return g.CreateCall(declare_hook(module_, Hook::__weft_sym_copy),
                            {g.CreatePointerCast(transfer->getRawDest(), pointer_),
                             g.CreatePointerCast(transfer->getRawSource(), pointer_),
                             g.CreateZExtOrTrunc(transfer->getLength(), i64_)});
      });
      return;
    }
    if (auto* set = llvm::dyn_cast<llvm::MemSetInst>(&call)) {
      llvm::IRBuilder<> pre(&call);
      llvm::Value* flag = symbolic_memory(pre);
      guarded(&call, flag, [&](llvm::IRBuilder<>& g) {
        return g.CreateCall(declare_hook(module_, Hook::__weft_sym_store),
                            {g.CreatePointerCast(set->getRawDest(), pointer_),
                             g.CreateZExtOrTrunc(set->getLength(), i64_), zero_});
      });
      return;
    }
    if (llvm::isa<llvm::IntrinsicInst>(call)) {
      if (!llvm::isa<llvm::DbgInfoIntrinsic>(call)) concretize_operands(call);
      return;
    }
    if (call.isInlineAsm()) return concretize_operands(call);
    // Code weft compiled (or the runtime's inputs and assumptions) takes expressions along;
    // other declared functions (the C library) get concrete values, and a model where weft
    // has one, which gives its result's expression back.
    const bool instrumented = !callee || !callee->isDeclaration() ||
                              callee->getName().startswith("weft_") ||
                              callee->getName().startswith("__VERIFIER_");
    const bool modelled = !instrumented && redirect_to_model(call);
    if (!instrumented && !modelled && !reads_nothing_back(callee->getName()))
      check_unmodelled_pointers(call);
    bool passes = false;
    for (unsigned i = 0; i < call.arg_size(); ++i) {
      llvm::Value* arg = call.getArgOperand(i);
      if (is_concrete(shadow_of(arg))) continue;
      if (!instrumented || i >= WEFT_SYM_MAX_ARGUMENTS) {
        concretize(call, arg);
      } else {
        passes = true;
      }
    }
    llvm::Value* target = call.getCalledOperand();
    if (passes) {
      llvm::IRBuilder<> b(&call);
      for (unsigned i = 0; i < call.arg_size() && i < WEFT_SYM_MAX_ARGUMENTS; ++i) {
        llvm::Value* slot = b.CreateConstInBoundsGEP2_32(
            llvm::ArrayType::get(i32_, WEFT_SYM_MAX_ARGUMENTS), arguments_, 0, i);
        b.CreateStore(shadow_of(call.getArgOperand(i)), slot);
      }
      b.CreateStore(b.CreatePointerCast(target, pointer_), arguments_for_);
      changed_ = true;
    }
    if (!has_shadow(call.getType()) || !(instrumented || modelled)) return;
    llvm::IRBuilder<> b(after(call));
    llvm::Value* theirs =
        b.CreateICmpEQ(b.CreateLoad(pointer_, return_for_), b.CreatePointerCast(target, pointer_));
    shadows_[&call] = b.CreateSelect(theirs, b.CreateLoad(i32_, return_), zero_);
    b.CreateStore(llvm::ConstantPointerNull::get(pointer_), return_for_);
    changed_ = true;
  }

  llvm::Function& function_;
  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::Type *i8_, *i32_, *i64_;
  llvm::PointerType* pointer_;
  llvm::Constant* zero_;
  llvm::Constant *memory_flag_, *arguments_, *arguments_for_, *return_, *return_for_;
  std::unordered_map<llvm::Value*, llvm::Value*> shadows_;
  std::vector<std::pair<llvm::PHINode*, llvm::PHINode*>> phis_;
  bool changed_ = false;
};

// Every function gets a plain copy, and its entry runs that copy instead when the execution
// does not follow inputs (WEFT_SYM_ENABLED off): a program that reads no input then pays one test
// of a global per call. (The runtime turns following on, and runs the execution again, at the
// first input read: ForkServer::run.) Variadic functions, which cannot forward their arguments,
// always follow.
void dispatch_to_plain_copy(llvm::Function& function, llvm::Function& plain,
                            llvm::Constant* enabled) {
  llvm::LLVMContext& context = function.getContext();
  llvm::BasicBlock* body = &function.getEntryBlock();
  auto* entry = llvm::BasicBlock::Create(context, "weft.dispatch", &function, body);
  auto* to_plain = llvm::BasicBlock::Create(context, "weft.plain", &function, body);
  // Static allocas stay in the entry block (elsewhere they would be dynamic).
  std::vector<llvm::AllocaInst*> allocas;
  for (llvm::Instruction& inst : *body)
    if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst); alloca && alloca->isStaticAlloca())
      allocas.push_back(alloca);
  llvm::IRBuilder<> b(entry);
  b.SetCurrentDebugLocation(entry_location(function));
  llvm::Value* on = b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), enabled), b.getInt8(0));
  b.CreateCondBr(on, body, to_plain);
  for (llvm::AllocaInst* alloca : allocas) alloca->moveBefore(entry->getTerminator());
  llvm::IRBuilder<> p(to_plain);
  p.SetCurrentDebugLocation(entry_location(function));
  std::vector<llvm::Value*> args;
  for (llvm::Argument& a : function.args()) args.push_back(&a);
  llvm::CallInst* call = p.CreateCall(&plain, args);
  call->setCallingConv(function.getCallingConv());
  call->setAttributes(function.getAttributes());
  call->setTailCallKind(llvm::CallInst::TCK_MustTail);
  if (function.getReturnType()->isVoidTy())
    p.CreateRetVoid();
  else
    p.CreateRet(call);
}

class SymbolicInstrumenter final : public Instrumenter {
 public:
  bool run(llvm::Module& module) override {
    std::vector<llvm::Function*> functions;
    for (llvm::Function& function : module)
      if (is_instrumentable(function)) functions.push_back(&function);
    llvm::Constant* enabled = module.getOrInsertGlobal(WEFT_GLOBAL_NAME(WEFT_SYM_ENABLED),
                                                       llvm::Type::getInt8Ty(module.getContext()));
    bool changed = false;
    for (llvm::Function* function : functions) {
      llvm::Function* plain = nullptr;
      if (!function->isVarArg()) {
        llvm::ValueToValueMapTy map;
        plain = llvm::CloneFunction(function, map);
        plain->setName(function->getName() + WEFT_PLAIN_COPY_SUFFIX);
        plain->setLinkage(llvm::GlobalValue::InternalLinkage);
        plain->setVisibility(llvm::GlobalValue::DefaultVisibility);
        plain->setComdat(nullptr);
        // UBSan's function-type check puts data before a function that refers to it by
        // relative address; the copy is only ever called from the original, never checked.
        plain->setPrologueData(nullptr);
        plain->setPrefixData(nullptr);
      }
      changed |= FunctionShadows(*function, module).run();
      if (plain) {
        dispatch_to_plain_copy(*function, *plain, enabled);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Instrumenter> make_symbolic_instrumenter() {
  return std::make_unique<SymbolicInstrumenter>();
}

}  // namespace weft::instrument
