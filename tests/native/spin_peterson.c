// Peterson's mutual exclusion for two threads, each entering the critical section twice; the
// busy-wait reads two variables. With -DBUG a thread sets `turn` before its own flag (the
// classic mistake), and both can be in the critical section at once.
#include <assert.h>
#include <pthread.h>

static int wants[2], turn, inside;

static void enter(int me) {
  const int other = 1 - me;
#ifdef BUG
  turn = other;
  wants[me] = 1;
#else
  wants[me] = 1;
  turn = other;
#endif
  while (wants[other] && turn == other) {
  }
}

static void* worker(void* arg) {
  const int me = (int)(long)arg;
  for (int i = 0; i < 2; ++i) {
    enter(me);
    inside = inside + 1;
    assert(inside == 1);
    inside = inside - 1;
    wants[me] = 0;
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void*)0L);
  pthread_create(&b, 0, worker, (void*)1L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
