// A single-producer, single-consumer ring as lock-free queue libraries build it (Boost.Lockfree's
// spsc_queue): the producer loops around a failing try_push and the consumer around an empty
// try_pop, each reaching the ring through a pointer it reads plainly every iteration (a
// lambda's capture, the queue object), and each loading the indices with the generic atomic
// load, which at -O0 stores into a local of the callee whose address it takes. An iteration
// that finds the ring full or empty changes nothing: the thread stops until the other moves an
// index. Before, the plain reads and the callee's locals made every iteration look like a
// change, and the loops ran to --max-steps.
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#define SLOTS 3  // two items fit

struct ring {
  unsigned long head, tail;  // read and written with atomics only
  int slots[SLOTS];
};

struct job {
  struct ring* ring;
  int items;
};

static unsigned long load(unsigned long* index) {
  unsigned long value;
  __atomic_load(index, &value, __ATOMIC_ACQUIRE);
  return value;
}

static bool try_push(struct ring* r, int item) {
  const unsigned long tail = load(&r->tail);
  const unsigned long next = (tail + 1) % SLOTS;
  if (next == load(&r->head)) return false;  // full
  r->slots[tail] = item;
  __atomic_store_n(&r->tail, next, __ATOMIC_RELEASE);
  return true;
}

static bool try_pop(struct ring* r, int* item) {
  const unsigned long head = load(&r->head);
  if (head == load(&r->tail)) return false;  // empty
  *item = r->slots[head];
  __atomic_store_n(&r->head, (head + 1) % SLOTS, __ATOMIC_RELEASE);
  return true;
}

static void* produce(void* arg) {
  struct job* job = arg;
  for (int i = 1; i <= job->items; ++i)
    while (!try_push(job->ring, i)) {
    }
  return 0;
}

int main(void) {
  struct ring ring = {0};
  struct job* job = malloc(sizeof *job);
  job->ring = &ring;
  job->items = 3;
  pthread_t producer;
  pthread_create(&producer, 0, produce, job);
  for (int i = 1; i <= job->items; ++i) {
    int item;
    while (!try_pop(job->ring, &item)) {
    }
    assert(item == i);
  }
  pthread_join(producer, 0);
  free(job);
  return 0;
}
