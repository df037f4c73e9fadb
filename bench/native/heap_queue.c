// Producers hand heap blocks to a consumer through a locked list and a semaphore: the heap is where the work
// is (each block's payload written, then read and freed by another thread). For the cost of
// weft's memory-error checks (bench/memory_checks/run): every payload access is a checked one.
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

#ifndef ITEMS
#define ITEMS 2
#endif
#ifndef PAYLOAD
#define PAYLOAD 256
#endif

struct node {
  struct node *next;
  int payload[PAYLOAD];
};

static struct node *head;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static sem_t available;

static void *produce(void *arg) {
  const int seed = (int)(long)arg;
  for (int i = 0; i < ITEMS; ++i) {
    struct node *n = malloc(sizeof *n);
    for (int k = 0; k < PAYLOAD; ++k) n->payload[k] = seed * k + i;
    pthread_mutex_lock(&lock);
    n->next = head;
    head = n;
    pthread_mutex_unlock(&lock);
    sem_post(&available);
  }
  return 0;
}

static void *consume(void *arg) {
  (void)arg;
  for (int taken = 0; taken < 2 * ITEMS;) {
    sem_wait(&available);
    pthread_mutex_lock(&lock);
    struct node *n = head;
    head = n->next;
    pthread_mutex_unlock(&lock);
    long sum = 0;
    for (int k = 0; k < PAYLOAD; ++k) sum += n->payload[k];
    total += sum;
    free(n);
    ++taken;
  }
  return 0;
}

int main(void) {
  pthread_t p1, p2, c;
  sem_init(&available, 0, 0);
  pthread_create(&p1, 0, produce, (void *)1L);
  pthread_create(&p2, 0, produce, (void *)2L);
  pthread_create(&c, 0, consume, 0);
  pthread_join(p1, 0);
  pthread_join(p2, 0);
  pthread_join(c, 0);
  return total > 0 ? 0 : 1;
}
