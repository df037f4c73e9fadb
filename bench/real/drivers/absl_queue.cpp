// A bounded queue guarded by absl::Mutex: the producer waits with a Condition for room, the
// consumer for an item (Mutex::Await, LockWhen). Correct: every item arrives once, in order.
// What weft should say: explored completely, no bug (Abseil's synchronisation is modelled).
#include <absl/synchronization/mutex.h>

#include <cassert>
#include <thread>

namespace {

constexpr int kCapacity = 2;
constexpr int kItems = 3;

class Queue {
 public:
  void push(int item) {
    absl::MutexLock l(&mu_, absl::Condition(this, &Queue::has_room));
    items_[(head_ + size_) % kCapacity] = item;
    ++size_;
  }
  int pop() {
    mu_.LockWhen(absl::Condition(this, &Queue::has_item));
    const int item = items_[head_];
    head_ = (head_ + 1) % kCapacity;
    --size_;
    mu_.Unlock();
    return item;
  }

 private:
  bool has_room() const { return size_ < kCapacity; }
  bool has_item() const { return size_ > 0; }
  absl::Mutex mu_;
  int items_[kCapacity] = {};
  int head_ = 0;
  int size_ = 0;
};

}  // namespace

int main() {
  Queue q;
  std::thread producer([&] {
    for (int i = 1; i <= kItems; ++i) q.push(i);
  });
  for (int i = 1; i <= kItems; ++i) assert(q.pop() == i);
  producer.join();
  return 0;
}
