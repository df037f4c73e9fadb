// Two threads reach a function-local static whose constructor takes a lock (a scheduling
// point): the second must wait for the first to finish constructing it, not see recursion.
#include <cassert>
#include <mutex>
#include <thread>

std::mutex m;
struct Registry {
  int entries;
  Registry() {
    std::lock_guard<std::mutex> hold(m);
    entries = 1;
  }
};
Registry& registry() {
  static Registry r;
  return r;
}
int main() {
  std::thread a([] { assert(registry().entries == 1); });
  assert(registry().entries == 1);
  a.join();
}
