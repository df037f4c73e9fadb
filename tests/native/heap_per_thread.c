// Deterministic per-thread allocation (POET §4.3): a thread's heap addresses depend only on
// what that thread did. A block main frees is never handed to another thread (with one shared
// heap, the worker's malloc would get main's block back and the assertion would fail), and a
// thread's blocks are the same in every interleaving, whatever the other thread allocates.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void* freed_by_main;
static void* first_of[2];

static void* worker(void* arg) {
  long id = (long)arg;
  pthread_mutex_lock(&lock);  // the two workers' allocations interleave in both orders
  pthread_mutex_unlock(&lock);
  void* mine = malloc(200);  // a size weft itself does not allocate
  assert(mine != freed_by_main);
  pthread_mutex_lock(&lock);
  if (!first_of[id]) first_of[id] = mine;
  pthread_mutex_unlock(&lock);
  free(mine);
  return 0;
}

int main(void) {
  freed_by_main = malloc(200);
  free(freed_by_main);
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void*)0L);
  pthread_create(&b, 0, worker, (void*)1L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
