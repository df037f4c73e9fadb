// Each thread has its own thread-local variables and its own errno, as under a real pthread
// library. Two threads count in a __thread variable and a _Thread_local one, each from its
// initial value, set errno, and report the counter's address; main checks that the addresses
// differ, that its own copies are untouched, and that errno is its own. Correct: no bug (a
// shared variable would be a data race on the counter and a failed assertion).
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

static __thread int counter = 5;
static _Thread_local long ticks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  assert(counter == 5 && ticks == 0 && errno == 0);
  for (int i = 0; i < 3; ++i) {
    ++counter;
    ++ticks;
    pthread_mutex_lock(&lock);  // a scheduling point between the increments
    pthread_mutex_unlock(&lock);
  }
  errno = (int)(intptr_t)arg;
  pthread_mutex_lock(&lock);
  pthread_mutex_unlock(&lock);
  assert(errno == (int)(intptr_t)arg);
  assert(counter == 8 && ticks == 3);
  return &counter;
}

int main(void) {
  counter = 1;
  errno = 0;
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, worker, (void*)(intptr_t)(i + 20));
  errno = 99;
  void* where[2];
  for (int i = 0; i < 2; ++i) pthread_join(t[i], &where[i]);
  assert(where[0] != where[1] && where[0] != &counter);
  assert(counter == 1 && ticks == 0 && errno == 99);
  return 0;
}
