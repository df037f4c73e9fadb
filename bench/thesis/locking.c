/* Locking 1-4: every access to the shared variables is protected by one lock.
 *
 * Follows SingleLock.java .. SingleLock4.java of the thesis' benchmarks, thread by thread and
 * access by access. They differ only in their threads:
 *   Locking 1: threads 1-4, two critical sections each (8 sections);
 *   Locking 2: and thread 5, with its first critical section only (9);
 *   Locking 3: and thread 5 with both (10);
 *   Locking 4: and thread 6 (12).
 * Every two critical sections of different threads conflict, so each order of the critical
 * sections that keeps every thread's own order is one Mazurkiewicz trace:
 * 8!/2!^4 = 2520, 9!/2!^4 = 22680, 10!/2!^5 = 113400 and 12!/2!^6 = 7484400.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Locking 1-4.
 * Parameters: -DVARIANT=N, N = 1..4 for Locking N (default 1). No inputs.
 */
#ifndef VARIANT
#define VARIANT 1
#endif
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

#if VARIANT >= 2
static void *thread5(void *arg) {
  int x, y; /* Java's locals */
  (void)arg;
  pthread_mutex_lock(&lock1);
  sharedValue = 1;
  sharedValue2 = 4;
  sharedValue3 = 5;
  x = sharedValue2;
  pthread_mutex_unlock(&lock1);

#if VARIANT >= 3
  pthread_mutex_lock(&lock1);
  sharedValue = 1;
  sharedValue2 = 4;
  sharedValue3 = 5;
  y = sharedValue;
  pthread_mutex_unlock(&lock1);
#else
  y = 0;
#endif
  (void)x;
  (void)y;
  return 0;
}
#endif

#if VARIANT >= 4
static void *thread6(void *arg) {
  int x, y, z; /* Java's locals */
  (void)arg;
  pthread_mutex_lock(&lock1);
  sharedValue = 3;
  x = sharedValue2;
  z = sharedValue3;
  pthread_mutex_unlock(&lock1);

  pthread_mutex_lock(&lock1);
  sharedValue = 1;
  sharedValue2 = 4;
  sharedValue3 = 5;
  y = sharedValue;
  pthread_mutex_unlock(&lock1);
  (void)x;
  (void)y;
  (void)z;
  return 0;
}
#endif

int main(void) {
  static void *(*const body[])(void *) = {thread1, thread2, thread3, thread4,
#if VARIANT >= 2
                                          thread5,
#endif
#if VARIANT >= 4
                                          thread6,
#endif
  };
  enum { kThreads = sizeof body / sizeof body[0] };
  pthread_t thread[kThreads];
  for (int t = 0; t < kThreads; t++)
    pthread_create(&thread[t], 0, body[t], 0);
#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The JVM waits for the threads after main returns; joining last does the same. */
  for (int t = 0; t < kThreads; t++)
    pthread_join(thread[t], 0);
  return 0;
}
