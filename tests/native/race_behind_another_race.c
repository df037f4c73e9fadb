// The race that enables the bug is reported alongside another one: writer's `b = 1` races with
// both checker's `b = 0` and its read of b, two earlier accesses to b. Both pairs must be
// reported (promoted), not only the first; the read's race is what lets writer run between
// checker's two reads, so that a is still 0 and b is already 1.
#include <assert.h>
#include <pthread.h>

int a, b;

static void* checker(void* arg) {
  (void)arg;
  b = 0;
  assert(a != 1);
  assert(b != 1);
  return 0;
}

static void* writer(void* arg) {
  (void)arg;
  a = 1;
  b = 1;
  return 0;
}

int main(void) {
  pthread_t c, w;
  pthread_create(&c, 0, checker, 0);
  pthread_create(&w, 0, writer, 0);
  pthread_join(c, 0);
  pthread_join(w, 0);
  return 0;
}
