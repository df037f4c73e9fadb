/* Locking 2: every access to the shared variables is protected by one lock
 * (5 threads, 9 critical sections).
 *
 * Follows SingleLock2.java of the thesis' benchmarks, thread by thread and access by access.
 * Every two critical sections of different threads conflict, so each order of the critical
 * sections that keeps every thread's own order is one Mazurkiewicz trace:
 * 9! / (2! * 2! * 2! * 2! * 1!) = 22680.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, row Locking 2.
 * Parameters: none. No inputs.
 */
#include <pthread.h>

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int sharedValue = 0;
_Alignas(8) static int sharedValue2 = 0;
_Alignas(8) static int sharedValue3 = 0;
static pthread_mutex_t lock1 = PTHREAD_MUTEX_INITIALIZER;

static void *thread1(void *arg) {
  int x, y; /* Java's locals */
  (void)arg;
  pthread_mutex_lock(&lock1);
  sharedValue = 1;
  sharedValue2 = 4;
  sharedValue3 = 5;
  x = sharedValue;
  pthread_mutex_unlock(&lock1);

  pthread_mutex_lock(&lock1);
  sharedValue = 2;
  y = sharedValue3;
  pthread_mutex_unlock(&lock1);
  (void)x;
  (void)y;
  return 0;
}

static void *thread2(void *arg) {
  int x, y; /* Java's locals */
  (void)arg;
  pthread_mutex_lock(&lock1);
  sharedValue = 2;
  x = sharedValue3;
  pthread_mutex_unlock(&lock1);

  pthread_mutex_lock(&lock1);
  sharedValue = 1;
  sharedValue2 = 4;
  sharedValue3 = 5;
  y = sharedValue;
  pthread_mutex_unlock(&lock1);
  (void)x;
  (void)y;
  return 0;
}

static void *thread3(void *arg) {
  int x, y; /* Java's locals */
  (void)arg;
  pthread_mutex_lock(&lock1);
  sharedValue = 3;
  x = sharedValue2;
  pthread_mutex_unlock(&lock1);

  pthread_mutex_lock(&lock1);
  sharedValue = 1;
  sharedValue2 = 4;
  sharedValue3 = 5;
  y = sharedValue;
  pthread_mutex_unlock(&lock1);
  (void)x;
  (void)y;
  return 0;
}

static void *thread4(void *arg) {
  int x, y; /* Java's locals */
  (void)arg;
  pthread_mutex_lock(&lock1);
  sharedValue2 = 1;
  sharedValue = 4;
  sharedValue3 = 5;
  x = sharedValue2;
  pthread_mutex_unlock(&lock1);

  pthread_mutex_lock(&lock1);
  sharedValue = 2;
  y = sharedValue;
  pthread_mutex_unlock(&lock1);
  (void)x;
  (void)y;
  return 0;
}

static void *thread5(void *arg) {
  int x; /* Java's locals */
  (void)arg;
  pthread_mutex_lock(&lock1);
  sharedValue = 1;
  sharedValue2 = 4;
  sharedValue3 = 5;
  x = sharedValue2;
  pthread_mutex_unlock(&lock1);
  (void)x;
  return 0;
}

int main(void) {
  static void *(*const body[5])(void *) = {thread1, thread2, thread3, thread4, thread5};
  pthread_t thread[5];
  for (int t = 0; t < 5; t++)
    pthread_create(&thread[t], 0, body[t], 0);
  /* The JVM waits for the threads after main returns; joining last does the same. */
  for (int t = 0; t < 5; t++)
    pthread_join(thread[t], 0);
  return 0;
}
