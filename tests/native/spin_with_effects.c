// A waiting loop that does change something each time round must not be stopped as a busy-wait:
// the waiter counts its rounds in a shared variable and in a local. The checker can see three
// rounds counted only if the waiter went round three times; then it fails (reach_error). With
// -DLOCAL the rounds are counted in a local, whose stores are hooked for this alone.
#include <pthread.h>

void reach_error(void) {
  __builtin_trap();
}

static int flag, rounds, three_local_rounds;

static void* waiter(void* arg) {
  (void)arg;
#ifdef LOCAL
  int mine = 0;
  while (flag == 0) {
    mine = mine + 1;
    if (mine == 3) three_local_rounds = 1;
  }
#else
  while (flag == 0) {
    rounds = rounds + 1;
  }
#endif
  return 0;
}

static void* checker(void* arg) {
  (void)arg;
  if (rounds == 3 || three_local_rounds) reach_error();
  flag = 1;
  return 0;
}

int main(void) {
  pthread_t w, c;
  pthread_create(&c, 0, checker, 0);
  pthread_create(&w, 0, waiter, 0);
  pthread_join(w, 0);
  pthread_join(c, 0);
  return 0;
}
