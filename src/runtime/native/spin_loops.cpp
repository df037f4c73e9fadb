// The hooks of busy-wait loops (src/instrument/spin_loop_instrumenter.cpp). A thread that goes
// once around such a loop without leaving it is stopped (Scheduler::stop_spinning), provided the
// strategies saw every read of that iteration as an event: they then also run the writes that
// would let it leave before those reads, in other executions.
#include <cstring>

#include "native_runtime.hpp"

using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::SpinRead;

namespace weft::runtime::native {

void SpinIteration::note(const void* address, std::uint64_t size, bool visible) {
  if (!visible || size > sizeof(std::uint64_t)) {
    trackable = false;
    return;
  }
  SpinRead r{reinterpret_cast<std::uintptr_t>(address), static_cast<std::uint32_t>(size), 0};
  std::memcpy(&r.bytes, address, size);
  reads.push_back(r);
}

}  // namespace weft::runtime::native

extern "C" {

void __weft_spin_enter() {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || !rt->options().stop_spinning) return;
  RuntimeScope scope(*rt);
  auto& spin = rt->self().spin;
  spin.active = true;
  spin.trackable = true;
  spin.reads.clear();
}

void __weft_spin_back_edge() {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return;
  RuntimeScope scope(*rt);
  auto& spin = rt->self().spin;
  if (!spin.active || !spin.trackable) {
    // Not every read was an event: spin on as an ordinary loop (up to the step bound).
    spin.trackable = true;
    spin.reads.clear();
    return;
  }
  spin.active = false;
  // Whether anything it read differs now: then it would have left, or gone on differently.
  auto released = [reads = std::move(spin.reads)] {
    for (const SpinRead& r : reads) {
      std::uint64_t now = 0;
      std::memcpy(&now, reinterpret_cast<const void*>(r.address), r.size);
      if (now != r.bytes) return true;
    }
    return false;
  };
  spin.reads.clear();
  // Its last events are the loop's reads, each with its source line in the report.
  rt->scheduler().stop_spinning(std::move(released));
}

}  // extern "C"
