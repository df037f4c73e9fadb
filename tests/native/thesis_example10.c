// Thesis Example 10 (Fig. 3.12) without its input: thread 1 reads x and fails if it is positive;
// thread 2 reads x and, if it was 0, writes it. Its unfolding: two reads of the initial x, the
// write, and thread 1's read of the written x, which fails.
#include <assert.h>
#include <pthread.h>

static int x;

static void* reader(void* arg) {
  (void)arg;
  if (x > 0) assert(!"x is positive");
  return 0;
}

static void* writer(void* arg) {
  (void)arg;
  if (x == 0) x = 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, reader, 0);
  pthread_create(&b, 0, writer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
