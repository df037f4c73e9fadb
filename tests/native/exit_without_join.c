// main returns without joining its worker. The end of the process waits until the worker cannot
// run any more, so the worker's read of `ready` is explored before and after main's write, and
// never cut off by the exit: 2 traces with every access visible. With -DBUG the worker fails
// when it runs after main's write (which it may, before the process ends).
#include <assert.h>
#include <pthread.h>

int ready;
int seen;

static void* worker(void* arg) {
  (void)arg;
  seen = ready;
#ifdef BUG
  assert(seen == 0);
#endif
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  ready = 1;
  return 0;
}
