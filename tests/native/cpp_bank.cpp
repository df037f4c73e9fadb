// C++ threads: std::thread, std::mutex, std::condition_variable and std::atomic. A transfer
// checks the balance under one lock and debits under another, so two transfers can overdraw.
#include <atomic>
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace {
std::mutex balance_lock;
int balance = 100;
std::atomic<int> done{0};
std::mutex done_lock;
std::condition_variable all_done;

void transfer(int amount) {
  bool enough;
  {
    std::lock_guard guard(balance_lock);
    enough = balance >= amount;
  }
  if (enough) {
    std::lock_guard guard(balance_lock);
    balance -= amount;
  }
  done.fetch_add(1);
  std::lock_guard guard(done_lock);
  all_done.notify_one();
}
}  // namespace

int main() {
  std::thread a(transfer, 80), b(transfer, 80);
  {
    std::unique_lock lock(done_lock);
    all_done.wait(lock, [] { return done.load() == 2; });
  }
  a.join();
  b.join();
  assert(balance >= 0);
}
