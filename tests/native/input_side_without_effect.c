// Inputs and states: the thread's first branch on its input has no effect on what it does next,
// so both sides reach the same memory and the same operations, but not the same inputs: only
// the side where v > 0 can go on to v == 7, and fail. A state that forgot the side taken would
// cut the second side off as "reached before" and lose the bug (its path constraint differs).
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int x;
static __thread int scratch;  // thread-local: its accesses are no events

void* work(void* arg) {
  (void)arg;
  int v = __VERIFIER_nondet_int();
  if (v > 0) scratch = 1;
  x = 1;
  if (v == 7) reach_error();
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  pthread_join(t, 0);
  return 0;
}
