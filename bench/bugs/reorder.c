/* reorder: SETTERS threads each set a pair of shared variables, one after the other, and one
 * checker thread reads the pair and asserts that it saw it either untouched or fully set.
 *
 * After SCTBench's reorder_X_bad (Thomson, Donaldson and Betts, PPoPP 2014). The pair is two
 * seq_cst atomics, so weft schedules every access (--points=sync) and the bug is an assertion
 * failure rather than a data race. The bug: the checker reads `a` after some setter wrote it
 * and `b` before every setter wrote it (or `a` before every write and `b` after one): a setter
 * is preempted between its two stores while the checker runs. That is one preemption, or two
 * ordering constraints (PCT depth 2). The checker is created last: a depth-first search
 * backtracks first through the orders of the setters' stores, none of which has the bug, and
 * a random walk has usually run every setter to its end before the checker starts.
 *
 *   -DSETTERS=N  the setter threads (default 10)
 *   -DFIXED      the setters write the pair under a mutex the checker takes too: no bug
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef SETTERS
#define SETTERS 10
#endif

static atomic_int a;
static atomic_int b;
#ifdef FIXED
static pthread_mutex_t pair_lock = PTHREAD_MUTEX_INITIALIZER;
#define LOCK() pthread_mutex_lock(&pair_lock)
#define UNLOCK() pthread_mutex_unlock(&pair_lock)
#else
#define LOCK() ((void)0)
#define UNLOCK() ((void)0)
#endif

static void *setter(void *arg) {
  (void)arg;
  LOCK();
  atomic_store(&a, 1);
  atomic_store(&b, -1);
  UNLOCK();
  return 0;
}

static void *checker(void *arg) {
  (void)arg;
  LOCK();
  int seen_a = atomic_load(&a);
  int seen_b = atomic_load(&b);
  UNLOCK();
  assert((seen_a == 0 && seen_b == 0) || (seen_a == 1 && seen_b == -1));
  return 0;
}

int main(void) {
  pthread_t setters[SETTERS], check;
  for (int i = 0; i < SETTERS; i++) pthread_create(&setters[i], 0, setter, 0);
  pthread_create(&check, 0, checker, 0);
  for (int i = 0; i < SETTERS; i++) pthread_join(setters[i], 0);
  pthread_join(check, 0);
  return 0;
}
