/* Pairs: pairs of threads write the same shared variable; different pairs are independent.
 *
 * Follows PairwiseIndependent.java of the thesis' benchmarks. Threads 2p-1 and 2p (p = 1..4)
 * write sharedValue<p> (values 1/2, 1/2, 3/3, 4/4), then each reads an input and branches on
 * it. The Java test() starts 6 of its 8 threads (thread7 and thread8 are commented out), while
 * Table 8.1's 4,096 = 2^12 counts 8 threads: 2^4 orders of the four pairs' writes times 2^8
 * paths of the eight input branches.
 * Thesis: Kähkönen's doctoral thesis, §8.2 (like Fig. 3.1) and Table 8.1, row Pairs.
 * Parameters: -DTHREADS=N, N even, 2..8; 8 for the table's row (default 6, as in the Java).
 * Reads inputs: one per thread.
 */
#include <pthread.h>
#include <stdint.h>

extern int __VERIFIER_nondet_int(void);

#ifndef THREADS
#define THREADS 6
#endif

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int sharedValue1 = 0;
_Alignas(8) static int sharedValue2 = 0;
_Alignas(8) static int sharedValue3 = 0;
_Alignas(8) static int sharedValue4 = 0;

/* The input branch every Java thread ends with; x is local, so only the branch matters. */
static void branch_on_input(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0)
    x = 1664325;
  else
    x = 2455525;
  (void)x;
}

static void *thread1(void *arg) { (void)arg; sharedValue1 = 1; branch_on_input(); return 0; }
static void *thread2(void *arg) { (void)arg; sharedValue1 = 2; branch_on_input(); return 0; }
static void *thread3(void *arg) { (void)arg; sharedValue2 = 1; branch_on_input(); return 0; }
static void *thread4(void *arg) { (void)arg; sharedValue2 = 2; branch_on_input(); return 0; }
static void *thread5(void *arg) { (void)arg; sharedValue3 = 3; branch_on_input(); return 0; }
static void *thread6(void *arg) { (void)arg; sharedValue3 = 3; branch_on_input(); return 0; }
static void *thread7(void *arg) { (void)arg; sharedValue4 = 4; branch_on_input(); return 0; }
static void *thread8(void *arg) { (void)arg; sharedValue4 = 4; branch_on_input(); return 0; }

int main(void) {
  static void *(*const body[8])(void *) = {thread1, thread2, thread3, thread4,
                                           thread5, thread6, thread7, thread8};
  pthread_t thread[THREADS];
  /* Java's initializeGlobalState() sets the variables to 0: C's statics already are. */
  for (int t = 0; t < THREADS; t++)
    pthread_create(&thread[t], 0, body[t], 0);
#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The Java harness runs test() and waits for its threads; joining last does the same. */
  for (int t = 0; t < THREADS; t++)
    pthread_join(thread[t], 0);
  return 0;
}
