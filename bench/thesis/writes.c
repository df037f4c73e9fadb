/* Writes: six threads each write one shared variable twice.
 *
 * Follows Writes.java of the thesis' benchmarks (like the program of the thesis' Fig. 7.4, with
 * more threads and writes). The harness thread (main here) starts five threads that write
 * sharedValue twice each, then writes it twice itself. All 12 writes conflict, so every
 * interleaving that keeps each thread's order is a trace of its own: 12! / 2!^6 = 7,484,400.
 * No algorithm of the thesis finished it within 30 minutes.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, row Writes.
 * Parameters: none. No inputs.
 */
#include <pthread.h>

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int sharedValue = 0;
_Alignas(8) static int sharedValue2 = 0; /* declared, never used, as in the Java */

static void *thread1(void *arg) { (void)arg; sharedValue = 1; sharedValue = 2; return 0; }
static void *thread2(void *arg) { (void)arg; sharedValue = 3; sharedValue = 4; return 0; }
static void *thread3(void *arg) { (void)arg; sharedValue = 9; sharedValue = 10; return 0; }
static void *thread4(void *arg) { (void)arg; sharedValue = 11; sharedValue = 12; return 0; }
static void *thread5(void *arg) { (void)arg; sharedValue = 7; sharedValue = 8; return 0; }

int main(void) {
  static void *(*const body[5])(void *) = {thread1, thread2, thread3, thread4, thread5};
  pthread_t thread[5];
  /* Java's initializeGlobalState() sets the variables to 0: C's statics already are. */
  for (int t = 0; t < 5; t++)
    pthread_create(&thread[t], 0, body[t], 0);

  sharedValue = 5;
  sharedValue = 6;

#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The Java harness runs test() and waits for its threads; joining last does the same. */
  for (int t = 0; t < 5; t++)
    pthread_join(thread[t], 0);
  return 0;
}
