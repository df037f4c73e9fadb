/* Each thread writes y between two critical sections. The first execution runs one thread's
 * sections before the other's: no race. The interleavings that put the two writes between the
 * other thread's sections race, though every step of them was seen in race-free executions
 * before: the thread model (--points=sync, native_e2e_test.cpp) must run them, not compute
 * them, so that the race is found as with every execution run. */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
_Alignas(8) static int y, z;

static void *writer(void *arg) {
  pthread_mutex_lock(&m);
  z = 1;
  pthread_mutex_unlock(&m);
  y = (int)(long)arg;
  pthread_mutex_lock(&m);
  z = 1;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, writer, (void *)1);
  pthread_create(&t2, 0, writer, (void *)2);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
