// Output the program leaves in stdio's buffer at the end (no newline, no fflush) reaches the
// terminal with --show-output, as it would when the process exits.
#include <pthread.h>
#include <stdio.h>

static void* greet(void* arg) {
  (void)arg;
  printf("from the thread; ");
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, greet, 0);
  pthread_join(t, 0);
  printf("unflushed at the end");
  return 0;
}
