// Why the scheduler runs program threads as fibers: the cost of handing the baton between two
// fibers versus between two OS threads (a semaphore ping-pong, the cheapest portable handoff);
// and what giving each fiber its own thread-local storage adds to a switch (the scheduler sets
// the thread pointer on the way to a fiber and back: ThreadStorage).
// Run: ./build/bench/bench_context_switch
#include <chrono>
#include <cstdio>
#include <semaphore>
#include <thread>

#include "fiber.hpp"
#include "weft/runtime/thread_storage.hpp"

namespace {

constexpr int kRounds = 200000;

weft::runtime::Fiber main_fiber;
weft::runtime::Fiber* other_fiber = nullptr;

void ping(void*) {
  while (true) weft::runtime::Fiber::switch_to(*other_fiber, main_fiber);
}

double fiber_ns() {
  weft::runtime::Fiber f;
  other_fiber = &f;
  f.start(&ping, nullptr, weft::runtime::kFiberStackBytes);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) weft::runtime::Fiber::switch_to(main_fiber, f);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s * 1e9 / (2.0 * kRounds);  // two switches per round
}

// A round as the scheduler makes it for a thread with storage of its own: the thread pointer
// is set before the switch to the fiber and set back after. (The value written is the OS
// thread's own: the cost of the write does not depend on it, and the benchmark's code keeps
// working.)
double fiber_with_storage_ns() {
  weft::runtime::Fiber f;
  other_fiber = &f;
  f.start(&ping, nullptr, weft::runtime::kFiberStackBytes);
  void* const tp = weft::runtime::thread_pointer();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) {
    weft::runtime::set_thread_pointer(tp);
    weft::runtime::Fiber::switch_to(main_fiber, f);
    weft::runtime::set_thread_pointer(tp);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s * 1e9 / (2.0 * kRounds);
}

double thread_ns() {
  std::binary_semaphore to_worker(0), to_main(0);
  std::thread worker([&] {
    for (int i = 0; i < kRounds; ++i) {
      to_worker.acquire();
      to_main.release();
    }
  });
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) {
    to_worker.release();
    to_main.acquire();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  worker.join();
  return s * 1e9 / (2.0 * kRounds);
}

}  // namespace

int main() {
  const double f = fiber_ns();
  const double fs = fiber_with_storage_ns();
  const double t = thread_ns();
  std::printf("fiber switch       %8.1f ns\n", f);
  std::printf("fiber switch, own thread-local storage %8.1f ns (%.2fx)\n", fs, fs / f);
  std::printf("OS-thread handoff  %8.1f ns\n", t);
  std::printf("ratio (thread / fiber): %.0fx\n", t / f);
}
