// std::atomic<T>::wait and notify call the futex system call directly. A waiter waits for a
// flag that main sets; correct, every interleaving ends. With -DBUG main sets the flag without
// notifying: when the waiter went to sleep first, nothing wakes it (a deadlock weft reports).
#include <atomic>
#include <cassert>
#include <thread>

std::atomic<int> flag{0};
int data;

int main() {
  std::thread waiter([] {
    flag.wait(0);
    assert(data == 42);  // published before the flag: the wake orders it
  });
  data = 42;
  flag.store(1);
#ifndef BUG
  flag.notify_one();
#endif
  waiter.join();
  return 0;
}
