// C++20: a std::jthread waits on a condition_variable_any with its stop_token until the main
// thread requests a stop; a stop_callback is registered meanwhile. Correct. What weft should
// say: explored completely, no bug (before weft told glibc about its threads: a false deadlock).
// (An earlier version asserted that the callback ran: weft showed that it need not, when the
// worker leaves the wait and destroys the callback before request_stop reaches it.)
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

int main() {
  std::mutex m;
  std::condition_variable_any cv;
  bool saw_stop = false;
  std::jthread worker([&](std::stop_token token) {
    std::stop_callback note(token, [] {});
    std::unique_lock lock(m);
    cv.wait(lock, token, [] { return false; });
    saw_stop = token.stop_requested();
  });
  worker.request_stop();
  worker.join();
  assert(saw_stop);
  return 0;
}
