#include "weft/trace/operation.hpp"

namespace weft {

bool Footprint::add(ObjectKey address, std::uint64_t size, bool write) {
  if (!known) return false;
  const auto [first, last] = granule_span(address, size);
  for (ObjectKey g = first; g <= last; ++g) {
    std::size_t i = 0;
    while (i < count && granule(i) != g) ++i;
    // A granule index needs 48 bits (user-space addresses have 47).
    if (i == count && (count == kCapacity || g >> 48 != 0)) {
      *this = Footprint{};  // too much to list: unknown, so dependent with everything
      return false;
    }
    if (i == count) entries[count++] = g << 16;
    const ObjectKey bytes = bytes_in_granule(address, size, g);
    entries[i] |= write ? bytes : bytes << 8;
  }
  return true;
}

bool touches_everything(const Operation& op) {
  return op.kind == OpKind::kProcessExit ||
         (op.kind == OpKind::kAtomicSection && !op.footprint.known);
}

bool accesses_memory(const Operation& op) {
  return domain_of(op.kind) == Domain::kMemory || op.kind == OpKind::kFutexWait ||
         (op.kind == OpKind::kAtomicSection && op.footprint.known);
}

ObjectKey mutex_of(const Operation& op) {
  return domain_of(op.kind) == Domain::kCond ? op.partner : op.object;
}

bool ends_atomic_block(const Operation& op) {
  if (gives_mutex(op.kind)) return true;
  switch (op.kind) {
    case OpKind::kThreadJoin:
    case OpKind::kSemWait:
    case OpKind::kSemPost:
    case OpKind::kSemTryWait:
    case OpKind::kAtomicLoad:
    case OpKind::kAtomicStore:
    case OpKind::kAtomicRmw:
    case OpKind::kAtomicCas:
    case OpKind::kAtomicSection:
    case OpKind::kBarrierWait:
    case OpKind::kFutexWait:
    case OpKind::kFutexWake:
    case OpKind::kFutexWoken:
    case OpKind::kChannelSend:
    case OpKind::kChannelReceive:
    case OpKind::kChannelClose:
    case OpKind::kChannelSelect:
    case OpKind::kChannelWatch:
      return true;
    default:
      return false;
  }
}

std::string object_name(ObjectKey key) {
  // In-process keys encode (creating thread + 1, creation count); show them compactly.
  if (key >= kInProcessObjectSpacing && key % kInProcessObjectSpacing == 0) {
    const ObjectKey n = key / kInProcessObjectSpacing;
    // Appended piece by piece: "literal" + temporary trips GCC 12's -Wrestrict at -O3.
    std::string name = "#";
    name += std::to_string((n >> 24) - 1);
    name += '.';
    name += std::to_string(n & 0xffffff);
    return name;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(key));
  return buf;
}

std::string describe(const Operation& op, const ThreadRegistry* threads) {
  std::string s = op_name(op.kind);
  switch (domain_of(op.kind)) {
    case Domain::kMemory:
      // A store buffer's slot keys mean nothing to the reader: the location does.
      if (op.kind == OpKind::kStoreFence) return s;
      if (op.kind == OpKind::kBufferedStore) {
        s += ' ' + object_name(op.partner);
        if (op.size) s += " (" + std::to_string(op.size) + " bytes)";
        return s;
      }
      s += ' ';
      s += object_name(op.object);
      if (op.size) s += " (" + std::to_string(op.size) + " bytes)";
      break;
    case Domain::kMutex:
      s += " mutex " + object_name(op.object);
      if (op.kind == OpKind::kMutexTryLock) s += op.result ? " (acquired)" : " (busy)";
      break;
    case Domain::kCond:
      s += " cv " + object_name(op.object);
      if (op.kind == OpKind::kCondWait || op.kind == OpKind::kCondWake)
        s += " with mutex " + object_name(op.partner);
      if (op.kind == OpKind::kCondWake && op.timed)
        s += op.result ? " (signalled)" : " (timed out)";
      if (is_lost_notification(op)) s += " (lost: no waiter left to wake)";
      break;
    case Domain::kSemaphore:
      s += " semaphore " + object_name(op.object);
      if (op.kind == OpKind::kSemTryWait) s += op.result ? " (taken)" : " (zero)";
      break;
    case Domain::kProcess:
      if (op.kind == OpKind::kAtomicSection && op.object == kInlineAsmObject)
        return "inline asm (effects unseen)";
      if (op.kind == OpKind::kProcessExit) s += " (status " + std::to_string(op.object) + ")";
      if (op.kind == OpKind::kAtomicSection && op.footprint.known) {
        s += " (";
        for (std::size_t i = 0; i < op.footprint.count; ++i) {
          if (i) s += ", ";
          s += (op.footprint.written_bytes(i) ? "write " : "read ") +
               object_name(op.footprint.granule(i) * kMemoryGranule);
        }
        s += ")";
      }
      break;
    case Domain::kThread:
      s += " thread " +
           (threads ? threads->name(static_cast<ThreadId>(op.object)) : std::to_string(op.object));
      break;
    case Domain::kFutex:
      s += " word " + object_name(op.object);
      if (op.kind == OpKind::kFutexWait)
        s += " (expecting " + std::to_string(op.partner) + (op.result ? ", waits)" : ", differs)");
      if (op.kind == OpKind::kFutexWake)
        s += " (up to " + std::to_string(op.partner) + ", woke " + std::to_string(op.result) + ")";
      if (op.kind == OpKind::kFutexWoken && op.timed) s += op.result ? " (woken)" : " (timed out)";
      break;
    case Domain::kChannel:
      if (op.kind != OpKind::kChannelSelect) s += " channel " + object_name(op.object);
      if (op.timed && op.kind != OpKind::kChannelClose)
        s += op.kind == OpKind::kChannelSelect ? (op.result ? " (ready)" : " (timed out)")
                                               : (op.result ? " (ready)" : " (would block)");
      break;
    case Domain::kNone:
      if (op.kind == OpKind::kYield && op.object == kInlineAsmObject) s = "inline asm (barrier)";
      break;
  }
  return s;
}

}  // namespace weft
