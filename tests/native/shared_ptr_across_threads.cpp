// A shared_ptr copied into two threads: the reference counts are atomic (libstdc++ makes them
// so once the process has a second thread), so there is no data race and no bug.
#include <cassert>
#include <memory>
#include <thread>

int main() {
  auto box = std::make_shared<int>(7);
  std::thread a([copy = box] { assert(*copy == 7); });
  std::thread b([copy = box] { assert(*copy == 7); });
  box.reset();
  a.join();
  b.join();
}
