// Abseil's other synchronisation, each handing data from one thread to another with no race:
// a Condition waited for under an absl::Mutex (LockWhen, Await), an absl::CondVar, an
// absl::Notification, an absl::BlockingCounter, an absl::Barrier and absl::call_once. Each
// assertion holds in every interleaving; before weft modelled Abseil, every hand-off was a
// false data race (libabsl's atomics are invisible) and some waits never ended.
#include <absl/base/call_once.h>
#include <absl/synchronization/barrier.h>
#include <absl/synchronization/blocking_counter.h>
#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>

#include <cassert>
#include <thread>

static absl::Mutex mu;
static absl::CondVar cv;
static int stage;  // guarded by mu
static int payload;
static absl::Notification ready;
static int published;
static absl::BlockingCounter* done;
static int parts[2];
static absl::once_flag once;
static int initialised;
static absl::Barrier* barrier;
static int before_barrier[2];

static bool stage_one(int* s) {
  return *s >= 1;
}

static void worker(int id) {
  absl::call_once(once, [] { ++initialised; });
  assert(initialised == 1);
  if (id == 0) {
    {
      absl::MutexLock l(&mu);
      payload = 42;
      stage = 1;
    }
    published = 7;
    ready.Notify();
    absl::MutexLock l(&mu);
    while (stage < 2) cv.Wait(&mu);
  }
  parts[id] = id + 1;
  done->DecrementCount();
  before_barrier[id] = 1;
  if (barrier->Block()) delete barrier;
  assert(before_barrier[1 - id] == 1);
}

int main() {
  done = new absl::BlockingCounter(2);
  barrier = new absl::Barrier(2);
  std::thread a(worker, 0);
  std::thread b(worker, 1);
  mu.LockWhen(absl::Condition(stage_one, &stage));
  assert(payload == 42);
  stage = 2;
  cv.Signal();
  mu.Unlock();
  ready.WaitForNotification();
  assert(ready.HasBeenNotified() && published == 7);
  done->Wait();
  assert(parts[0] == 1 && parts[1] == 2);
  a.join();
  b.join();
  delete done;
  return 0;
}
