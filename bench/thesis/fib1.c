/* Fib 1: two threads add the shared variables i and j into each other, 4 times each.
 *
 * Follows Fib1.java of the thesis' benchmarks (a bounded version of SV-COMP 2012's fib_bench).
 * main starts both threads and reads i and j at once, without joining: the Java check
 * `i > 377 || j > 377` races with the threads. 377 cannot be reached (at most fib(10) = 55
 * after 8 additions), so the program has no bug.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, row Fib 1.
 * Parameters: none. No inputs.
 */
#include <pthread.h>

extern void reach_error(void);

/* Java's static fields are distinct locations; weft tracks memory in 8-byte granules, so each
 * shared variable gets a granule of its own. */
_Alignas(8) static int i = 1;
_Alignas(8) static int j = 1;

static void *add_j_to_i(void *arg) {
  (void)arg;
  for (int k = 0; k < 4; k++)
    i = i + j;
  return 0;
}

static void *add_i_to_j(void *arg) {
  (void)arg;
  for (int k = 0; k < 4; k++)
    j = j + i;
  return 0;
}

int main(void) {
  pthread_t thread1, thread2;
  pthread_create(&thread1, 0, add_j_to_i, 0);
  pthread_create(&thread2, 0, add_i_to_j, 0);

  if (i > 377 || j > 377)
    reach_error(); /* Java: System.out.println("ERROR") */

  /* The JVM waits for the threads after main returns; joining last does the same. */
  pthread_join(thread1, 0);
  pthread_join(thread2, 0);
  return 0;
}
