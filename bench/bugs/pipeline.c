/* pipeline: a two-stage pipeline. THREADS workers each pass an item through stage 1 (under
 * mutex m1: publish it in `first`) and then stage 2 (under mutex m2: derive `second` from it);
 * one reader takes m1 and then m2 and asserts that the stage-2 value matches the stage-1 value
 * it saw.
 *
 * After SCTBench's twostage_X_bad (Thomson, Donaldson and Betts, PPoPP 2014). Each stage is
 * atomic on its own but the pair is not: the bug is the reader running between the two stages
 * of the first worker to get through stage 1, before any worker gets to stage 2. It needs one
 * preemption (of that worker, between its stages), two ordering constraints (PCT depth 2), but
 * it is rare among the interleavings of THREADS workers: once any worker has been through
 * stage 2, the pair stays consistent. The reader is created right after the first worker, so
 * that a round-robin scheduler reaches it with one delay; with -DREADER_AFTER=THREADS it comes
 * last, as in SCTBench, where fewer strategies find the bug in time.
 *
 *   -DTHREADS=N       the workers (default 100)
 *   -DREADER_AFTER=K  the workers created before the reader (default 1)
 *   -DFIXED           a worker holds m1 until it holds m2 (hand over hand): no bug
 */
#include <assert.h>
#include <pthread.h>

#ifndef THREADS
#define THREADS 100
#endif
#ifndef READER_AFTER
#define READER_AFTER 1
#endif

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static int first;  /* under m1: 0 until an item went through stage 1 */
static int second; /* under m2: derived from `first` by stage 2 */

static void *worker(void *arg) {
  (void)arg;
  int item = 1;
  pthread_mutex_lock(&m1);
  first = item;
#ifndef FIXED
  pthread_mutex_unlock(&m1);
#endif
  pthread_mutex_lock(&m2);
  second = item + 1;
  pthread_mutex_unlock(&m2);
#ifdef FIXED
  pthread_mutex_unlock(&m1);
#endif
  return 0;
}

static void *reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m1);
  int seen_first = first;
  pthread_mutex_unlock(&m1);
  if (seen_first == 0) return 0; /* nothing in the pipeline yet */
  pthread_mutex_lock(&m2);
  int seen_second = second;
  pthread_mutex_unlock(&m2);
  assert(seen_second == seen_first + 1);
  return 0;
}

int main(void) {
  pthread_t workers[THREADS], check;
  for (int i = 0; i < THREADS; i++) {
    if (i == READER_AFTER) pthread_create(&check, 0, reader, 0);
    pthread_create(&workers[i], 0, worker, 0);
  }
  if (READER_AFTER >= THREADS) pthread_create(&check, 0, reader, 0);
  for (int i = 0; i < THREADS; i++) pthread_join(workers[i], 0);
  pthread_join(check, 0);
  return 0;
}
