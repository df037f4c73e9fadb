/* Szymanski: Szymanski's mutual exclusion protocol for two threads, with bounded busy waits.
 *
 * Follows Szymanski.java, Szymanski2.java and Szymanski3.java of the thesis' benchmarks
 * (SV-COMP 2012's szymanski, with every wait loop bounded by one per-thread counter,
 * `iterations`, so that exploration terminates). The three Java files differ only in the loop
 * bounds. Every test of a flag in a loop condition and the read of x after the critical
 * section's write are shared reads, as in the Java; the loop conditions test the flag first.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Szymanski 1-3.
 * Parameters: -DWAIT_OUTER=N (bound of the first and the last wait loop) and -DWAIT_INNER=M
 * (bound of the two waits in between): 3/3, 4/3 and 5/4 for Szymanski 1, 2 and 3 (default 3/3).
 * No inputs.
 */
#include <pthread.h>

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int flag1 = 0;
_Alignas(8) static int flag2 = 0;
_Alignas(8) static int x = 0;

#ifndef WAIT_OUTER
#define WAIT_OUTER 3
#endif
#ifndef WAIT_INNER
#define WAIT_INNER 3
#endif

static void *thread1(void *arg) {
  (void)arg;
  int iterations = 0;
  flag1 = 1;
  while (flag2 >= 3 && iterations < WAIT_OUTER) {
    iterations++;
  }
  flag1 = 3;

  if (flag2 == 1) {
    flag1 = 2;
    while (flag2 != 4 && iterations < WAIT_INNER) {
      iterations++;
    }
  }

  flag1 = 4;
  while (flag2 >= 2 && iterations < WAIT_INNER) {
    iterations++;
  }
  x = 0; /* critical section */
  if (x > 0) {
    /* empty in the Java too: only the read of x matters */
  }

  while (flag2 >= 2 && flag2 <= 3 && iterations < WAIT_OUTER) {
    iterations++;
  }
  flag1 = 0;
  return 0;
}

static void *thread2(void *arg) {
  (void)arg;
  int iterations = 0;
  flag2 = 1;
  while (flag1 >= 3 && iterations < WAIT_OUTER) {
    iterations++;
  }
  flag2 = 3;

  if (flag1 == 1) {
    flag2 = 2;
    while (flag1 != 4 && iterations < WAIT_INNER) {
      iterations++;
    }
  }

  flag2 = 4;
  while (flag1 >= 2 && iterations < WAIT_INNER) {
    iterations++;
  }
  x = 1; /* critical section */

  if (x < 1) {
    /* empty in the Java too: only the read of x matters */
  }

  while (flag1 >= 2 && flag1 <= 3 && iterations < WAIT_OUTER) {
    iterations++;
  }
  flag2 = 0;
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, thread1, 0);
  pthread_create(&t2, 0, thread2, 0);
#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* The JVM waits for the threads after main returns; joining last does the same. */
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
