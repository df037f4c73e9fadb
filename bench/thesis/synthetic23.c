/* Synthetic 2 and 3: a generated sequence of operations on inputs, shared variables and two
 * locks.
 *
 * Follows SynthNew2.java and SynthNew3.java of the thesis' benchmarks: main starts four threads,
 * then reads sharedValue, writes sharedValue2 and, depending on an input, reads sharedValue3 or
 * takes lock2 and lock1, while thread 1 may take lock1 and lock2: they can deadlock (Table 8.2:
 * Synthetic 2, deadlock, SAT). Thread 4 writes its input to sharedValue2 in Synthetic 2, and 0
 * in Synthetic 3; the programs differ in nothing else.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Synthetic 2 and 3.
 * Parameters: -DVARIANT=N, N = 2 or 3 for Synthetic N (default 2). Reads inputs (the Java's
 * org.sedd.Input.generateInteger()).
 */
#ifndef VARIANT
#define VARIANT 2
#endif
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int sharedValue = 0;
_Alignas(8) static int sharedValue2 = 0;
_Alignas(8) static int sharedValue3 = 0;
static pthread_mutex_t lock1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock2 = PTHREAD_MUTEX_INITIALIZER;

static void *thread1(void *arg) {
  (void)arg;
  sharedValue = __VERIFIER_nondet_int();
  int read2 = sharedValue2;
  int read3 = sharedValue3;

  if (read3 + read2 > sharedValue) {
    pthread_mutex_lock(&lock1);
    pthread_mutex_lock(&lock2);

    read2 = read2 * 5;
    sharedValue3 = read2;

    pthread_mutex_unlock(&lock2);
    pthread_mutex_unlock(&lock1);
  }
  return 0;
}

static void *thread2(void *arg) {
  (void)arg;
  sharedValue3 = __VERIFIER_nondet_int();
  return 0;
}

static void *thread4(void *arg) {
  (void)arg;
  int i = __VERIFIER_nondet_int();

  if (i > sharedValue3 % 48)
#if VARIANT == 3
    sharedValue2 = 0;
#else
    sharedValue2 = i;
#endif
  return 0;
}

static void *thread3(void *arg) {
  (void)arg;
  int l = __VERIFIER_nondet_int();
  int r = sharedValue;
  int r2 = sharedValue3;
  if (l == r + r2) {
    sharedValue2 = l;
  }
  return 0;
}

int main(void) {
  pthread_t t1, t2, t3, t4;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
  pthread_create(&t3, 0, thread3, 0);
  pthread_create(&t4, 0, thread4, 0);

  int read1 = sharedValue;
  (void)read1;
  sharedValue2 = 1;

  if (__VERIFIER_nondet_int() > 10) {
    int x = sharedValue3;
    (void)x;
  } else {
    pthread_mutex_lock(&lock2);
    pthread_mutex_lock(&lock1);
    pthread_mutex_unlock(&lock1);
    pthread_mutex_unlock(&lock2);
  }

#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The JVM waits for the threads after main returns; joining last does the same. */
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  pthread_join(t3, 0);
  pthread_join(t4, 0);
  return 0;
}
