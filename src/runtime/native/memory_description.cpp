#include "memory_description.hpp"

#include <dlfcn.h>
#include <signal.h>

#include <cstdio>
#include <cstring>

#include "native_runtime.hpp"
#include "thread_heap.hpp"
#include "weft/trace/wire.hpp"

extern "C" char __executable_start[];
extern "C" char etext[];

namespace weft::runtime::native {
namespace {

constexpr int kMaxFrames = 64;
constexpr int kFramesSent = 4;
constexpr std::uint64_t kNearSymbol = 4096;

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(v));
  return text;
}

bool in_program(std::uint64_t pc) {
  return pc >= reinterpret_cast<std::uint64_t>(__executable_start) &&
         pc < reinterpret_cast<std::uint64_t>(etext);
}

// Whether the instruction before `ret` is a call, so that `ret` is a return address and not a
// stray word of the stack that happens to point into the program's code.
bool after_call(std::uint64_t ret) {
  if (!in_program(ret - 7)) return false;
  const auto* p = reinterpret_cast<const std::uint8_t*>(ret);
  if (p[-5] == 0xe8) return true;  // call rel32
  for (int length : {2, 3, 6, 7})  // call r/m64: FF /2
    if (p[-length] == 0xff && ((p[-length + 1] >> 3) & 7) == 2) return true;
  return false;
}

struct StackOwner {
  ThreadId thread = kNoThread;
  std::uintptr_t low = 0, high = 0;
  bool finished = false;
};

StackOwner stack_owner(NativeRuntime& rt, std::uintptr_t address, std::uintptr_t slack = 0) {
  StackOwner o;
  for (ThreadId id = 0; id < rt.registry().size(); ++id) {
    void* low = nullptr;
    std::size_t bytes = 0;
    bool finished = false;
    if (!rt.scheduler().thread_info(id, &low, &bytes, &finished) || !low) continue;
    const auto lo = reinterpret_cast<std::uintptr_t>(low);
    if (address + slack >= lo && address < lo + bytes) {
      o.thread = id;
      o.low = lo;
      o.high = lo + bytes;
      o.finished = finished;
      return o;
    }
  }
  return o;
}

// "pc@fp;pc@fp": for each frame above `address` on the owner's stack, the return address into
// its function and that function's frame pointer (its locals lie below it). Walks the chain of
// saved frame pointers (weft-cc and weft's runtime keep them).
std::string frames_above(const StackOwner& o, std::uintptr_t address, std::uintptr_t fp) {
  std::string out;
  int sent = 0;
  for (int i = 0; i < kMaxFrames && sent < kFramesSent; ++i) {
    if (fp < o.low || fp + 16 > o.high || fp % 8) break;
    const auto* frame = reinterpret_cast<const std::uintptr_t*>(fp);
    const std::uintptr_t caller_fp = frame[0], ret = frame[1];
    if (caller_fp <= fp) break;
    if (caller_fp > address && in_program(ret)) {
      if (sent) out += ';';
      out.append(hex(ret)).append("@").append(hex(caller_fp));
      ++sent;
    }
    fp = caller_fp;
  }
  return out;
}

std::string describe_stack(NativeRuntime& rt, const StackOwner& o, std::uintptr_t address,
                           std::uintptr_t running_fp) {
  const std::string thread = rt.registry().name(o.thread);
  std::string frames;
  if (!o.finished) {
    const std::uintptr_t fp = o.thread == rt.scheduler().self()
                                  ? running_fp
                                  : rt.scheduler().saved_frame_pointer(o.thread);
    frames = frames_above(o, address, fp);
  }
  return "{stack:" + hex(address) + ":" + thread + ":" + frames + "}";
}

std::string describe(std::uintptr_t address, std::uintptr_t running_fp) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return data_mark(address);
  if (auto block = ThreadHeap::block_containing(address)) return describe_block(*block, address);
  const StackOwner o = stack_owner(*rt, address);
  if (o.thread != kNoThread) return describe_stack(*rt, o, address, running_fp);
  return data_mark(address);
}

std::string file_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// The first word at or above `sp` that is a return address into the program: for a fault in a
// library function, where the program called it (or called what called it). Library code need
// not keep frame pointers, so the stack is scanned.
std::uint64_t nearest_program_return(const StackOwner& o, std::uint64_t sp) {
  if (o.thread == kNoThread) return 0;
  for (std::uintptr_t at = sp & ~std::uintptr_t{7}; at + 8 <= o.high && at < sp + 64 * 1024;
       at += 8) {
    const std::uint64_t word = *reinterpret_cast<const std::uint64_t*>(at);
    if (in_program(word) && after_call(word)) return word;
  }
  return 0;
}

}  // namespace

std::size_t program_callers(NativeRuntime& rt, ThreadId thread, std::uint64_t library_site,
                            std::uint64_t (&callers)[kProgramCallers]) {
  if (!library_site || in_program(library_site)) return 0;
  void* low = nullptr;
  std::size_t bytes = 0;
  bool finished = false;
  const std::uintptr_t fp = rt.scheduler().stopped_frame_pointer(thread);
  if (!fp || !rt.scheduler().thread_info(thread, &low, &bytes, &finished) || finished) return 0;
  const std::uintptr_t high = reinterpret_cast<std::uintptr_t>(low) + bytes;
  // The runtime's frames, up to the library's call into it; then the library's own. The
  // runtime's frames may hold the site too (an argument kept on the stack): the return address
  // is its highest copy, since no frame above it has seen the value.
  constexpr std::uintptr_t kScan = 64 * 1024;
  std::uintptr_t at = fp & ~std::uintptr_t{7};
  const std::uintptr_t end = std::min(high, at + kScan);
  std::uintptr_t slot = 0;
  for (; at + 8 <= end; at += 8)
    if (*reinterpret_cast<const std::uint64_t*>(at) == library_site) slot = at;
  if (!slot) return 0;
  std::size_t n = 0;
  for (at = slot + 8; at + 8 <= end && n < kProgramCallers; at += 8) {
    const std::uint64_t word = *reinterpret_cast<const std::uint64_t*>(at);
    if (in_program(word) && after_call(word)) callers[n++] = word;
  }
  return n;
}

std::string describe_block(const HeapBlock& b, std::uintptr_t address) {
  NativeRuntime* rt = NativeRuntime::active();
  const auto name = [&](std::uint32_t thread) {
    return rt ? rt->registry().name(thread) : std::to_string(thread);
  };
  const std::uintptr_t end = b.start + b.requested;
  std::string s;
  if (address == b.start)
    s = "the ";
  else if (address < b.start)
    s = std::to_string(b.start - address) + " bytes before the ";
  else if (address >= end && !(b.requested == 0 && address == b.start))
    s = std::to_string(address - end) + " bytes after the end of the ";
  else
    s = "byte " + std::to_string(address - b.start) + " of the ";
  s += std::to_string(b.requested) + "-byte block allocated";
  if (b.alloc_site) s += " at " + code_mark(b.alloc_site);
  s += " by thread " + name(b.alloc_thread);
  if (b.freed) {
    s += ", freed";
    if (b.free_site) s += " at " + code_mark(b.free_site);
    s += " by thread " + name(b.free_thread);
  }
  return s + " (0x" + hex(address) + ")";
}

std::string describe_memory(std::uintptr_t address) {
  return describe(address, reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)));
}

std::string describe_crash(int signal, std::uint64_t pc, std::uint64_t address,
                           std::uint64_t frame_pointer, std::uint64_t stack_pointer) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return "";
  std::string s;
  if (pc && !in_program(pc)) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(pc), &info) && info.dli_fname) {
      s += " in ";
      // Only exported symbols are known; a private function (__strlen_avx2) lies after some
      // unrelated one, so a symbol far below the pc is not named.
      const auto distance = pc - reinterpret_cast<std::uint64_t>(info.dli_saddr);
      if (info.dli_sname && info.dli_saddr && distance < kNearSymbol)
        s += std::string(info.dli_sname) + " of ";
      s += file_name(info.dli_fname);
    }
    const StackOwner o = stack_owner(*rt, stack_pointer);
    if (const std::uint64_t ret = nearest_program_return(o, stack_pointer))
      s += ", called from " + code_mark(ret);
  }
  if (signal == SIGSEGV || signal == SIGBUS) {
    if (auto block = ThreadHeap::block_containing(address)) {
      s += "; the address is " + describe_block(*block, address);
    } else {
      const StackOwner o = stack_owner(*rt, address, 4096);
      if (o.thread != kNoThread && address < o.low)
        s += "; the address is the guard page below the stack of thread " +
             rt->registry().name(o.thread) + ": its stack overflowed (" +
             std::to_string((o.high - o.low) >> 20) + " MiB; deep recursion?)";
      else if (o.thread != kNoThread)
        s += "; the address is " + describe(address, frame_pointer);
    }
  }
  return s;
}

}  // namespace weft::runtime::native
