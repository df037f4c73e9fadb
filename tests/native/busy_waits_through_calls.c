// Busy-waits whose iterations change nothing, through function calls: a lock taken by a loop
// around a try function that yields and updates the caller's expected value through a pointer
// (libstdc++'s stop_token lock is built so), and a one-slot queue whose producer loops around a
// failing try_push and whose consumer loops around an empty try_pop. A thread that goes once
// around such a loop without effect is stopped until another thread writes what it read, so
// every interleaving is explored without reaching --max-steps.
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

static atomic_int lock;
static int guarded;

static bool try_lock(int* expected) {
  if (*expected != 0) {
    sched_yield();
    *expected = atomic_load(&lock);
    return false;
  }
  return atomic_compare_exchange_weak(&lock, expected, 1);
}

static void take_lock(void) {
  int expected = atomic_load(&lock);
  while (!try_lock(&expected)) {
  }
}

static atomic_int head, tail;
static int slot;

static bool try_push(int value) {
  const int t = atomic_load(&tail);
  if (t != atomic_load(&head)) return false;  // full
  slot = value;
  atomic_store(&tail, t + 1);
  return true;
}

static bool try_pop(int* value) {
  const int h = atomic_load(&head);
  if (h == atomic_load(&tail)) return false;  // empty
  *value = slot;
  atomic_store(&head, h + 1);
  return true;
}

static void* consumer(void* arg) {
  take_lock();
  ++guarded;
  atomic_store(&lock, 0);
  for (int i = 0; i < 2; ++i) {
    int value;
    while (!try_pop(&value)) {
    }
    assert(value == i);
  }
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, consumer, 0);
  take_lock();
  ++guarded;
  atomic_store(&lock, 0);
  for (int i = 0; i < 2; ++i)
    while (!try_push(i)) {
    }
  pthread_join(t, 0);
  assert(guarded == 2);
  return 0;
}
