// A thread loops three times around a lock with its counter in thread-local storage, which weft
// sees no access to: only the thread's local state tells the rounds apart. Were it left out,
// the second round would look like the first (a cut-off), the loop would never seem to end, and
// the write after it, which the other thread's assertion sees, would be missed. The assertion
// fails in an execution where the looping thread finishes first (not the first execution: the
// checking thread starts first).
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile __thread int rounds;
static int done;

static void* looping(void* arg) {
  (void)arg;
  while (rounds < 3) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    rounds++;
  }
  pthread_mutex_lock(&m);
  done = 1;
  pthread_mutex_unlock(&m);
  return 0;
}

static void* checking(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  const int seen = done;
  pthread_mutex_unlock(&m);
  assert(!seen);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&b, 0, checking, 0);
  pthread_create(&a, 0, looping, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
