// The C++20 synchronisation types and futures, all built on the futex system call in
// libstdc++: counting_semaphore, latch, barrier, and promise/future (so std::async too). Each
// is used correctly: weft explores every interleaving to its end, with no false deadlock and
// no false data race (their waits order the plain accesses around them).
#include <barrier>
#include <cassert>
#include <future>
#include <latch>
#include <semaphore>
#include <thread>

int main() {
  int produced = 0;
  std::counting_semaphore<2> slots(0);
  std::latch started(2);
  std::barrier phase(2);
  std::promise<int> answer;
  std::future<int> result = answer.get_future();

  std::thread worker([&] {
    started.count_down();
    produced = 7;
    slots.release();
    phase.arrive_and_wait();
    answer.set_value(produced * 6);
  });
  started.count_down();
  started.wait();
  slots.acquire();
  assert(produced == 7);
  phase.arrive_and_wait();
  assert(result.get() == 42);
  worker.join();
  return 0;
}
