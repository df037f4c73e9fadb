/* Dining philosophers: each philosopher eats twice.
 *
 * Follows Dining1.java .. Dining4.java of the thesis' benchmarks, which differ only in the
 * number of philosophers: philosopher p (1..N) locks fork p, then fork p-1 (fork N for p = 1),
 * unlocks both, and does it again. The forks are ReentrantLocks in Java.
 * Thesis: Kähkönen's doctoral thesis, §8.2 and Table 8.1, rows Dining 1-4. The program can
 * deadlock, when every philosopher holds his first fork (Table 8.2: Dining 2 and 3, deadlock, SAT).
 * Parameters: -DPHILOSOPHERS=N with N = 4, 5, 6, 7 for Dining 1, 2, 3, 4 (default 4).
 * No inputs.
 */
#include <pthread.h>
#include <stdint.h>

#ifndef PHILOSOPHERS
#define PHILOSOPHERS 4
#endif

static pthread_mutex_t fork_lock[PHILOSOPHERS];

static void *philosopher(void *arg) {
  int p = (int)(intptr_t)arg; /* 0-based: fork p is Java's fork p+1 */
  int left = p;
  int right = (p + PHILOSOPHERS - 1) % PHILOSOPHERS;
  for (int meal = 0; meal < 2; meal++) {
    pthread_mutex_lock(&fork_lock[left]);
    pthread_mutex_lock(&fork_lock[right]);
    /* eat */
    pthread_mutex_unlock(&fork_lock[right]);
    pthread_mutex_unlock(&fork_lock[left]);
  }
  return 0;
}

int main(void) {
  pthread_t thread[PHILOSOPHERS];
  for (int p = 0; p < PHILOSOPHERS; p++)
    pthread_mutex_init(&fork_lock[p], 0);
  for (int p = 0; p < PHILOSOPHERS; p++)
    pthread_create(&thread[p], 0, philosopher, (void *)(intptr_t)p);
#ifdef MAIN_EXITS
  /* As the JVM does: main ends and the process waits for the threads. bench/thesis/run builds
   * the contextual strategy's runs so, since a join makes main's later events depend on the
   * joined thread's whole history (docs/unfolding.md, "Known limits"). */
  pthread_exit(0);
#endif
  /* Java's main returns here and the JVM waits for the philosophers; joining them last does the
   * same without adding interleavings (a return from main would cut the threads off). */
  for (int p = 0; p < PHILOSOPHERS; p++)
    pthread_join(thread[p], 0);
  return 0;
}
