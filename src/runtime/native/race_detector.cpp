#include "race_detector.hpp"

#include <algorithm>
#include <optional>

#include "memory_description.hpp"
#include "thread_heap.hpp"
#include "weft/trace/wire.hpp"

namespace weft::runtime::native {
namespace {

std::string describe_access(bool write, bool atomic, bool free, std::size_t size,
                            const std::string& thread, std::uint64_t site) {
  std::string s = atomic ? (write ? "atomic write" : "atomic read") : (write ? "write" : "read");
  s = free ? "free" : s + " (" + std::to_string(size) + " bytes)";
  s += " by thread " + thread;
  if (site) s += " at " + code_mark(site);
  return s;
}

// The two accesses of a race in a fixed order (by site, then thread), not in the order they
// ran: the executions that run them the other way round report the same race, and a run with
// --all-bugs lists it once.
std::string race_report(const std::string& memory, std::string first, std::uint64_t first_site,
                        const std::string& first_thread, std::string second,
                        std::uint64_t second_site, const std::string& second_thread) {
  if (std::make_pair(second_site, second_thread) < std::make_pair(first_site, first_thread))
    std::swap(first, second);
  return "data race on " + memory + ": " + first + " and " + second;
}

}  // namespace

void RaceDetector::check_free(const Access& a, std::uintptr_t start, const Freed& f,
                              const ThreadRegistry& threads, std::vector<std::string>& reports) {
  if (f.thread == a.thread || clock_of(a.thread).covers(f.thread, f.epoch)) return;
  if (!reported_.insert({std::min(f.site, a.site), std::max(f.site, a.site)}).second) return;
  // The block as it was when freed, as the report says when the free comes second: the race
  // reads the same whichever ran first, and --all-bugs lists it once.
  std::optional<HeapBlock> block = ThreadHeap::block_containing(start);
  if (block) block->freed = false;
  const std::string memory = block ? describe_block(*block, start) : describe_memory(start);
  reports.push_back(
      race_report(memory, describe_access(true, false, true, 0, threads.name(f.thread), f.site),
                  f.site, threads.name(f.thread),
                  describe_access(a.write, a.atomic, false, a.size, threads.name(a.thread), a.site),
                  a.site, threads.name(a.thread)));
}

// A thread runs alone between two of its visible events (the baton passes only at them), so
// within one epoch of a thread no other thread adds or removes an entry. An access that repeats
// the one its thread's last entry in the cell records (same epoch, site, kind and size, bytes
// already covered) would therefore check the same entries, find the same races (each pair is
// reported once anyway) and leave the same entries: it can be skipped. This is what makes a loop
// over a buffer cost a few compares per access once each granule was seen in the epoch.
bool RaceDetector::repeats_last(const Access& a, std::uint32_t epoch) const {
  if (!last_cell_ || a.free || a.in_freed_block || a.size == 0 || a.size > 8) return false;
  const std::uintptr_t granule = a.address / 8;
  if (granule != last_granule_ || (a.address + a.size - 1) / 8 != granule) return false;
  if (last_cell_->entries.empty()) return false;
  const Entry& e = last_cell_->entries.back();
  const auto bytes = static_cast<std::uint8_t>(((1u << a.size) - 1) << (a.address - granule * 8));
  return e.thread == a.thread && e.epoch == epoch && e.site == a.site && e.write == a.write &&
         e.atomic == a.atomic && e.size == a.size && (e.bytes & bytes) == bytes;
}

std::vector<std::string> RaceDetector::access(const Access& a, const ThreadRegistry& threads) {
  const VectorClock& now = clock_of(a.thread);
  // Plain accesses sit between two visible events of their thread; an atomic one is its own
  // event, already added (under RC11 the machine adds one of up to 8 bytes next; a wider one
  // counted as it was performed, Scheduler::rc11_synchronise).
  const std::uint32_t count = now[a.thread];
  const bool added = a.atomic && (!rc11_ || a.size > 8);
  const std::uint32_t epoch = added ? count : count + 1;
  const VectorClock* sc_now = rc11_ ? &clocks_.thread_clock(a.thread) : nullptr;
  const std::uint32_t sc_epoch = sc_now ? (*sc_now)[a.thread] + (a.atomic ? 0 : 1) : 0;
  std::vector<std::string> reports;
  if (repeats_last(a, epoch)) return reports;

  const std::uintptr_t end = a.address + std::max<std::size_t>(a.size, 1);
  for (std::uintptr_t granule = a.address / 8; granule * 8 < end; ++granule) {
    const std::uintptr_t lo = std::max(a.address, granule * 8);
    const std::uintptr_t hi = std::min(end, granule * 8 + 8);
    std::uint8_t bytes = 0;
    for (std::uintptr_t b = lo; b < hi; ++b) bytes |= std::uint8_t(1u << (b - granule * 8));

    // A free keeps nothing: its granules are looked up, not made.
    const auto cell = a.free ? shadow_.find(granule) : shadow_.end();
    if (a.free && cell == shadow_.end()) continue;
    Cell& here = a.free ? cell->second : shadow_[granule];
    auto& entries = here.entries;
    for (const Entry& e : entries) {
      if (e.thread == a.thread || !(e.bytes & bytes)) continue;
      if (!e.write && !a.write) continue;
      if (e.atomic && a.atomic) continue;
      if (now.covers(e.thread, e.epoch)) continue;
      if (!reported_.insert({std::min(e.site, a.site), std::max(e.site, a.site)}).second) continue;
      reports.push_back(race_report(
          describe_memory(a.address),
          describe_access(e.write, e.atomic, false, e.size, threads.name(e.thread), e.site), e.site,
          threads.name(e.thread),
          describe_access(a.write, a.atomic, a.free, a.size, threads.name(a.thread), a.site),
          a.site, threads.name(a.thread)));
      if (sc_now && sc_now->covers(e.thread, e.sc_epoch))
        reports.back() +=
            " (under RC11: no release of an atomic between them is read by an acquire, so nothing "
            "orders them, though sequential consistency would)";
    }
    if (a.free) {
      if (last_cell_ == &cell->second) last_cell_ = nullptr;
      shadow_.erase(cell);
      continue;
    }
    // Keep what a later access can race with: a write supersedes every earlier access to its
    // bytes (they all happen before it or were reported); a read supersedes its thread's reads.
    for (Entry& e : entries)
      if (a.write || (e.thread == a.thread && !e.write))
        e.bytes &= static_cast<std::uint8_t>(~bytes);
    std::erase_if(entries, [](const Entry& e) { return e.bytes == 0; });
    // The same access of the same epoch on other bytes of the granule (a loop over a buffer)
    // is one entry: checking and superseding treat its bytes alike either way.
    const auto size = static_cast<std::uint32_t>(a.size);
    if (!entries.empty()) {
      Entry& last = entries.back();
      if (last.thread == a.thread && last.epoch == epoch && last.site == a.site &&
          last.write == a.write && last.atomic == a.atomic && last.size == size) {
        last.bytes |= bytes;
        last_granule_ = granule;
        last_cell_ = &here;
        continue;
      }
    }
    entries.push_back({a.thread, epoch, sc_epoch, size, bytes, a.write, a.atomic, a.site});
    last_granule_ = granule;
    last_cell_ = &here;
  }
  if (a.free) freed_[a.address] = Freed{end, a.thread, epoch, a.site};
  // A use after free races with the free unless the free happens before it; the free dropped
  // the block's bytes from the shadow above, so the block's record answers for all of them.
  if (a.in_freed_block && !a.free)
    for (auto it = freed_.upper_bound(end - 1); it != freed_.begin();) {
      --it;
      if (it->second.end <= a.address) break;
      check_free(a, it->first, it->second, threads, reports);
    }
  return reports;
}

}  // namespace weft::runtime::native
