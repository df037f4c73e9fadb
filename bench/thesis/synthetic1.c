/* Synthetic 1: a generated sequence of operations on inputs, shared variables and two locks.
 *
 * Follows SynthNew.java of the thesis' benchmarks: main starts two threads running the same
 * code, then reads sharedValue, writes sharedValue2 and, depending on an input, takes lock2 and
 * lock1, while a thread whose reads add up to more than 10 takes lock1 and lock2: they can
 * deadlock.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, row Synthetic 1.
 * Parameters: none. Reads inputs (the Java's org.sedd.Input.generateInteger()).
 */
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int sharedValue = 0;
_Alignas(8) static int sharedValue2 = 0;
_Alignas(8) static int sharedValue3 = 0;
static pthread_mutex_t lock1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock2 = PTHREAD_MUTEX_INITIALIZER;

/* SynthNew.run(), the body of both threads. */
static void *run(void *arg) {
  (void)arg;
  sharedValue3 = 1;
  sharedValue2 = __VERIFIER_nondet_int();
  int read2 = sharedValue2;
  int read3 = sharedValue3;

  if (read3 + read2 > 10) {
    pthread_mutex_lock(&lock1);
    pthread_mutex_lock(&lock2);

    read2 = read2 * 5;
    sharedValue3 = read2;

    pthread_mutex_unlock(&lock2);
    pthread_mutex_unlock(&lock1);
  }
  return 0;
}

int main(void) {
  pthread_t thread1, thread2;
  pthread_create(&thread1, 0, run, 0);
  pthread_create(&thread2, 0, run, 0);

  int read1 = sharedValue;
  (void)read1;
  sharedValue2 = 1;

  if (__VERIFIER_nondet_int() > 10) {
    int x = 0;
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
  pthread_join(thread1, 0);
  pthread_join(thread2, 0);
  return 0;
}
