// C++ thread_local objects: constructed on first use in each thread, destroyed when that thread
// ends (before its pthread keys' destructors), each thread with its own. A thread also throws
// and catches an exception across a scheduling point while another thread does the same: the
// C++ runtime's per-thread exception state must be the thread's own. Correct: no bug.
#include <pthread.h>

#include <atomic>
#include <cassert>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace {

std::atomic<int> constructed{0};
std::atomic<int> destroyed{0};
std::mutex m;

struct PerThread {
  int uses = 0;
  PerThread() { ++constructed; }
  ~PerThread() { ++destroyed; }
};

thread_local PerThread mine;

void work() {
  for (int i = 0; i < 2; ++i) {
    ++mine.uses;
    std::lock_guard<std::mutex> lock(m);
  }
  assert(mine.uses == 2);
  try {
    throw std::runtime_error("inner");
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(m);  // another thread may throw meanwhile
    assert(std::string(e.what()) == "inner");
  }
}

}  // namespace

int main() {
  std::thread a(work), b(work);
  a.join();
  b.join();
  assert(constructed == 2 && destroyed == 2);
  return 0;
}
