/* THREADS threads, each running REGIONS critical sections under one shared mutex, each section
 * updating only that thread's own counter: the shape of the programs Bruening and Chapin's tester
 * ran ("four threads with twenty synchronized regions each", §7). Every order of the regions is a
 * different interleaving of the lock, but none of them interact: ExitBlock-RW runs (REGIONS+1)^
 * (THREADS-1) schedules (§5.2), ExitBlock and DPOR every order of the lock's acquisitions.
 * Parameters: -DTHREADS=k -DREGIONS=n (default 4 and 20). No bug.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

#ifndef THREADS
#define THREADS 4
#endif
#ifndef REGIONS
#define REGIONS 20
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter[THREADS];

static void *worker(void *arg) {
  const int me = (int)(intptr_t)arg;
  for (int r = 0; r < REGIONS; r++) {
    pthread_mutex_lock(&lock);
    counter[me]++;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], 0, worker, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], 0);
  for (int i = 0; i < THREADS; i++) assert(counter[i] == REGIONS);
  return 0;
}
