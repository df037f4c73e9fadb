// Thesis Fig. 6.1: each thread stores an input into its variable when it exceeds 10. No test
// execution need pass through a state with X > 40 and Y == 15, but the unfolding holds one:
// X = input1, input1 > 10, Y = input2, input2 > 10 (thesis §6.1).
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

int X = 0, Y = 0;

static void* first(void* arg) {
  (void)arg;
  int a = __VERIFIER_nondet_int();
  if (a > 10) X = a;
  return 0;
}

static void* second(void* arg) {
  (void)arg;
  int b = __VERIFIER_nondet_int();
  if (b > 10) Y = b;
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, first, 0);
  pthread_create(&t2, 0, second, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
