// A counter guarded by absl::Mutex, which locks with Abseil's own atomics and futex calls inside
// libabsl_synchronization (not built by weft-cc). weft models absl::Mutex, so the locked counter
// is explored completely with no race; with NO_LOCK the race is real. With LOST_UPDATE the lock
// guards the read and the write separately: the assertion fails in one interleaving (natively, it
// fails only now and then), which weft must find rather than call the program explored.
#include <absl/synchronization/mutex.h>

#include <cassert>
#include <thread>

static absl::Mutex mu;
static int counter;

static void bump() {
#if defined(NO_LOCK)
  counter++;
#elif defined(LOST_UPDATE)
  mu.Lock();
  const int seen = counter;
  mu.Unlock();
  absl::MutexLock l(&mu);
  counter = seen + 1;
#else
  absl::MutexLock l(&mu);
  counter++;
#endif
}

int main() {
  std::thread other(bump);
  bump();
  other.join();
  absl::MutexLock l(&mu);
  assert(counter == 2);
  return 0;
}
