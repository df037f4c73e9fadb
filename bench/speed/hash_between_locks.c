/* hash_between_locks: threads that compute a real hash between short critical sections.
 *
 * THREADS threads (default 2) each do ROUNDS rounds (default 5) of: hash a 64 KiB buffer of the
 * thread's own PASSES times (default 4; 64-bit FNV-1a, each pass seeded with the previous
 * hash), fold the hash into the buffer, then lock a mutex and add the hash to a shared total.
 * Almost all the time goes to computation weft need not schedule: the buffer is a local of the
 * thread that never escapes, and the only shared accesses are to the total, under the mutex.
 * The traces are the orders of the critical sections: with 2 threads and 5 rounds,
 * 10! / (5! 5!) = 252.
 * A row of bench/speed/run (issue 13's speed table), which compares weft's time per execution
 * with one native run of the program (built with plain clang -O2 -pthread). main prints the
 * total, so that the work cannot be optimised away.
 * Parameters: -DTHREADS=N, -DROUNDS=N, -DPASSES=N. No inputs.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef THREADS
#define THREADS 2
#endif
#ifndef ROUNDS
#define ROUNDS 5
#endif
#ifndef PASSES
#define PASSES 4
#endif
#define BUFFER_BYTES (64 * 1024)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
_Alignas(8) static uint64_t total = 0;

/* 64-bit FNV-1a over n bytes, starting from h. */
static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static void *worker(void *arg) {
  const uint64_t id = (uint64_t)(intptr_t)arg;
  unsigned char buffer[BUFFER_BYTES];
  for (size_t i = 0; i < sizeof buffer; i++)
    buffer[i] = (unsigned char)(i * 131 + id * 7 + 1);
  for (int round = 0; round < ROUNDS; round++) {
    uint64_t h = 0xcbf29ce484222325ULL ^ id;
    for (int pass = 0; pass < PASSES; pass++)
      h = fnv1a(h, buffer, sizeof buffer);
    /* The next round hashes different bytes. */
    memcpy(buffer + (size_t)round * sizeof h, &h, sizeof h);
    pthread_mutex_lock(&lock);
    total += h;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

int main(void) {
  pthread_t thread[THREADS];
  for (int t = 0; t < THREADS; t++)
    pthread_create(&thread[t], 0, worker, (void *)(intptr_t)t);
  for (int t = 0; t < THREADS; t++)
    pthread_join(thread[t], 0);
  printf("total %016llx\n", (unsigned long long)total);
  return 0;
}
