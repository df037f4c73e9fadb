#include "memory_errors.hpp"

#include <map>
#include <string>

#include "heap_shadow.hpp"
#include "memory_description.hpp"
#include "native_runtime.hpp"
#include "weft/trace/wire.hpp"

// The program's own data and bss (the linker's symbols): a pointer there is no heap block.
extern "C" char __data_start[];
extern "C" char _end[];

namespace weft::runtime::native {
namespace {

const char* call_name(FreeCall call) {
  switch (call) {
    case FreeCall::kFree:
      return "free";
    case FreeCall::kDelete:
      return "delete";
    case FreeCall::kDeleteArray:
      return "delete[]";
    case FreeCall::kRealloc:
      return "realloc";
  }
  return "free";
}

const char* allocator_name(AllocKind kind) {
  switch (kind) {
    case AllocKind::kMalloc:
      return "malloc";
    case AllocKind::kNew:
      return "new";
    case AllocKind::kNewArray:
      return "new[]";
  }
  return "malloc";
}

// How each deallocation call expects its block to have been allocated.
AllocKind expected_kind(FreeCall call) {
  switch (call) {
    case FreeCall::kDelete:
      return AllocKind::kNew;
    case FreeCall::kDeleteArray:
      return AllocKind::kNewArray;
    default:
      return AllocKind::kMalloc;
  }
}

std::string by_thread(NativeRuntime& rt, std::uint64_t site) {
  std::string s;
  if (site) s += " at " + code_mark(site);
  return s + " by thread " + rt.registry().name(rt.scheduler().self());
}

// "free at x.c:9 by thread 0.1 of " — what a report of a deallocation starts with.
std::string deallocation(NativeRuntime& rt, FreeCall call, std::uint64_t site) {
  return call_name(call) + by_thread(rt, site) + " of ";
}

}  // namespace

void heap_access_error(NativeRuntime& rt, std::uintptr_t address, std::size_t size, bool write,
                       std::uint64_t site) {
  RuntimeScope scope(rt);
  const std::uintptr_t bad = HeapShadow::first_inaccessible(address, size);
  // A use after free is an access to the bytes a freed block asked for. Past them (its slack,
  // or no block's bytes) it is an overflow of the nearest block whether or not that block has
  // been freed since: the same bug, and the same words, in either order of the access and the
  // free.
  const auto freed =
      HeapShadow::state(bad) == kFreedBlock ? ThreadHeap::block_containing(bad) : std::nullopt;
  std::string s = std::string(write ? "write" : "read") + " of " + std::to_string(size) +
                  (size == 1 ? " byte" : " bytes") + by_thread(rt, site) + ", ";
  if (bad != address) s += "from byte " + std::to_string(bad - address) + " on, ";
  if (freed) {
    s += "in " + describe_block(*freed, bad);
  } else if (auto near = ThreadHeap::block_nearest(bad)) {
    near->freed = false;
    s += describe_block(*near, bad);
  } else {
    s += "at 0x" + [&] {
      char text[24];
      std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(bad));
      return std::string(text);
    }() + ", in no heap block";
  }
  rt.fail(freed ? Outcome::kUseAfterFree : Outcome::kHeapOverflow, s);
}

std::optional<HeapBlock> check_free(NativeRuntime& rt, const void* p, const FreeDetails& how,
                                    std::uint64_t site) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  if (!ThreadHeap::owns(p)) {
    // The C library's blocks (allocated before the execution) are freed by it; what lies on a
    // thread's stack or in the program's globals never came from any malloc.
    const bool global = address >= reinterpret_cast<std::uintptr_t>(__data_start) &&
                        address < reinterpret_cast<std::uintptr_t>(_end);
    const bool stack = address >= NativeRuntime::stack_region_begin() &&
                       address < NativeRuntime::stack_region_end();
    if (!global && !stack) return std::nullopt;
    RuntimeScope scope(rt);
    rt.fail(Outcome::kInvalidFree, deallocation(rt, how.call, site) + describe_memory(address) +
                                       ", which is not a heap block");
  }
  std::optional<HeapBlock> block = ThreadHeap::inspect(p);
  RuntimeScope scope(rt);
  if (!block) {
    std::string s = deallocation(rt, how.call, site);
    if (auto in = ThreadHeap::block_containing(address))
      s += describe_block(*in, address) + ", not the start of a block";
    else
      s += describe_memory(address) + ", which is not a heap block";
    rt.fail(Outcome::kInvalidFree, s);
  }
  if (block->freed)
    rt.fail(how.call == FreeCall::kRealloc ? Outcome::kFreedRealloc : Outcome::kDoubleFree,
            deallocation(rt, how.call, site) + describe_block(*block, address));
  const std::string what = deallocation(rt, how.call, site);
  if (block->kind != expected_kind(how.call))
    rt.fail(Outcome::kMismatchedFree, what + "a block " + allocator_name(block->kind) +
                                          " allocated (it needs " +
                                          (block->kind == AllocKind::kMalloc ? "free"
                                           : block->kind == AllocKind::kNew  ? "delete"
                                                                             : "delete[]") +
                                          "): " + describe_block(*block, address));
  if (how.size && *how.size != block->requested)
    rt.fail(Outcome::kMismatchedFree,
            what + std::to_string(*how.size) + " bytes, but the block has " +
                std::to_string(block->requested) + ": " + describe_block(*block, address));
  if (how.alignment.value_or(16) != block->alignment && block->kind != AllocKind::kMalloc)
    rt.fail(Outcome::kMismatchedFree, what + "a block aligned to " +
                                          std::to_string(block->alignment) + " bytes, as if " +
                                          std::to_string(how.alignment.value_or(16)) + ": " +
                                          describe_block(*block, address));
  return block;
}

void report_leaks(NativeRuntime& rt, Trace& trace) {
  // The first live block of each allocation site, in the order of the heap slots and addresses
  // (a function of the program's threads, not of the interleaving).
  std::map<std::uint64_t, HeapBlock> first_by_site;
  for (std::uint32_t slot : rt.heap_slots())
    ThreadHeap::for_each_live_block(
        slot, [&](const HeapBlock& b) { first_by_site.try_emplace(b.alloc_site, b); });
  for (const auto& [site, block] : first_by_site) {
    Failure f;
    f.outcome = Outcome::kMemoryLeak;
    f.message = describe_block(block, block.start) + " is still allocated when the program exits";
    f.message[0] = 'T';
    f.thread = block.alloc_thread;
    f.step = trace.events.size();
    if (trace.failures.empty()) {
      trace.outcome = f.outcome;
      trace.message = f.message;
      trace.failing_thread = f.thread;
    }
    trace.failures.push_back(std::move(f));
  }
}

}  // namespace weft::runtime::native
