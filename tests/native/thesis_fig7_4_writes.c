// Kähkönen's thesis, Fig. 7.4 (Example 26): three threads write 1, 2 and 3 to one variable. Six
// interleavings, three end states (the last writer's value); the thesis' model of it comes from
// one test execution (§7.3, "Predicting Transitions"). With LAST_WRITE_ASSUMED the program wrongly
// expects thread 3's write to come last.
#include <assert.h>
#include <pthread.h>

int X;

void* write1(void* unused) {
  X = 1;
  return unused;
}
void* write2(void* unused) {
  X = 2;
  return unused;
}
void* write3(void* unused) {
  X = 3;
  return unused;
}

int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, write1, 0);
  pthread_create(&b, 0, write2, 0);
  pthread_create(&c, 0, write3, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
#ifdef LAST_WRITE_ASSUMED
  assert(X == 3);
#endif
  return 0;
}
