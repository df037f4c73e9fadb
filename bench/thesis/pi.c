/* Parallel Pi: THREADS workers compute parts of a sum for pi and add them to a shared total.
 *
 * Follows PiJavaThread.java of the thesis' benchmarks. The Java object's fields n, numThreads
 * and pi become globals, written by main before it starts the workers as the Java constructor
 * does. Worker myid sums the terms i = myid+1, myid+1+numThreads, ... up to n (n = 3, as in the
 * Java main), reading n and numThreads on every loop test as the Java does, and adds its part
 * under a lock (Java's synchronized addPi). The Java file starts 3 workers, while Table 8.1's
 * rows need 6 and 7 (720 = 6! and 5040 = 7! traces: the orders of the workers' additions).
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Parallel Pi 1 and 2.
 * Parameters: -DTHREADS=N, N = 6 and 7 for Parallel Pi 1 and 2 (default 3, as in the Java).
 * No inputs.
 */
#include <pthread.h>
#include <stdint.h>

#ifndef THREADS
#define THREADS 3
#endif

/* Java's fields are distinct locations; weft tracks memory in 8-byte granules, so each shared
 * variable gets a granule of its own. */
_Alignas(8) static int n;
_Alignas(8) static int numThreads;
_Alignas(8) static double pi = 0.0;
static pthread_mutex_t pi_lock; /* the monitor of the Java object */

static void addPi(double p) {
  pthread_mutex_lock(&pi_lock);
  pi += p;
  pthread_mutex_unlock(&pi_lock);
}

static void *worker(void *arg) {
  int myid = (int)(intptr_t)arg;
  double d, s, x;
  d = 1.0 / n;
  s = 0.0;
  for (int i = myid + 1; i <= n; i += numThreads) {
    x = (i - 0.5) * d;
    s += 4.0 / (1.0 + x * x);
  }
  addPi(d * s);
  return 0;
}

int main(void) {
  pthread_t threads[THREADS];
  int nd = 3, nt = THREADS; /* new PiJavaThread(3, THREADS) */
  pthread_mutex_init(&pi_lock, 0);
  n = nd;
  numThreads = nt;
  for (int i = 0; i < numThreads; i++)
    pthread_create(&threads[i], 0, worker, (void *)(intptr_t)i);
#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The JVM waits for the workers after main returns; joining last does the same. */
  for (int i = 0; i < nt; i++)
    pthread_join(threads[i], 0);
  return 0;
}
