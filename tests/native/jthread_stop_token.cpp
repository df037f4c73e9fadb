// A worker waits on a condition_variable_any with a stop_token; main requests the stop through
// the jthread's destructor. Correct: every interleaving ends, with no deadlock.
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

int main() {
  std::mutex m;
  std::condition_variable_any cv;
  bool ready = false;
  {
    std::jthread worker([&](std::stop_token stop) {
      std::unique_lock lock(m);
      cv.wait(lock, stop, [&] { return ready; });
    });
  }
  return 0;
}
