// moodycamel::ReaderWriterQueue (Debian's libreaderwriterqueue-dev, header-only): a lock-free
// single-producer single-consumer queue of capacity 2 whose elements are published with release
// fences and relaxed stores, and taken with acquire fences. The producer enqueues three values;
// the consumer polls try_dequeue until it has them and checks their order. Correct. What weft
// should say: explored completely, no bug, under sequential consistency and under RC11 (built
// with -DNDEBUG, as a release build is: otherwise the queue's reentrancy guard, an atomic flag
// set and cleared around each try, makes every failed try a change, and the polling loop runs
// to the step bound).
#include <readerwriterqueue/readerwriterqueue.h>

#include <thread>

int main() {
  moodycamel::ReaderWriterQueue<int> queue(2);
  std::thread producer([&] {
    for (int i = 1; i <= 3; ++i) queue.enqueue(i * 10);
  });
  int expected = 1;
  while (expected <= 3) {
    int value = 0;
    if (queue.try_dequeue(value)) {
      if (value != expected * 10) __builtin_trap();
      ++expected;
    }
  }
  producer.join();
  return 0;
}
