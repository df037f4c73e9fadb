/* Fib 1 and 2: two threads add the shared variables i and j into each other, 4 (Fib 1) or 5
 * (Fib 2) times each.
 *
 * Follows Fib1.java and Fib2.java of the thesis' benchmarks (bounded versions of SV-COMP 2012's
 * fib_bench). main starts both threads and reads i and j at once, without joining: the Java
 * check races with the threads.
 *   Fib 1 checks `i > 377 || j > 377`. 377 cannot be reached (at most fib(10) = 55 after 8
 *   additions), so the program has no bug.
 *   Fib 2 checks `i >= 144 || j >= 144`. When the 10 additions alternate, the last one makes 144
 *   (fib(12)), so reach_error() is reachable if main reads after both threads are done.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Fib 1 and 2.
 * Parameters: -DVARIANT=N, N = 1 or 2 for Fib N (default 1). No inputs.
 */
#ifndef VARIANT
#define VARIANT 1
#endif
#if VARIANT == 2
#define ADDITIONS 5
#define REACHED(x) ((x) >= 144)
#else
#define ADDITIONS 4
#define REACHED(x) ((x) > 377)
#endif

#include <pthread.h>

extern void reach_error(void);

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int i = 1;
_Alignas(8) static int j = 1;

static void *add_j_to_i(void *arg) {
  (void)arg;
  for (int k = 0; k < ADDITIONS; k++)
    i = i + j;
  return 0;
}

static void *add_i_to_j(void *arg) {
  (void)arg;
  for (int k = 0; k < ADDITIONS; k++)
    j = j + i;
  return 0;
}

int main(void) {
  pthread_t thread1, thread2;
  pthread_create(&thread1, 0, add_j_to_i, 0);
  pthread_create(&thread2, 0, add_i_to_j, 0);

  if (REACHED(i) || REACHED(j))
    reach_error(); /* Java: System.out.println("ERROR") */

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
